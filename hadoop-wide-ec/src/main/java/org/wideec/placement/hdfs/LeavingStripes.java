package org.wideec.placement.hdfs;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.util.StripedBlockUtil;
import org.wideec.code.LinearCode;
import org.wideec.coder.StripedCodec;
import org.wideec.placement.PlacementPlan;
import org.wideec.placement.StripedPlacement;
import org.wideec.repair.DecommissionPlanner;
import org.wideec.repair.UnitLocation;
import org.wideec.topology.hdfs.DataNodeSites;

/**
 * A block group of our codecs as the {@link DecommissionPlanner} sees it, from the NameNode's blocks map (the
 * decommission itself) or a client's located blocks ({@code wide-ec decommission --dry-run}): the same translation
 * for both, so the dry run prints the plan the NameNode then follows.
 */
public final class LeavingStripes {
  private LeavingStripes() {}

  /** The name a plan gives a block group. */
  public static String name(long groupId, ErasureCodingPolicy policy) {
    return "block group blk_" + groupId + " (" + policy.getName() + ")";
  }

  /**
   * @param units every unit and the DataNode holding it, leaving or not
   * @param placementScheme the striped placement scheme (wide-ec.placement.scheme) the group was placed by
   * @throws RuntimeException when the policy defines no code here
   */
  public static DecommissionPlanner.LeavingStripe of(long groupId, long groupBytes, ErasureCodingPolicy policy,
      Map<Integer, DatanodeInfo> units, String placementScheme) {
    int k = policy.getNumDataUnits();
    LinearCode code = StripedCodec.byName(policy.getCodecName()).codeFor(k, policy.getNumParityUnits());
    long[] lengths = new long[code.n()];
    Set<Integer> zeros = new HashSet<>();
    for (int u = 0; u < lengths.length; u++) {
      lengths[u] = StripedBlockUtil.getInternalBlockLength(groupBytes, policy.getCellSize(), k, u);
      if (lengths[u] == 0) {
        zeros.add(u);
      }
    }
    Map<Integer, UnitLocation> at = new HashMap<>();
    units.forEach((u, d) -> at.put(u, new UnitLocation(u, DataNodeSites.of(d))));
    PlacementPlan plan;
    try {
      plan = StripedPlacement.planFor(policy.getCodecName(), k, policy.getNumParityUnits(), placementScheme);
    } catch (RuntimeException e) {
      plan = null;
    }
    if (plan == null || plan.code().n() != code.n()) {
      // No plan: a unit may go to any rack (its own first), with no rack guarantee to keep.
      return new DecommissionPlanner.LeavingStripe(name(groupId, policy), code, at, zeros, lengths, code.n());
    }
    return new DecommissionPlanner.LeavingStripe(name(groupId, policy), code, at, zeros, lengths,
        plan.maxUnitsPerRack(), plan);
  }
}
