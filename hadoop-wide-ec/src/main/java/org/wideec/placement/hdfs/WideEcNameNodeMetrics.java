package org.wideec.placement.hdfs;

import org.apache.hadoop.metrics2.MetricsCollector;
import org.apache.hadoop.metrics2.MetricsSource;
import org.apache.hadoop.metrics2.lib.DefaultMetricsSystem;
import org.apache.hadoop.metrics2.lib.MetricsRegistry;
import org.apache.hadoop.metrics2.lib.MutableCounterLong;
import org.apache.hadoop.metrics2.lib.MutableGaugeLong;
import org.wideec.repair.RackLinkLoad;

/**
 * The NameNode plugin's gauges, published through metrics2 (JMX bean {@code Hadoop:service=NameNode,name=WideEc}
 * and any configured sink): block groups of our codecs at risk or lost by the code's own measure, policies of our
 * codecs that cannot be built, what the archive repair monitor found and did (missing, repaired, failed, stale,
 * unrecoverable), what the archive placement keeper did (replicas pinned, blocks moved back onto plan, failed moves),
 * the lost units of block groups found, and the counters of the archive trimmer ({@link TrimMetrics}), the continuous
 * scrubber ({@link ScrubMetrics}) and the rebuild orders for leaving DataNodes ({@link DecommissionMetrics}) and for
 * lost units ({@link LostUnitRebuildMetrics}), which register in this source's registry: one record, so every metric
 * keeps its JMX attribute name.
 */
public final class WideEcNameNodeMetrics implements MetricsSource {
  static final String NAME = "WideEc";
  private final MetricsRegistry registry = new MetricsRegistry(NAME).setContext("dfs");
  final MutableGaugeLong groupsExamined = registry.newGauge("GroupsExamined",
      "block groups of our codecs in HDFS's low-redundancy queue at the last scan", 0L);
  final MutableGaugeLong groupsAtRisk = registry.newGauge("GroupsAtRisk",
      "block groups one loss of the wrong unit away from data loss (remaining tolerance 0)", 0L);
  final MutableGaugeLong groupsLost = registry.newGauge("GroupsLost",
      "block groups whose survivors no longer decode (data lost)", 0L);
  final MutableGaugeLong unbuildablePolicies = registry.newGauge("UnbuildablePolicies",
      "erasure-coding policies of our codecs whose (k, m) define no code; their groups are placed stock", 0L);
  final MutableCounterLong groupsAtRiskReported = registry.newCounter("GroupsAtRiskReported",
      "block groups reported one loss from data loss (each at most once per ten minutes)", 0L);
  final MutableCounterLong groupsLostReported = registry.newCounter("GroupsLostReported",
      "block groups reported with data lost (each at most once per ten minutes)", 0L);
  final MutableCounterLong groupsPrioritised = registry.newCounter("GroupsPrioritised",
      "at-risk block groups moved to HDFS's highest reconstruction priority", 0L);
  final MutableGaugeLong groupsStockRepairStuck = registry.newGauge("GroupsStockRepairStuck",
      "block groups whose loss HDFS's own reconstructor cannot rebuild and whose reconstruction outlived a pending"
          + " timeout unchanged (DataNodes without the wide-ec worker retry it forever)", 0L);
  final MutableCounterLong groupsStockRepairStuckReported = registry.newCounter("GroupsStockRepairStuckReported",
      "block groups reported stuck in HDFS's own reconstruction (each once per loss pattern while it lasts)", 0L);
  final MutableCounterLong scans = registry.newCounter("Scans", "completed scans", 0L);
  final MutableCounterLong scanFailures = registry.newCounter("ScanFailures",
      "scans that failed (a bug: see the NameNode log)", 0L);

  final ScrubMetrics scrub = new ScrubMetrics(registry);

  final TrimMetrics trim = new TrimMetrics(registry);

