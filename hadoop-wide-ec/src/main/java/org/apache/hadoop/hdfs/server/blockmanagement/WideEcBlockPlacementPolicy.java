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
import org.wideec.code.InvalidCodeSpecException;
import org.wideec.code.RemainingTolerance;
import org.wideec.placement.GroupCap;
import org.wideec.placement.PlacementConf;
import org.wideec.placement.PlacementException;
import org.wideec.placement.PlacementPlan;
import org.wideec.placement.RackAssignment;
import org.wideec.placement.StripedPlacement;
import org.wideec.placement.hdfs.AtRiskLog;
import org.wideec.placement.hdfs.RebuildClaims;
import org.wideec.placement.hdfs.NamespaceAccess;
import org.wideec.placement.hdfs.RateLimitedWarning;
import org.wideec.repair.FullNodeRecoveryPlan;
import org.wideec.repair.FullNodeRecoveryPlanner;
import org.wideec.repair.RackLinkLoad;
import org.wideec.repair.RecentRepairFlows;
import org.wideec.repair.RepairScheme;
import org.wideec.repair.RepairTargetSpread;

/**
 * HDFS placement ({@code dfs.block.placement.ec.classname}) for block groups of our codecs; groups of other
 * codecs keep the stock rack-fault-tolerant behaviour. A thin adapter (in Hadoop's package because
 * {@code Host2NodesMap} is package-private): the plan comes from {@link StripedPlacement}, the racks from
 * {@link RackAssignment}; this class only turns them into storages. A new group's targets are ordered by
 * internal block index, so each local group lands in its planned racks. When the plan cannot be met the
 * stock policy places the group and one warning says why. A planned rack whose free nodes are all too busy for
 * HDFS's load check ({@code dfs.namenode.redundancy.considerLoad}) still takes its units, from a busy node: the plan's
 * rack guarantees outrank spreading the xceiver load, and the stock fallback would break them (it put 4 data units
 * of one Azure-LRC 12+2+2 local group in one rack, and, short of idle nodes, wrote the group one unit short). Needs
 * {@code WideEcNameNodePlugin} in {@code dfs.namenode.plugins} to learn a file's EC policy.
 */
public class WideEcBlockPlacementPolicy extends BlockPlacementPolicyRackFaultTolerant {
  private static final Logger LOG = LoggerFactory.getLogger(WideEcBlockPlacementPolicy.class);
  private static final long WARN_INTERVAL_MS = 60_000;
  private final Random random = new Random();
  private final RateLimitedWarning unplaceable = new RateLimitedWarning(LOG, WARN_INTERVAL_MS);
  private final RateLimitedWarning failures = new RateLimitedWarning(LOG, WARN_INTERVAL_MS);
  private final RateLimitedWarning spreadFailures = new RateLimitedWarning(LOG, WARN_INTERVAL_MS);
  private final RateLimitedWarning beyondCap = new RateLimitedWarning(LOG, WARN_INTERVAL_MS);
  private final RateLimitedWarning busyTargets = new RateLimitedWarning(LOG, WARN_INTERVAL_MS);
  /** Set while this thread chooses a planned unit's node again with HDFS's load check off ({@link #chooseInRack}). */
  private static final ThreadLocal<Boolean> IGNORING_LOAD = ThreadLocal.withInitial(() -> Boolean.FALSE);
  /**
   * Repairs placed within this window count as running when the next group's rebuilt units are placed: HDFS asks
   * for a lost node's groups one by one, within one RedundancyMonitor round, and a unit's rebuild takes seconds.
   */
  static final long RECENT_REPAIRS_MS = 30_000;
  static final int RECENT_REPAIR_GROUPS = 1024;
  private volatile RepairTargetSpread spread = spreadFor(org.wideec.datanode.RepairWorkerConf.DEFAULT_SCHEME);
  /** Configuration errors already logged by any instance of this policy in this process. */
  private static final java.util.Set<String> CONFIG_ERRORS_SAID = java.util.concurrent.ConcurrentHashMap.newKeySet();
  private String scheme = StripedPlacement.AUTO;
  /** False when the configuration is invalid: every call is then stock (DESIGN.md §2). */
  private volatile boolean byPlan = true;

