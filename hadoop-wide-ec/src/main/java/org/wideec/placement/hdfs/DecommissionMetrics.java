package org.wideec.placement.hdfs;

import org.apache.hadoop.metrics2.lib.MetricsRegistry;
import org.apache.hadoop.metrics2.lib.MutableCounterLong;
import org.apache.hadoop.metrics2.lib.MutableGaugeLong;

/**
 * What the decommission of DataNodes left to do and did: units left on leaving nodes, rebuilt or copied by our
 * workers, bytes, units left to HDFS's copy from the leaving node. Its metrics live in the NameNode source's registry,
 * so they stay attributes of the one JMX bean under their names: a second record would rename them.
 */
final class DecommissionMetrics {
  final MutableGaugeLong nodes;
  final MutableGaugeLong unitsLeft;
  final MutableGaugeLong unitsRebuilding;
  final MutableCounterLong unitsRebuilt;
  final MutableCounterLong bytesRebuilt;
  final MutableCounterLong unitsFromLeavingNode;
  final MutableCounterLong unitsCopied;
  final MutableCounterLong bytesCopied;
  final MutableCounterLong archivedBlocksCopied;
  final MutableCounterLong archivedBlocksRebuilt;
  final MutableCounterLong rebuildFailures;
  final MutableCounterLong crossRackBytesPlanned;

  DecommissionMetrics(MetricsRegistry registry) {
    nodes = registry.newGauge("DecommissionNodes",
        "DataNodes decommissioning or entering maintenance at the last archive repair pass", 0L);
    unitsLeft = registry.newGauge("DecommissionUnitsLeft",
        "units of our block groups and archived blocks held only on leaving DataNodes at the last archive repair pass",
        0L);
    unitsRebuilding = registry.newGauge("DecommissionUnitsRebuilding",
        "units of our block groups on leaving DataNodes whose rebuild order is running now", 0L);
    unitsRebuilt = registry.newCounter("DecommissionUnitsRebuilt",
        "units of our block groups and archived blocks that were on leaving DataNodes, moved elsewhere by our workers"
            + " (rebuilt from other units, or copied from the leaving node: DecommissionUnitsCopied) and confirmed"
            + " live", 0L);
    bytesRebuilt = registry.newCounter("DecommissionBytesRebuilt",
        "bytes of the units counted in DecommissionUnitsRebuilt", 0L);
    unitsFromLeavingNode = registry.newCounter("DecommissionUnitsFromLeavingNode",
        "units on leaving DataNodes left to HDFS's copy from the leaving node (no target keeps the placement, the order"
            + " could not be built, or an archived block the rest of its stripe cannot rebuild)", 0L);
    unitsCopied = registry.newCounter("DecommissionUnitsCopied",
        "units of block groups and archived blocks on leaving DataNodes our workers copied from the leaving node (the"
            + " plan found the copy faster, or no other units rebuild them), of DecommissionUnitsRebuilt", 0L);
    bytesCopied = registry.newCounter("DecommissionBytesCopied",
        "bytes of the units our workers copied from leaving DataNodes, of DecommissionBytesRebuilt", 0L);
    archivedBlocksCopied = registry.newCounter("DecommissionArchivedBlocksCopied",
        "archived blocks our workers copied from leaving DataNodes to the targets their stripes' plans chose, the links"
            + " finishing sooner so, of DecommissionUnitsCopied", 0L);
    archivedBlocksRebuilt = registry.newCounter("DecommissionArchivedBlocksRebuilt",
        "archived blocks on leaving DataNodes rebuilt from their stripes, of DecommissionUnitsRebuilt", 0L);
    rebuildFailures = registry.newCounter("DecommissionRebuildFailures",
        "rebuilds of units of our block groups on leaving DataNodes that failed or were not confirmed (each unit then"
            + " left to HDFS's copy for a back-off)", 0L);
    crossRackBytesPlanned = registry.newCounter("DecommissionCrossRackBytesPlanned",
        "cross-rack bytes the decommission rebuild orders sent were planned to move", 0L);
  }

  /** The block-group units' orders take the decommission planner's default shape: no links, chains or joint decodes. */
  WideEcNameNodeMetrics.UnitRebuildCounters counters() {
    return new WideEcNameNodeMetrics.UnitRebuildCounters(unitsRebuilding, unitsRebuilt, bytesRebuilt,
        unitsFromLeavingNode, rebuildFailures, crossRackBytesPlanned, unitsCopied, bytesCopied, null, null, null, null,
        null);
  }
}