  final MutableGaugeLong archivedBlocksMissing = registry.newGauge("ArchivedBlocksMissing",
      "blocks of archived stripes (data or parity) with no live replica at the last repair pass", 0L);
  final MutableCounterLong archivedBlocksRepaired = registry.newCounter("ArchivedBlocksRepaired",
      "archived blocks rebuilt under their original id and confirmed live at the NameNode", 0L);
  final MutableCounterLong archivedRepairFailures = registry.newCounter("ArchivedRepairFailures",
      "rebuilds of archived blocks that failed or were not confirmed (each retried after a back-off)", 0L);
  final MutableGaugeLong archivedStripesStale = registry.newGauge("ArchivedStripesStale",
      "protected stripes with a member changed since archival (never used as a helper) at the last repair pass", 0L);
  final MutableGaugeLong archivedBlocksUnrecoverable = registry.newGauge("ArchivedBlocksUnrecoverable",
      "missing archived blocks the surviving units cannot decode at the last repair pass", 0L);
  final MutableCounterLong archivedFilesReReplicated = registry.newCounter("ArchivedFilesReReplicated",
      "raises of an archived file's replication by the reprotection pass, because members of its stripe were deleted,"
          + " truncated or appended since archival", 0L);
  final MutableGaugeLong archivedStripesBelowTolerance = registry.newGauge("ArchivedStripesBelowTolerance",
      "protected stripes with members changed since archival whose units do not yet hold the replication that"
          + " restores the code's tolerance, at the last reprotection pass", 0L);
  final MutableGaugeLong archivedStripesReprotected = registry.newGauge("ArchivedStripesReprotected",
      "protected stripes with members changed since archival whose tolerance their raised replication holds, at the"
          + " last reprotection pass (archive them again to free the space)", 0L);
  final MutableGaugeLong archivedStripesReprotectionBlocked = registry.newGauge("ArchivedStripesReprotectionBlocked",
      "protected stripes with members changed since archival whose raise HDFS refused for a quota (the owners' space"
          + " quota is charged for the added replicas), at the last reprotection pass: raise the quota or archive the"
          + " directory again", 0L);
  final MutableGaugeLong archivedMembersChanged = registry.newGauge("ArchivedMembersChanged",
      "members of protected stripes deleted, truncated or appended since archival, at the last reprotection pass",
      0L);
  final MutableGaugeLong archiveRepairRunning = registry.newGauge("ArchiveRepairRunning",
      "1 while the archive repair monitor runs on this NameNode, 0 when it is off", 0L);
  final MutableGaugeLong archiveRepairSafeModeWaitMs = registry.newGauge("ArchiveRepairSafeModeWaitMs",
      "in startup safe mode, the milliseconds left before the archive repair monitor rebuilds missing archived blocks"
          + " (wide-ec.archive.repair.safemode.wait.ms after the NameNode started); 0 once it does, or out of safe mode; -1 in"
          + " a safe mode an operator or low resources entered, where it rebuilds nothing",
      0L);
  final MutableGaugeLong archivedBlocksRebuilding = registry.newGauge("ArchivedBlocksRebuilding",
      "archived blocks whose rebuild order is running now", 0L);
  final MutableCounterLong archiveNodesFoundUnusable = registry.newCounter("ArchiveNodesFoundUnusable",
      "DataNodes the archive repair monitor left out of rebuild orders for wide-ec.repair.unusable-helper.avoid.ms"
          + " (their slice port not found, their worker off, or they refused this NameNode)", 0L);
  final MutableCounterLong archiveReprotectionPasses = registry.newCounter("ArchiveReprotectionPasses",
      "passes of the archive reprotection over every manifest's stripes", 0L);
  final MutableCounterLong archiveRepairPasses = registry.newCounter("ArchiveRepairPasses",
      "completed passes of the archive repair monitor over the manifests", 0L);
  final MutableCounterLong archiveRebuildOrders = registry.newCounter("ArchiveRebuildOrders",
      "rebuild orders sent to DataNodes (one per unit rebuilt alone, one per joint decode of several units)", 0L);
  final MutableCounterLong archiveJointRebuilds = registry.newCounter("ArchiveJointRebuilds",
      "rebuild orders that rebuild several lost units of one stripe by one decode", 0L);
  final MutableCounterLong archiveRebuildCrossRackBytesPlanned = registry.newCounter(
      "ArchiveRebuildCrossRackBytesPlanned", "cross-rack bytes the rebuild orders sent were planned to move (slice"
      + " streams, confirmations and writes to targets in other racks; compare the DataNodes' BytesSentCrossRack)", 0L);

