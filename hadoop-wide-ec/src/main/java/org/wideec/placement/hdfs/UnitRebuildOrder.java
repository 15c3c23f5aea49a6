package org.wideec.placement.hdfs;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.apache.hadoop.fs.StorageType;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.security.token.block.BlockTokenIdentifier;
import org.apache.hadoop.hdfs.security.token.block.BlockTokenSecretManager;
import org.apache.hadoop.hdfs.server.blockmanagement.WideEcArchivedBlocks;
import org.apache.hadoop.hdfs.server.blockmanagement.WideEcGroupRiskScanner;
import org.apache.hadoop.hdfs.server.blockmanagement.WideEcLeavingUnits;
import org.apache.hadoop.hdfs.server.blockmanagement.WideEcLeavingUnits.GroupUnits;
import org.apache.hadoop.hdfs.server.namenode.FSNamesystem;
import org.wideec.datanode.GroupRepair;
import org.wideec.repair.BlockRef;
import org.wideec.repair.DecommissionPlan;
import org.wideec.repair.FullNodeRecoveryPlan;
import org.wideec.repair.RackLinkLoad;
import org.wideec.repair.RepairScheme;
import org.wideec.repair.StripeRepair;
import org.wideec.repair.UnitLocation;
import org.wideec.topology.hdfs.DataNodeSites;

/**
 * One order for units of a block group ({@link LostUnitRebuilds}), built from their plan: one unit, or several that one
 * decode at the first one's target rebuilds, the others sent on. It says what the worker runs (the leaving replica
 * copied through it, or a rebuild along the chain and from the helpers the plan chose), where each unit goes, what its
 * bytes are checked against, how the NameNode sees it live, how a log line names it, and what the order puts on the
 * rack links (the source's plan where it shaped the rebuild, else the decommission planner's).
 */
final class UnitRebuildOrder {
  final List<RebuildOrders.UnitTarget> targets = new ArrayList<>();
  final List<RebuildOrders.ExpectedCrc> crcs = new ArrayList<>();
  final List<BooleanSupplier> lives = new ArrayList<>();
  final List<String> whats = new ArrayList<>();
  /** The units' internal block ids, in the order's order: the first is the one it is filed under. */
  final long[] internals;
  /** The leaving node whose replica of the first unit is copied, or null where the units are rebuilt. */
  final DatanodeInfo from;
  final RackLinkLoad flows = new RackLinkLoad(RackLinkLoad.Links.FULL_DUPLEX);
  final long crossRackBytes;
  final long helperBytes;

  private final GroupUnits g;
  private final List<DecommissionPlan.Rebuild> rs;
  private final FullNodeRecoveryPlan.Rebuild shape;
  private final BlockTokenSecretManager secrets;
  private final ExtendedBlock group;
  private final int[] units;
  private final DatanodeInfo[] at;
  private final int[] lost;
  private final BlockRef replica;

  /**
   * The order rebuilding {@code rs} (the first the decode's target) along the rack chain the source's plan chose
   * ({@code shape}, null: racks in name order), or null when some unit's target is no longer live or the unit no
   * longer the source's to rebuild.
   */
  static UnitRebuildOrder of(LostUnitSource source, FSNamesystem fsn, GroupUnits g, List<DecommissionPlan.Rebuild> rs,
      FullNodeRecoveryPlan.Rebuild shape, Map<String, WideEcArchivedBlocks.Target> live) {
    List<WideEcArchivedBlocks.Target> to = new ArrayList<>();
    for (DecommissionPlan.Rebuild x : rs) {
      WideEcArchivedBlocks.Target t = live.get(x.target().node());
      if (t == null || !source.units(g).contains(x.unit())) {
        return null;
      }
      to.add(t);
    }
    return new UnitRebuildOrder(source, fsn, g, rs, shape, to);
  }

