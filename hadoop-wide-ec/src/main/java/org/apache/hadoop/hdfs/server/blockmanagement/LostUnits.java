package org.apache.hadoop.hdfs.server.blockmanagement;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.apache.hadoop.hdfs.server.namenode.FSNamesystem;
import org.apache.hadoop.hdfs.server.namenode.WideEcNamespace;
import org.wideec.placement.hdfs.NamespaceAccess;
import org.wideec.placement.hdfs.RebuildClaims;

/**
 * A group's lost units, ascending, the real rack of each surviving unit, its data units past the end of a short
 * group (zeros, never rebuilt), the bytes of its largest unit, and the leaving DataNodes that still hold every lost
 * unit (a decommission's work; empty when some lost unit is held by none), and whether its codec is ours.
 */
record LostUnits(long groupId, int[] lost, Map<Integer, String> liveRacks, java.util.Set<Integer> zeros,
    long unitBytes, java.util.Set<String> leavingFrom, boolean ours) {

  /**
   * The group of src that holds every chosen storage and lacks exactly count units, or null when there is no
   * such group or more than one (small clusters can put two groups on the same nodes).
   */
  static LostUnits of(String src, List<DatanodeStorageInfo> chosen, int count) {
    List<LostUnits> all = candidates(src, chosen, count);
    return all.size() == 1 ? all.get(0) : null;
  }

  /** Every group of src that holds every chosen storage and lacks exactly count units. */
  private static List<LostUnits> candidates(String src, List<DatanodeStorageInfo> chosen, int count) {
    FSNamesystem fsn = NamespaceAccess.get();
    return fsn == null ? List.of() : WideEcNamespace.withBlocks(fsn, src, blocks -> {
      List<LostUnits> found = new ArrayList<>();
      for (BlockInfo b : blocks) {
        if (!(b instanceof BlockInfoStriped g) || !chosen.stream().allMatch(s -> g.getStorageBlockIndex(s) >= 0)) {
          continue;
        }
        Map<Integer, String> live = new HashMap<>();
        chosen.forEach(s -> live.put((int) g.getStorageBlockIndex(s), s.getDatanodeDescriptor().getNetworkLocation()));
        // Data units past the end of a short group never existed and are not rebuilt.
        int[] lost = IntStream.range(0, g.getTotalBlockNum())
            .filter(u -> !live.containsKey(u) && (u < g.getRealDataBlockNum() || u >= g.getDataBlockNum())).toArray();
        if (lost.length == count) {
          java.util.Set<Integer> zeros = new java.util.HashSet<>();
          IntStream.range(g.getRealDataBlockNum(), g.getDataBlockNum()).forEach(zeros::add);
          long unitBytes = org.apache.hadoop.hdfs.util.StripedBlockUtil.getInternalBlockLength(g.getNumBytes(),
              g.getCellSize(), g.getDataBlockNum(), 0);
          found.add(new LostUnits(g.getBlockId(), lost, live, zeros, unitBytes,
              WideEcLeavingUnits.onlyOnLeavingNodes(fsn.getBlockManager(), g, lost), WideEcLeavingUnits.ours(g)));
        }
      }
      return found;
    });
  }

  /**
   * Whether every group of src that the request could be for has lost units (none on a leaving node) that our workers
   * rebuild now: small clusters put several groups of a file on the same nodes, and HDFS does not say which it places.
   */
  static boolean everyCandidateClaimedLost(String src, List<DatanodeStorageInfo> chosen, int count) {
    List<LostUnits> all = candidates(src, chosen, count);
    return !all.isEmpty() && all.stream().allMatch(g -> g.ours() && g.leavingFrom().isEmpty()
        && RebuildClaims.claimsLostGroup(g.groupId()));
  }
}