  final MutableCounterLong archivedBlocksPinned = registry.newCounter("ArchivedBlocksPinned",
      "replicas of archived blocks on their planned node confirmed pinned (pinned now or found pinned) by the"
          + " placement keeper since this NameNode started", 0L);
  final MutableCounterLong archivedBlocksMovedBack = registry.newCounter("ArchivedBlocksMovedBack",
      "archived blocks off plan that the placement keeper moved back onto plan (REPLACE_BLOCK with a delete hint)", 0L);
  final MutableCounterLong archivedMoveBackFailures = registry.newCounter("ArchivedMoveBackFailures",
      "moves of archived blocks back onto plan that failed (each retried after a back-off)", 0L);

  final DecommissionMetrics decommission = new DecommissionMetrics(registry);

  final MutableGaugeLong lostUnitsFound = registry.newGauge("LostUnitsFound",
      "units of our block groups no live DataNode holds (their DataNode died, say) that the last pass found in HDFS's"
          + " reconstruction queue", 0L);
  final LostUnitRebuildMetrics lostUnits = new LostUnitRebuildMetrics(registry);

  /**
   * The counters of one kind of rebuild of block-group units the NameNode orders ({@link LostUnitRebuilds}); the units
   * copied (also counted rebuilt) are null where units are never copied; the rack links planned, the chains
   * reordered and the joint decodes are null where orders take the decommission planner's default shape.
   */
  record UnitRebuildCounters(MutableGaugeLong rebuilding, MutableCounterLong rebuilt, MutableCounterLong bytes,
      MutableCounterLong leftToHdfs, MutableCounterLong failures, MutableCounterLong crossRackBytesPlanned,
      MutableCounterLong copied, MutableCounterLong bytesCopied, RackLinkLoad rackLinksPlanned,
      MutableCounterLong chainsReordered, MutableCounterLong jointDecodes, MutableCounterLong unitsDecodedJointly,
      MutableCounterLong helperBytesPlanned) {
    /**
     * An order was sent: what it was planned to put on the rack links and read from helpers, whether its chain was
     * reordered, and how many units it decodes.
     */
    void planned(RackLinkLoad flows, long helperBytes, boolean chainReordered, int units) {
      if (rackLinksPlanned != null) {
        synchronized (rackLinksPlanned) {
          rackLinksPlanned.add(flows, 1);
        }
      }
      if (chainReordered && chainsReordered != null) {
        chainsReordered.incr();
      }
      if (units > 1 && jointDecodes != null) {
        jointDecodes.incr();
        unitsDecodedJointly.incr(units);
      }
      if (helperBytesPlanned != null) {
        helperBytesPlanned.incr(helperBytes);
      }
    }
  }

  UnitRebuildCounters decommissionCounters() {
    return decommission.counters();
  }

  UnitRebuildCounters lostUnitCounters() {
    return lostUnits.counters();
  }

  /**
   * Bytes the orders for lost units were planned to put on each rack link since start ("up /r1": leaving rack /r1,
   * "down /r2": entering /r2), the full-node recovery plan's transfers: what the DataNodes' per-rack-link counters
   * must add up to.
   */
  public java.util.Map<String, Long> lostUnitRackLinkBytesPlanned() {
    return lostUnits.rackLinkBytesPlanned();
  }

  public long lostUnitChainsReordered() {
    return lostUnits.chainsReordered.value();
  }

  public long lostUnitJointDecodes() {
    return lostUnits.jointDecodes.value();
  }

  public long lostUnitsDecodedJointly() {
    return lostUnits.unitsDecodedJointly.value();
  }

  public long lostUnitHelperBytesPlanned() {
    return lostUnits.helperBytesPlanned.value();
  }

  public long lostUnitBytesRebuilt() {
    return lostUnits.bytesRebuilt.value();
  }

  public long lostUnitsFound() {
    return lostUnitsFound.value();
  }

  public long lostUnitsRebuilding() {
    return lostUnits.rebuilding.value();
  }

  public long lostUnitsRebuilt() {
    return lostUnits.rebuilt.value();
  }

  public long lostUnitsLeftToHdfs() {
    return lostUnits.leftToHdfs.value();
  }

  public long lostUnitRebuildFailures() {
    return lostUnits.failures.value();
  }

  public long lostUnitsPlacedBeyondRackCap() {
    return lostUnits.placedBeyondRackCap.value();
  }

  static WideEcNameNodeMetrics register() {
    WideEcNameNodeMetrics m = new WideEcNameNodeMetrics();
    DefaultMetricsSystem.instance().register(NAME, "wide-ec NameNode plugin", m);
    return m;
  }

