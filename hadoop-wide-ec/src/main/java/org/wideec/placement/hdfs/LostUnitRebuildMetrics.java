package org.wideec.placement.hdfs;

import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.metrics2.lib.MetricsRegistry;
import org.apache.hadoop.metrics2.lib.MutableCounterLong;
import org.apache.hadoop.metrics2.lib.MutableGaugeLong;
import org.wideec.repair.RackLinkLoad;

/**
 * What the NameNode's rebuild orders for lost units of our block groups did: running, rebuilt, bytes, left to HDFS,
 * failed, and the shape the full-node recovery plan gave them (rack links, reordered chains, joint decodes, helper
 * reads). Its metrics live in the NameNode source's registry, so they stay attributes of the one JMX bean under their
 * names: a second record would rename them.
 */
final class LostUnitRebuildMetrics {
  final MutableGaugeLong rebuilding;
  final MutableCounterLong rebuilt;
  final MutableCounterLong bytesRebuilt;
  final MutableCounterLong leftToHdfs;
  final MutableCounterLong failures;
  final MutableCounterLong crossRackBytesPlanned;
  final MutableCounterLong chainsReordered;
  final MutableCounterLong jointDecodes;
  final MutableCounterLong unitsDecodedJointly;
  final MutableCounterLong helperBytesPlanned;
  final MutableCounterLong placedBeyondRackCap;
  /** Bytes the orders were planned to put on each rack link, since start. */
  private final RackLinkLoad rackLinksPlanned = new RackLinkLoad(RackLinkLoad.Links.FULL_DUPLEX);

  LostUnitRebuildMetrics(MetricsRegistry registry) {
    rebuilding = registry.newGauge("LostUnitsRebuilding",
        "lost units of our block groups whose rebuild order is running now", 0L);
    rebuilt = registry.newCounter("LostUnitsRebuilt",
        "lost units of our block groups rebuilt by our workers on this NameNode's order and confirmed live", 0L);
    bytesRebuilt = registry.newCounter("LostUnitBytesRebuilt", "bytes of the units counted in LostUnitsRebuilt", 0L);
    leftToHdfs = registry.newCounter("LostUnitsLeftToHdfs",
        "lost units of our block groups no plan could rebuild (no target keeping the placement, no decodable helper"
            + " set), left to HDFS's reconstruction", 0L);
    failures = registry.newCounter("LostUnitRebuildFailures",
        "rebuilds of lost units of our block groups that failed or were not confirmed (each group then left to HDFS's"
            + " reconstruction for a back-off)", 0L);
    crossRackBytesPlanned = registry.newCounter("LostUnitCrossRackBytesPlanned",
        "cross-rack bytes the rebuild orders for lost units were planned to move", 0L);
    chainsReordered = registry.newCounter("LostUnitChainsReordered",
        "rebuild orders for lost units whose rack-aggregated chain visits its racks in an order the full-node recovery"
            + " plan chose to share the rack links (not name order)", 0L);
    jointDecodes = registry.newCounter("LostUnitJointDecodes",
        "rebuild orders that rebuilt several lost units of one block group by one decode (the plan found it sends fewer"
            + " bytes across racks than each alone)", 0L);
    unitsDecodedJointly = registry.newCounter("LostUnitsDecodedJointly",
        "lost units of our block groups whose order was one of LostUnitJointDecodes", 0L);
    helperBytesPlanned = registry.newCounter("LostUnitHelperBytesPlanned",
        "bytes the rebuild orders for lost units were planned to read from helpers (each helper's unit once per order)",
        0L);
    placedBeyondRackCap = registry.newCounter("LostUnitsPlacedBeyondRackCap",
        "lost units of our block groups the full-node recovery plan put in a rack already holding its plan's cap of the"
            + " group's units, because every rack with a free node did (a whole rack lost, too few racks left for the"
            + " plan); each counted once while it stays planned so", 0L);
  }

  WideEcNameNodeMetrics.UnitRebuildCounters counters() {
    return new WideEcNameNodeMetrics.UnitRebuildCounters(rebuilding, rebuilt, bytesRebuilt, leftToHdfs, failures,
        crossRackBytesPlanned, null, null, rackLinksPlanned, chainsReordered, jointDecodes, unitsDecodedJointly,
        helperBytesPlanned);
  }

  /** A copy of the bytes planned per rack link ("up /r1", "down /r2"), taken under the lock the orders add under. */
  Map<String, Long> rackLinkBytesPlanned() {
    synchronized (rackLinksPlanned) {
      return new TreeMap<>(rackLinksPlanned.bytes());
    }
  }
}
