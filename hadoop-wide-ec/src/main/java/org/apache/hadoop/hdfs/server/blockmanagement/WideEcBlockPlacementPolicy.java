package org.apache.hadoop.hdfs.server.blockmanagement;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.IntStream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.StorageType;
import org.apache.hadoop.hdfs.AddBlockFlag;
import org.apache.hadoop.hdfs.protocol.BlockStoragePolicy;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.server.namenode.FSNamesystem;
import org.apache.hadoop.hdfs.server.namenode.WideEcNamespace;
import org.apache.hadoop.net.NetworkTopology;
import org.apache.hadoop.net.Node;
import org.apache.hadoop.net.NodeBase;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.wideec.placement.PlacementException;
import org.wideec.placement.PlacementPlan;
import org.wideec.placement.RackAssignment;
import org.wideec.placement.StripedPlacement;
import org.wideec.placement.hdfs.NamespaceAccess;

/**
 * HDFS placement ({@code dfs.block.placement.ec.classname}) for block groups of our codecs; groups of other
 * codecs keep the stock rack-fault-tolerant behaviour. A thin adapter (in Hadoop's package because
 * {@code Host2NodesMap} is package-private): the plan comes from {@link StripedPlacement}, the racks from
 * {@link RackAssignment}; this class only turns them into storages. A new group's targets are ordered by
 * internal block index, so each local group lands in its planned racks. When the plan cannot be met the
 * stock policy places the group and one warning says why. Needs {@code WideEcNameNodePlugin} in
 * {@code dfs.namenode.plugins} to learn a file's EC policy.
 */
public class WideEcBlockPlacementPolicy extends BlockPlacementPolicyRackFaultTolerant {
  private static final Logger LOG = LoggerFactory.getLogger(WideEcBlockPlacementPolicy.class);
  private final Random random = new Random();
  private String scheme = StripedPlacement.AUTO;

  @Override
  public void initialize(Configuration conf, FSClusterStats stats, NetworkTopology clusterMap, Host2NodesMap host2datanodeMap) {
    super.initialize(conf, stats, clusterMap, host2datanodeMap);
    scheme = conf.getTrimmed(StripedPlacement.SCHEME_KEY, StripedPlacement.AUTO);
  }

  @Override
  public DatanodeStorageInfo[] chooseTarget(String srcPath, int numOfReplicas, Node writer, List<DatanodeStorageInfo> chosen,
      boolean returnChosenNodes, Set<Node> excludedNodes, long blocksize, BlockStoragePolicy storagePolicy,
      EnumSet<AddBlockFlag> flags) {
    PlacementPlan plan = planOf(srcPath);
    if (plan != null && numOfReplicas > 0 && !returnChosenNodes) {
      try {
        if (chosen.isEmpty() && numOfReplicas == plan.code().n()) {
          return placeGroup(plan, excludedNodes, blocksize, storagePolicy);
        }
        if (!chosen.isEmpty()) {
          return placeRepair(plan, srcPath, numOfReplicas, chosen, excludedNodes, blocksize, storagePolicy);
        }
      } catch (NotEnoughReplicasException | PlacementException e) {
        LOG.warn("cannot place {} by its {} plan ({}); using the stock rack-fault-tolerant placement",
            srcPath, plan.scheme(), e.getMessage());
      }
    }
    return super.chooseTarget(srcPath, numOfReplicas, writer, chosen, returnChosenNodes, excludedNodes, blocksize,
        storagePolicy, flags);
  }

  private PlacementPlan planOf(String src) {
    FSNamesystem fsn = NamespaceAccess.get();
    if (fsn == null || src == null) {
      return null;
    }
    ErasureCodingPolicy p = WideEcNamespace.policyOf(fsn, src);
    return p == null ? null : StripedPlacement.planFor(p.getCodecName(), p.getNumDataUnits(), p.getNumParityUnits(), scheme);
  }

  private DatanodeStorageInfo[] placeGroup(PlacementPlan plan, Set<Node> excludedNodes, long blocksize,
      BlockStoragePolicy storagePolicy) throws NotEnoughReplicasException {
    Set<Node> excluded = excludedNodes == null ? new HashSet<>() : new HashSet<>(excludedNodes);
    Map<Integer, String> racks = RackAssignment.assign(plan, freeCounts(excluded), random);
    List<DatanodeStorageInfo> results = new ArrayList<>();
    EnumMap<StorageType, Integer> types = storageTypes(storagePolicy, plan.code().n());
    DatanodeStorageInfo[] targets = new DatanodeStorageInfo[plan.code().n()];
    for (int u = 0; u < targets.length; u++) {
      targets[u] = chooseRandom(racks.get(plan.rackOf(u)), excluded, blocksize, plan.maxUnitsPerRack(), results, false, types);
    }
    return targets;
  }