  void unregister() {
    DefaultMetricsSystem.instance().unregisterSource(NAME);
  }

  /** Registers a fresh source, replacing one a NameNode in this JVM left behind (tests restart NameNodes). */
  static WideEcNameNodeMetrics registerReplacing() {
    DefaultMetricsSystem.instance().unregisterSource(NAME);
    return register();
  }

  public TrimMetrics trim() {
    return trim;
  }

  public ScrubMetrics scrub() {
    return scrub;
  }

  public long archivedBlocksPinned() {
    return archivedBlocksPinned.value();
  }

  public long archivedBlocksMovedBack() {
    return archivedBlocksMovedBack.value();
  }

  public long archivedMoveBackFailures() {
    return archivedMoveBackFailures.value();
  }

  public long groupsStockRepairStuck() {
    return groupsStockRepairStuck.value();
  }

  public long groupsStockRepairStuckReported() {
    return groupsStockRepairStuckReported.value();
  }

  public long groupsAtRisk() {
    return groupsAtRisk.value();
  }

  public long groupsLost() {
    return groupsLost.value();
  }

  public long unbuildablePolicies() {
    return unbuildablePolicies.value();
  }

  public long groupsAtRiskReported() {
    return groupsAtRiskReported.value();
  }

  public long groupsPrioritised() {
    return groupsPrioritised.value();
  }

  public long scans() {
    return scans.value();
  }

  public long archivedBlocksMissing() {
    return archivedBlocksMissing.value();
  }

  public long archivedBlocksRepaired() {
    return archivedBlocksRepaired.value();
  }

  public long archivedBlocksRebuilding() {
    return archivedBlocksRebuilding.value();
  }

  public long archivedRepairFailures() {
    return archivedRepairFailures.value();
  }

  public long archivedStripesStale() {
    return archivedStripesStale.value();
  }

  public long archivedBlocksUnrecoverable() {
    return archivedBlocksUnrecoverable.value();
  }

  public long archivedStripesBelowTolerance() {
    return archivedStripesBelowTolerance.value();
  }

  public long archivedStripesReprotected() {
    return archivedStripesReprotected.value();
  }

  public long archivedStripesReprotectionBlocked() {
    return archivedStripesReprotectionBlocked.value();
  }

  public long archivedMembersChanged() {
    return archivedMembersChanged.value();
  }

  public long archivedFilesReReplicated() {
    return archivedFilesReReplicated.value();
  }

  public long archiveReprotectionPasses() {
    return archiveReprotectionPasses.value();
  }

  public long archiveRepairRunning() {
    return archiveRepairRunning.value();
  }

  public long archiveRepairPasses() {
    return archiveRepairPasses.value();
  }

  public long archiveNodesFoundUnusable() {
    return archiveNodesFoundUnusable.value();
  }

  public long archiveRebuildOrders() {
    return archiveRebuildOrders.value();
  }

  public long archiveJointRebuilds() {
    return archiveJointRebuilds.value();
  }

  public long archiveRebuildCrossRackBytesPlanned() {
    return archiveRebuildCrossRackBytesPlanned.value();
  }

  public long decommissionNodes() {
    return decommission.nodes.value();
  }

  public long decommissionUnitsLeft() {
    return decommission.unitsLeft.value();
  }

  public long decommissionUnitsRebuilding() {
    return decommission.unitsRebuilding.value();
  }

  public long decommissionUnitsRebuilt() {
    return decommission.unitsRebuilt.value();
  }

  public long decommissionBytesRebuilt() {
    return decommission.bytesRebuilt.value();
  }

  public long decommissionUnitsFromLeavingNode() {
    return decommission.unitsFromLeavingNode.value();
  }

  public long decommissionUnitsCopied() {
    return decommission.unitsCopied.value();
  }

  public long decommissionBytesCopied() {
    return decommission.bytesCopied.value();
  }

  public long decommissionArchivedBlocksCopied() {
    return decommission.archivedBlocksCopied.value();
  }

  public long decommissionArchivedBlocksRebuilt() {
    return decommission.archivedBlocksRebuilt.value();
  }

  public long decommissionRebuildFailures() {
    return decommission.rebuildFailures.value();
  }

  @Override
  public void getMetrics(MetricsCollector collector, boolean all) {
    registry.snapshot(collector.addRecord(registry.info()), all);
  }
}