  @Override
  public void initialize(Configuration conf, FSClusterStats stats, NetworkTopology clusterMap, Host2NodesMap host2datanodeMap) {
    super.initialize(conf, stats, clusterMap, host2datanodeMap);
    try {
      scheme = PlacementConf.scheme(conf.get(StripedPlacement.SCHEME_KEY));
      byPlan = true;
      // The DataNodes' workers repair with this scheme (their hdfs-site is the operator's too); it decides which rack
      // links a repair crosses. A bad value stops the workers, which report it; here the default stands.
      try {
        spread = spreadFor(org.wideec.config.ConfigValues.oneOf(conf, org.wideec.datanode.RepairWorkerConf.SCHEME,
            org.wideec.datanode.RepairWorkerConf.DEFAULT_SCHEME));
      } catch (IllegalArgumentException e) {
        spread = spreadFor(org.wideec.datanode.RepairWorkerConf.DEFAULT_SCHEME);
      }
    } catch (PlacementException e) {
      byPlan = false;
      // HDFS builds a policy for every fsck call (NamenodeFsck), so the same error would be logged each time.
      if (CONFIG_ERRORS_SAID.add(e.getMessage())) {
        LOG.error("wide-ec placement is off, every block group is placed by the stock rack-fault-tolerant policy: {}"
            + " (said once per NameNode process)", e.getMessage());
      }
    }
  }

  /** False when a configuration error turned our placement off (the NameNode log says which key). */
  public boolean placesByPlan() {
    return byPlan;
  }

  /** Calls whose plan could not be met or built, and failures of our code, each answered by stock placement. */
  public long stockFallbacks() {
    return unplaceable.count() + failures.count();
  }

  @Override
  public DatanodeStorageInfo[] chooseTarget(String srcPath, int numOfReplicas, Node writer, List<DatanodeStorageInfo> chosen,
      boolean returnChosenNodes, Set<Node> excludedNodes, long blocksize, BlockStoragePolicy storagePolicy,
      EnumSet<AddBlockFlag> flags) {
    // Nothing of ours may throw into a NameNode thread: the RedundancyMonitor terminates the NameNode on a
    // RuntimeException. Any failure means stock placement for this call and a rate-limited warning.
    try {
      DatanodeStorageInfo[] planned = byPlan && numOfReplicas > 0 && !returnChosenNodes
          ? byPlan(srcPath, numOfReplicas, chosen, excludedNodes, blocksize, storagePolicy) : null;
      if (planned != null) {
        return planned;
      }
    } catch (RuntimeException | LinkageError e) {
      failures.warn("wide-ec placement failed for {} ({}); using the stock rack-fault-tolerant placement", srcPath,
          e.toString(), e);
    }
    return super.chooseTarget(srcPath, numOfReplicas, writer, chosen, returnChosenNodes, excludedNodes, blocksize,
        storagePolicy, flags);
  }

  /** Targets by plan, or null when the file is not ours or the plan cannot be met (then stock placement). */
  private DatanodeStorageInfo[] byPlan(String srcPath, int numOfReplicas, List<DatanodeStorageInfo> chosen,
      Set<Node> excludedNodes, long blocksize, BlockStoragePolicy storagePolicy) {
    PlacementPlan plan = planOf(srcPath);
    if (plan == null) {
      return null;
    }
    try {
      if (chosen.isEmpty() && numOfReplicas == plan.code().n()) {
        return placeGroup(plan, excludedNodes, blocksize, storagePolicy);
      }
      if (!chosen.isEmpty()) {
        return placeRepair(plan, srcPath, numOfReplicas, chosen, excludedNodes, blocksize, storagePolicy);
      }
    } catch (NotEnoughReplicasException | PlacementException e) {
      unplaceable.warn("cannot place {} by its {} plan ({}); using the stock rack-fault-tolerant placement",
          srcPath, plan.scheme(), e.getMessage());
    }
    return null;
  }