  private UnitRebuildOrder(LostUnitSource source, FSNamesystem fsn, GroupUnits g, List<DecommissionPlan.Rebuild> rs,
      FullNodeRecoveryPlan.Rebuild shape, List<WideEcArchivedBlocks.Target> to) {
    this.g = g;
    this.rs = List.copyOf(rs);
    this.shape = shape;
    DecommissionPlan.Rebuild r = rs.get(0);
    String pool = fsn.getBlockPoolId();
    secrets = fsn.getBlockManager().getBlockTokenSecretManager();
    group = new ExtendedBlock(pool, g.groupId(), g.numBytes(), g.generationStamp());
    Map<Integer, DatanodeInfo> helpers = source.helpers(g);
    units = helpers.keySet().stream().mapToInt(Integer::intValue).toArray();
    at = new DatanodeInfo[units.length];
    for (int i = 0; i < units.length; i++) {
      at[i] = helpers.get(units[i]);
    }
    lost = rs.stream().mapToInt(DecommissionPlan.Rebuild::unit).toArray();
    BlockRef first = null;
    for (int i = 0; i < rs.size(); i++) {
      DecommissionPlan.Rebuild x = rs.get(i);
      long internal = g.groupId() + x.unit();
      ExtendedBlock unit = new ExtendedBlock(pool, internal, x.bytes(), g.generationStamp());
      BlockRef ref = new BlockRef(pool, internal, g.generationStamp(), x.bytes(), readToken(secrets, unit));
      first = i == 0 ? ref : first;
      targets.add(new RebuildOrders.UnitTarget(x.unit(), unit, to.get(i), 0));
      crcs.add(source.expectedCrc(g, x.unit(), ref));
      String target = to.get(i).node().getXferAddr();
      lives.add(() -> WideEcLeavingUnits.unitLiveOn(fsn, g.groupId(), x.unit(), target));
      whats.add("unit " + x.unit() + " (blk_" + internal + ") of block group blk_" + g.groupId() + " of "
          + WideEcGroupRiskScanner.fileOf(fsn, g.fileId()) + ", " + source.where(g, x.unit())
          + (rs.size() == 1 ? "" : ", decoded with units " + Arrays.toString(lost)));
    }
    replica = first;
    from = r.fromLeavingNode() ? source.copyFrom(g, r.unit()) : null;
    internals = rs.stream().mapToLong(x -> g.groupId() + x.unit()).toArray();
    long cross = 0;
    long read = 0;
    if (shape == null) {
      rs.forEach(x -> flows.add(x.flows(), 1));
      cross = rs.stream().mapToLong(DecommissionPlan.Rebuild::crossRackBytes).sum();
      read = from != null ? r.bytes() : (long) r.helpers().size() * r.bytes();
    } else {
      for (DecommissionPlan.Rebuild x : rs) {
        FullNodeRecoveryPlan.Rebuild planned = source.shape(g, x.unit());
        read += planned.helperBytes();
        for (FullNodeRecoveryPlan.Transfer t : planned.transfers()) {
          flows.addTransfer(t.fromRack(), t.toRack(), t.bytes());
          cross += t.bytes();
        }
      }
    }
    crossRackBytes = cross;
    helperBytes = read;
  }

  /**
   * What the order asks the first unit's target to run; throws a RuntimeException naming the problem when the group's
   * repair cannot be built from its policy and helpers.
   */
  StripeRepair repair(RepairScheme scheme) {
    DecommissionPlan.Rebuild r = rs.get(0);
    StripeRepair planned = GroupRepair.of(group, g.policy(), units, at, lost, scheme,
        b -> readToken(secrets, b)).repair();
    // A copy is the unit's own replica streamed through the target's worker, every chunk checked against its
    // checksum as the leaving node reads it, and stored like a rebuilt unit: on the target the plan chose.
    return from != null
        ? StripeRepair.copy(planned.name(), planned.code(), r.unit(), r.bytes(),
            new UnitLocation(r.unit(), DataNodeSites.of(from)), replica, scheme)
        : new StripeRepair(planned.name(), planned.code(), planned.lost(), planned.lostLengths(),
            planned.survivors(), planned.blocks(), planned.zeroUnits(), planned.scheme(), planned.weights(),
            helperPreference(r, shape), reordered() ? shape.chain() : List.of());
  }

  /** The bytes of the order's i-th unit. */
  long bytes(int i) {
    return rs.get(i).bytes();
  }

  /** How many units the order stores (more than one: one decode rebuilds them all). */
  int size() {
    return rs.size();
  }

  /**
   * Whether the plan has the rebuild's chain visit its racks in another order than the worker's default (name order):
   * only then does the order name it, so that an order a DataNode of an earlier release can run keeps its kind.
   */
  boolean reordered() {
    return shape != null && shape.decodedWith().isEmpty()
        && !shape.chain().equals(shape.chain().stream().sorted().toList());
  }

  /**
   * The helpers the rebuild prefers: where the source's plan shaped it, those the plan costed (the code's cheapest
   * repair, else the first in unit order), so every rack link carries the plan's bytes; else the decommission
   * planner's, least recently selected.
   */
  private static Comparator<Integer> helperPreference(DecommissionPlan.Rebuild r, FullNodeRecoveryPlan.Rebuild shape) {
    return shape != null ? Comparator.naturalOrder() : planFirst(r.helpers());
  }

  /** The plan's helpers first, in its order (the DataNode plans the same from this preference), then by unit. */
  private static Comparator<Integer> planFirst(List<UnitLocation> helpers) {
    Map<Integer, Integer> rank = new HashMap<>();
    for (int i = 0; i < helpers.size(); i++) {
      rank.put(helpers.get(i).unit(), i);
    }
    return Comparator.comparingInt((Integer u) -> rank.getOrDefault(u, Integer.MAX_VALUE)).thenComparingInt(u -> u);
  }

  private static byte[] readToken(BlockTokenSecretManager secrets, ExtendedBlock b) {
    return RebuildOrders.token(secrets, b, BlockTokenIdentifier.AccessMode.READ, new StorageType[0], new String[0]);
  }
}