  /**
   * Targets for a group's rebuilt units. When the group is known, the i-th target is for its i-th lost unit in
   * ascending order (the order in which a DataNode's reconstruction assigns targets) and goes back to that
   * unit's planned rack; otherwise each target goes to the fullest rack below the plan's per-rack limit.
   */
  private DatanodeStorageInfo[] placeRepair(PlacementPlan plan, String src, int count, List<DatanodeStorageInfo> chosen,
      Set<Node> excludedNodes, long blocksize, BlockStoragePolicy storagePolicy) throws NotEnoughReplicasException {
    Set<Node> excluded = excludedNodes == null ? new HashSet<>() : new HashSet<>(excludedNodes);
    Map<String, Integer> load = new HashMap<>();
    for (DatanodeStorageInfo s : chosen) {
      load.merge(s.getDatanodeDescriptor().getNetworkLocation(), 1, Integer::sum);
      excluded.add(s.getDatanodeDescriptor());
    }
    LostUnits group = lostUnits(src, chosen, count);
    Map<Integer, String> racks = group == null ? null
        : RackAssignment.repairRacks(plan, group.liveRacks(), group.lost(), freeCounts(excluded));
    List<DatanodeStorageInfo> results = new ArrayList<>(chosen);
    EnumMap<StorageType, Integer> types = storageTypes(storagePolicy, count);
    DatanodeStorageInfo[] targets = new DatanodeStorageInfo[count];
    for (int i = 0; i < count; i++) {
      String rack = racks != null ? racks.get(group.lost()[i])
          : RackAssignment.repairRack(load, freeCounts(excluded), plan.maxUnitsPerRack());
      targets[i] = chooseRandom(rack, excluded, blocksize, plan.maxUnitsPerRack() + 1, results, false, types);
      load.merge(rack, 1, Integer::sum);
    }
    return targets;
  }

  /** A group's lost units, ascending, and the real rack of each surviving unit. */
  private record LostUnits(int[] lost, Map<Integer, String> liveRacks) {}

  /**
   * The group of src that holds every chosen storage and lacks exactly count units, or null when there is no
   * such group or more than one (small clusters can put two groups on the same nodes).
   */
  private static LostUnits lostUnits(String src, List<DatanodeStorageInfo> chosen, int count) {
    FSNamesystem fsn = NamespaceAccess.get();
    return fsn == null ? null : WideEcNamespace.withBlocks(fsn, src, blocks -> {
      LostUnits found = null;
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
          if (found != null) {
            return null;
          }
          found = new LostUnits(lost, live);
        }
      }
      return found;
    });
  }

  /**
   * A group's placement is satisfied when no rack holds more of its units than the least tolerant enabled EC
   * policy allows (HDFS does not say which policy the group has). Combined-locality groups fill racks up
   * to that limit; the stock check would call them misplaced and move them.
   */
  @Override
  public BlockPlacementStatus verifyBlockPlacement(DatanodeInfo[] locs, int numberOfReplicas) {
    FSNamesystem fsn = NamespaceAccess.get();
    if (fsn == null) {
      return super.verifyBlockPlacement(locs, numberOfReplicas);
    }
    int cap = Integer.MAX_VALUE;
    boolean ours = false;
    for (ErasureCodingPolicy p : fsn.getErasureCodingPolicyManager().getEnabledPolicies()) {
      PlacementPlan plan = StripedPlacement.planFor(p.getCodecName(), p.getNumDataUnits(), p.getNumParityUnits(), scheme);
      ours |= plan != null;
      cap = Math.min(cap, plan != null ? plan.maxUnitsPerRack() : Math.max(1, p.getNumParityUnits()));
    }
    if (!ours) {
      return super.verifyBlockPlacement(locs, numberOfReplicas);
    }
    Map<String, Integer> perRack = new HashMap<>();
    for (DatanodeInfo d : locs) {
      perRack.merge(d.getNetworkLocation(), 1, Integer::sum);
    }
    int max = perRack.values().stream().mapToInt(Integer::intValue).max().orElse(0);
    int required = Math.min((numberOfReplicas + cap - 1) / cap, clusterMap.getNumOfRacks());
    // A satisfied group reports the required rack count; an over-full rack reports one short of it.
    int current = max <= cap ? required : Math.max(0, Math.min(perRack.size(), required - 1));
    return new BlockPlacementStatusDefault(current, required, clusterMap.getNumOfRacks());
  }

  /** Free (not excluded) nodes per rack. */
  private Map<String, Integer> freeCounts(Set<Node> excluded) {
    Map<String, Integer> free = new HashMap<>();
    for (Node n : clusterMap.getLeaves(NodeBase.ROOT)) {
      if (!excluded.contains(n)) {
        free.merge(n.getNetworkLocation(), 1, Integer::sum);
      }
    }
    return free;
  }

  private static EnumMap<StorageType, Integer> storageTypes(BlockStoragePolicy policy, int count) {
    EnumMap<StorageType, Integer> m = new EnumMap<>(StorageType.class);
    for (StorageType t : policy.chooseStorageTypes((short) count)) {
      m.merge(t, 1, Integer::sum);
    }
    return m;
  }
}
