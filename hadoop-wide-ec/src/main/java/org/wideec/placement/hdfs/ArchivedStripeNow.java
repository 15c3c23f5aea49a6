package org.wideec.placement.hdfs;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.hdfs.server.blockmanagement.WideEcArchivedBlocks;
import org.apache.hadoop.hdfs.server.namenode.FSNamesystem;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.ArchivedStripeRepair;

/**
 * An archived stripe's stored members as the blocks map holds them now, and what that makes of the stripe
 * ({@link ArchivedStripeRepair}: helpers, lost, stale, gone), for the NameNode plugin's passes.
 *
 * @param views each stored member's block still in the namesystem, by block id
 * @param repair the stripe's members sorted (only for a stripe whose parity protects it)
 * @param nodes every DataNode listed for a block of the stripe, live or not
 */
record ArchivedStripeNow(Map<Long, WideEcArchivedBlocks.BlockView> views, ArchivedStripeRepair repair,
    Set<String> nodes) {

  /** Looks the stripe's blocks up; {@link ArchivedStripeRepair#protects} must hold. */
  static ArchivedStripeNow of(FSNamesystem fsn, ArchivedStripe s) {
    int[] stored = s.storedUnits();
    long[] ids = new long[stored.length];
    for (int i = 0; i < stored.length; i++) {
      ids[i] = s.member(stored[i]).blockId();
    }
    Map<Long, WideEcArchivedBlocks.BlockView> views = WideEcArchivedBlocks.view(fsn, ids);
    Map<Integer, ArchivedStripeRepair.BlockNow> now = new HashMap<>();
    Set<String> nodes = new HashSet<>();
    for (int u : stored) {
      WideEcArchivedBlocks.BlockView v = views.get(s.member(u).blockId());
      if (v == null) {
        continue; // gone
      }
      nodes.addAll(v.holders());
      // A block under construction (an append running) is changing: never a helper, never rebuilt.
      now.put(u, new ArchivedStripeRepair.BlockNow(v.complete() ? v.generationStamp() : -1, v.length(), v.live()));
    }
    return new ArchivedStripeNow(views, ArchivedStripeRepair.of(s, now), nodes);
  }

  /** Members changed since archival (deleted, truncated, appended): units the stripe lost for good. */
  int unitsGone() {
    return repair.stale().length + repair.gone().length;
  }

  /**
   * The stripe survives fewer losses than its code claims: a unit lost for good or missing. Nothing of it may be
   * trimmed then, as its other members' replicas are what still protect them.
   */
  boolean belowTolerance() {
    return unitsGone() > 0 || !repair.healthy();
  }
}
