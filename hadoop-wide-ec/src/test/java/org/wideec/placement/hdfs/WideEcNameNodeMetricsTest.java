package org.wideec.placement.hdfs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.metrics2.AbstractMetric;
import org.apache.hadoop.metrics2.impl.MetricsCollectorImpl;
import org.apache.hadoop.metrics2.impl.MetricsRecordImpl;
import org.junit.jupiter.api.Test;
import org.wideec.repair.RackLinkLoad;

/**
 * The NameNode's metrics as JMX and the sinks read them: one record holding every metric under the name dashboards,
 * docs and tests use, the decommission's and the lost units' counters included though other classes keep them.
 */
class WideEcNameNodeMetricsTest {
  /** Every name the source published before its counters were split into classes of their own. */
  private static final List<String> NAMES = List.of(
      "GroupsExamined", "GroupsAtRisk", "GroupsLost", "UnbuildablePolicies", "GroupsAtRiskReported",
      "GroupsLostReported", "GroupsPrioritised", "GroupsStockRepairStuck", "GroupsStockRepairStuckReported", "Scans",
      "ScanFailures", "ScrubPasses", "ScrubStripesChecked", "ScrubSummaryBytes", "ScrubMismatches",
      "ScrubUndecidable", "ScrubRepairsRequested", "ScrubFailures", "TrimPasses", "BlocksTrimmed", "BlocksOffPlan",
      "BlocksAwaitingTrim", "TrimFailures", "ArchivedBlocksMissing", "ArchivedBlocksRepaired",
      "ArchivedRepairFailures", "ArchivedStripesStale", "ArchivedBlocksUnrecoverable", "ArchivedFilesReReplicated",
      "ArchivedStripesBelowTolerance", "ArchivedStripesReprotected", "ArchivedStripesReprotectionBlocked",
      "ArchivedMembersChanged", "ArchiveRepairRunning", "ArchiveRepairSafeModeWaitMs", "ArchivedBlocksRebuilding",
      "ArchiveNodesFoundUnusable", "ArchiveReprotectionPasses", "ArchiveRepairPasses", "ArchiveRebuildOrders",
      "ArchiveJointRebuilds", "ArchiveRebuildCrossRackBytesPlanned", "ArchivedBlocksPinned",
      "ArchivedBlocksMovedBack", "ArchivedMoveBackFailures", "DecommissionNodes", "DecommissionUnitsLeft",
      "DecommissionUnitsRebuilding", "DecommissionUnitsRebuilt", "DecommissionBytesRebuilt",
      "DecommissionUnitsFromLeavingNode", "DecommissionUnitsCopied", "DecommissionBytesCopied",
      "DecommissionArchivedBlocksCopied", "DecommissionArchivedBlocksRebuilt", "DecommissionRebuildFailures",
      "DecommissionCrossRackBytesPlanned", "LostUnitsFound", "LostUnitsRebuilding", "LostUnitsRebuilt",
      "LostUnitBytesRebuilt", "LostUnitsLeftToHdfs", "LostUnitRebuildFailures", "LostUnitCrossRackBytesPlanned",
      "LostUnitChainsReordered", "LostUnitJointDecodes", "LostUnitsDecodedJointly", "LostUnitHelperBytesPlanned",
      "LostUnitsPlacedBeyondRackCap");

  @Test
  void everyMetricKeepsItsNameInTheOneRecord() {
    Map<String, Long> r = record(new WideEcNameNodeMetrics());
    for (String name : NAMES) {
      assertEquals(0L, r.get(name), name + " in " + r.keySet());
    }
  }

  @Test
  void theSplitCountersReachTheRecordAndTheReadersUnderTheirNames() {
    WideEcNameNodeMetrics m = new WideEcNameNodeMetrics();
    m.decommission.unitsCopied.incr();
    m.decommission.unitsRebuilt.incr(2);
    m.decommissionCounters().failures().incr();
    m.lostUnitsFound.set(5);
    m.lostUnitCounters().rebuilt().incr(3);
    RackLinkLoad flows = new RackLinkLoad(RackLinkLoad.Links.FULL_DUPLEX);
    flows.addTransfer("/r1", "/r2", 4096);
    m.lostUnitCounters().planned(flows, 8192, true, 2);
    m.decommissionCounters().planned(flows, 8192, true, 2);

    Map<String, Long> r = record(m);
    assertEquals(Map.of("DecommissionUnitsCopied", 1L, "DecommissionUnitsRebuilt", 2L,
        "DecommissionRebuildFailures", 1L, "LostUnitsFound", 5L, "LostUnitsRebuilt", 3L, "LostUnitChainsReordered", 1L,
        "LostUnitJointDecodes", 1L, "LostUnitsDecodedJointly", 2L, "LostUnitHelperBytesPlanned", 8192L),
        nonZero(r), "the decommission's orders take the default shape: no chains, joint decodes or helper bytes");
    assertEquals(List.of(1L, 2L, 1L, 5L, 3L, 1L, 1L, 2L, 8192L),
        List.of(m.decommissionUnitsCopied(), m.decommissionUnitsRebuilt(), m.decommissionRebuildFailures(),
            m.lostUnitsFound(), m.lostUnitsRebuilt(), m.lostUnitChainsReordered(), m.lostUnitJointDecodes(),
            m.lostUnitsDecodedJointly(), m.lostUnitHelperBytesPlanned()));
    assertEquals(flows.bytes(), m.lostUnitRackLinkBytesPlanned());
  }

  /** The one record the source gives, metric name to value: a second record's JMX attributes would be renamed. */
  private static Map<String, Long> record(WideEcNameNodeMetrics m) {
    MetricsCollectorImpl c = new MetricsCollectorImpl();
    m.getMetrics(c, true);
    List<MetricsRecordImpl> records = c.getRecords();
    assertEquals(1, records.size(), "one record");
    Map<String, Long> out = new LinkedHashMap<>();
    for (AbstractMetric a : records.get(0).metrics()) {
      out.put(a.name(), a.value().longValue());
    }
    return out;
  }

  private static Map<String, Long> nonZero(Map<String, Long> r) {
    Map<String, Long> out = new LinkedHashMap<>(r);
    out.values().removeIf(v -> v == 0);
    return out;
  }
}