  private PlacementPlan planOf(String src) {
    FSNamesystem fsn = NamespaceAccess.get();
    if (fsn == null || src == null) {
      return null;
    }
    ErasureCodingPolicy p = WideEcNamespace.policyOf(fsn, src);
    if (p == null) {
      return null;
    }
    try {
      return StripedPlacement.planFor(p.getCodecName(), p.getNumDataUnits(), p.getNumParityUnits(), scheme);
    } catch (InvalidCodeSpecException | PlacementException e) {
      unplaceable.warn("policy {} of {} has no placement plan ({}); using the stock rack-fault-tolerant placement",
          p.getName(), src, e.getMessage());
      return null;
    }
  }

  private DatanodeStorageInfo[] placeGroup(PlacementPlan plan, Set<Node> excludedNodes, long blocksize,
      BlockStoragePolicy storagePolicy) throws NotEnoughReplicasException {
    Set<Node> excluded = excludedNodes == null ? new HashSet<>() : new HashSet<>(excludedNodes);
    Map<Integer, String> racks = RackAssignment.assign(plan, freeCounts(excluded), random);
    List<DatanodeStorageInfo> results = new ArrayList<>();
    EnumMap<StorageType, Integer> types = storageTypes(storagePolicy, plan.code().n());
    DatanodeStorageInfo[] targets = new DatanodeStorageInfo[plan.code().n()];
    for (int u = 0; u < targets.length; u++) {
      targets[u] = chooseInRack(racks.get(plan.rackOf(u)), excluded, blocksize, plan.maxUnitsPerRack(), results, types);
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
    LostUnits group = LostUnits.of(src, chosen, count);
    if (group != null && !group.leavingFrom().isEmpty()
        && RebuildClaims.claimsGroup(group.groupId(), group.leavingFrom())) {
      // HDFS would copy the units from their leaving node; our decommission rebuilds them from their local groups.
      // No target: the group stays queued, and needs nothing once the rebuilt units are live.
      return new DatanodeStorageInfo[0];
    }
    if (group != null ? group.ours() && group.leavingFrom().isEmpty() && RebuildClaims.claimsLostGroup(group.groupId())
        : LostUnits.everyCandidateClaimedLost(src, chosen, count)) {
      // The units are lost (their DataNode died, say): the NameNode plugin orders our workers to rebuild them all at
      // once. No target: the group stays queued, and needs nothing once the rebuilt units are live.
      return new DatanodeStorageInfo[0];
    }
    if (group != null) {
      // The RedundancyMonitor is placing this group's repair now: report it at once if the code, unlike HDFS's
      // count, says it is one loss from data loss or past it (DESIGN.md §2).
      AtRiskLog.report(group.groupId(), src, plan.code().spec(), group.lost(),
          RemainingTolerance.of(plan.code(), group.lost()));
    }
    Map<Integer, String> racks = group == null ? null : repairRacks(plan, src, group, freeCounts(excluded));
    List<DatanodeStorageInfo> results = new ArrayList<>(chosen);
    EnumMap<StorageType, Integer> types = storageTypes(storagePolicy, count);
    DatanodeStorageInfo[] targets = new DatanodeStorageInfo[count];
    for (int i = 0; i < count; i++) {
      String rack = racks != null ? racks.get(group.lost()[i])
          : RackAssignment.repairRack(load, freeCounts(excluded), plan.maxUnitsPerRack());
      // The rack is the model's choice, beyond the plan's cap too where every rack with a free node is at it.
      int rackLimit = Math.max(plan.maxUnitsPerRack(), load.getOrDefault(rack, 0)) + 1;
      targets[i] = chooseInRack(rack, excluded, blocksize, rackLimit, results, types);
      load.merge(rack, 1, Integer::sum);
    }
    return targets;
  }

  /**
   * A node of the rack for one planned unit; {@code excluded} gains only the chosen node. Where every free node of the
   * rack is too busy for HDFS's load check, a busy one: the unit must be in this rack for the plan's guarantees, and
   * HDFS's load check is a preference; the retry drops only it (a leaving, full or slow node is still refused).
   */
  private DatanodeStorageInfo chooseInRack(String rack, Set<Node> excluded, long blocksize, int rackLimit,
      List<DatanodeStorageInfo> results, EnumMap<StorageType, Integer> types) throws NotEnoughReplicasException {
    DatanodeStorageInfo chosen;
    // chooseRandom excludes every node it looks at, the busy ones too: a copy, so a busy node stays a candidate for
    // the retry below and for the group's next units.
    try {
      chosen = chooseRandom(rack, new HashSet<>(excluded), blocksize, rackLimit, results, false, types);
    } catch (NotEnoughReplicasException e) {
      if (!considerLoad) {
        throw e;
      }
      IGNORING_LOAD.set(Boolean.TRUE);
      try {
        chosen = chooseRandom(rack, new HashSet<>(excluded), blocksize, rackLimit, results, false, types);
      } finally {
        IGNORING_LOAD.remove();
      }
      busyTargets.warn("every free node of {} is too busy by HDFS's load check; a unit goes to the busy {} to keep"
          + " its group's placement plan", rack, chosen.getDatanodeDescriptor().getXferAddr());
    }
    excluded.add(chosen.getDatanodeDescriptor());
    return chosen;
  }

  /** HDFS's check of a candidate node, without its load check while {@link #chooseInRack} retries a planned unit. */
  @Override
  boolean isGoodDatanode(DatanodeDescriptor node, int maxTargetPerRack, boolean considerLoad,
      List<DatanodeStorageInfo> results, boolean avoidStaleNodes) {
    return super.isGoodDatanode(node, maxTargetPerRack, considerLoad && !IGNORING_LOAD.get(), results,
        avoidStaleNodes);
  }

  /**
   * Of a striped group's two copies of one unit (its DataNode came back after the unit was rebuilt elsewhere), the one
   * deleted is in the rack holding most of the group's units ({@code rackMap}: every live unit of the group by rack).
   * HDFS's rack-fault-tolerant choice takes any copy in a rack with another unit, then the least free space: with a
   * rack above its plan's cap it could keep that rack full and delete the copy the repair placed within the plan. The
   * group is left either as it was or as its repair placed it, whichever has the emptier rack; a tie stays HDFS's.
   */
  @Override
  public DatanodeStorageInfo chooseReplicaToDelete(java.util.Collection<DatanodeStorageInfo> moreThanOne,
      java.util.Collection<DatanodeStorageInfo> exactlyOne, List<StorageType> excessTypes,
      Map<String, List<DatanodeStorageInfo>> rackMap) {
    try {
      java.util.Collection<DatanodeStorageInfo> set = pickupReplicaSet(moreThanOne, exactlyOne, rackMap);
      int most = 0;
      List<DatanodeStorageInfo> fullest = new ArrayList<>();
      for (DatanodeStorageInfo s : set) {
        List<DatanodeStorageInfo> inRack = rackMap.get(getRack(s.getDatanodeDescriptor()));
        int units = inRack == null ? 0 : inRack.size();
        if (!excessTypes.contains(s.getStorageType()) || units < most) {
          continue;
        }
        if (units > most) {
          most = units;
          fullest.clear();
        }
        fullest.add(s);
      }
      if (!fullest.isEmpty() && fullest.size() < set.size()) {
        return super.chooseReplicaToDelete(fullest, List.of(), excessTypes, rackMap);
      }
    } catch (RuntimeException | LinkageError e) {
      failures.warn("wide-ec choice of an excess replica failed ({}); using the stock choice", e.toString(), e);
    }
    return super.chooseReplicaToDelete(moreThanOne, exactlyOne, excessTypes, rackMap);
  }

  private static RepairTargetSpread spreadFor(RepairScheme scheme) {
    return new RepairTargetSpread(new FullNodeRecoveryPlanner(scheme, RackLinkLoad.Links.FULL_DUPLEX),
        new RecentRepairFlows(RackLinkLoad.Links.FULL_DUPLEX, RECENT_REPAIRS_MS, RECENT_REPAIR_GROUPS));
  }

  /**
   * Racks for a group's rebuilt units: spread over the rack links around the repairs placed just before
   * ({@link RepairTargetSpread}), each unit in its planned rack unless another keeps every guarantee of the plan.
   * If that fails, the planned racks ({@link RackAssignment#repairRacks}), as before, with a rate-limited warning.
   * Where every rack with a free node holds the plan's cap of the group's units (a whole rack lost), a unit goes beyond
   * it to the rack the model chooses (its loss decodable where some rack keeps it so), with a rate-limited warning;
   * only when no rack has a free node at all does the caller fall back to stock placement.
   */
  private Map<Integer, String> repairRacks(PlacementPlan plan, String src, LostUnits group, Map<String, Integer> free) {
    try {
      Map<String, Integer> forGroup = new HashMap<>(free);
      forGroup.values().removeIf(n -> n <= 0);
      FullNodeRecoveryPlan placed = spread.place(new FullNodeRecoveryPlanner.GroupLoss("blk_" + group.groupId(), plan,
          group.liveRacks(), group.lost(), group.zeros(), forGroup, group.unitBytes()),
          org.apache.hadoop.util.Time.monotonicNow());
      for (FullNodeRecoveryPlan.Rebuild r : placed.beyondCap()) {
        beyondCap.warn("rebuilt unit {} of block group blk_{} ({}) goes beyond its plan's rack limit: {}", r.unit(),
            group.groupId(), src, r.beyondCap());
      }
      return placed.racksOf("blk_" + group.groupId());
    } catch (PlacementException e) {
      throw e; // no rack can take some unit at all: the caller's stock fallback, as before
    } catch (RuntimeException | LinkageError e) {
      spreadFailures.warn("spreading the rebuilt units {} of {} ({}) over the rack links failed ({}); they go back to"
          + " their planned racks", java.util.Arrays.toString(group.lost()), group.groupId(), src, e.toString(), e);
    }
    return RackAssignment.repairRacks(plan, group.liveRacks(), group.lost(), free);
  }

  /**
   * A group's placement is satisfied when no rack holds more of its units than its own policy's plan allows
   * ({@link GroupCap}: HDFS passes only the group's real unit count, so the policies it can mean are narrowed by
   * that count). Combined-locality groups fill racks up to that limit; the stock check would call them misplaced
   * and move them. Where a stock policy could be meant as well, the stock check may also accept the group.
   */
  @Override
  public BlockPlacementStatus verifyBlockPlacement(DatanodeInfo[] locs, int numberOfReplicas) {
    try {
      BlockPlacementStatus ours = byPlan ? verifyByPlan(locs, numberOfReplicas) : null;
      if (ours != null) {
        return ours;
      }
    } catch (RuntimeException | LinkageError e) {
      failures.warn("wide-ec placement check failed ({}); using the stock check", e.toString(), e);
    }
    return super.verifyBlockPlacement(locs, numberOfReplicas);
  }

  private BlockPlacementStatus verifyByPlan(DatanodeInfo[] locs, int numberOfReplicas) {
    FSNamesystem fsn = NamespaceAccess.get();
    if (fsn == null) {
      return null;
    }
    List<GroupCap.Shape> enabled = new ArrayList<>();
    for (ErasureCodingPolicy p : fsn.getErasureCodingPolicyManager().getEnabledPolicies()) {
      enabled.add(new GroupCap.Shape(p.getCodecName(), p.getNumDataUnits(), p.getNumParityUnits()));
    }
    GroupCap cap = GroupCap.of(enabled, numberOfReplicas, scheme);
    if (!cap.ours()) {
      return null;
    }
    Map<String, Integer> perRack = new HashMap<>();
    for (DatanodeInfo d : locs) {
      perRack.merge(d.getNetworkLocation(), 1, Integer::sum);
    }
    int max = perRack.values().stream().mapToInt(Integer::intValue).max().orElse(0);
    int racks = Math.max(1, clusterMap.getNumOfRacks());
    // With fewer racks than the plan needs, no placement meets its cap: the evenest spread is the best there is,
    // and calling it misplaced would keep the group in HDFS's queue forever.
    int limit = Math.max(cap.cap(), (numberOfReplicas + racks - 1) / racks);
    int required = Math.min((numberOfReplicas + limit - 1) / limit, racks);
    if (max > limit && cap.stock()) {
      BlockPlacementStatus stock = super.verifyBlockPlacement(locs, numberOfReplicas);
      if (stock.isPlacementPolicySatisfied()) {
        return stock;
      }
    }
    // A satisfied group reports the required rack count; an over-full rack reports one short of it.
    int current = max <= limit ? required : Math.max(0, Math.min(perRack.size(), required - 1));
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
