package org.wideec.datanode;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.metrics2.AbstractMetric;
import org.apache.hadoop.metrics2.impl.MetricsCollectorImpl;
import org.apache.hadoop.metrics2.impl.MetricsRecordImpl;
import org.junit.jupiter.api.Test;

/**
 * The worker's metrics record as JMX and the sinks read it: one record (metrics2 suffixes the attribute names of a
 * second one), the background gauges in it beside the counters under the names docs/repair.md lists, and the bytes
 * sent to each other rack counted per destination.
 */
class RepairMetricsTest {
  private static final long NODE_CAP = 300_000;

  @Test
  void theWorkerRecordCarriesTheBackgroundGaugesBesideItsCountersUnderTheirDocumentedNames() throws Exception {
    Configuration conf = BackgroundTrafficTest.conf();
    BackgroundTrafficTest.withTraffic(conf, (traffic, dnMetrics) -> {
      RepairMetrics m = new RepairMetrics("WideEcRepair-test");
      assertEquals(Map.of("RepairBacklog", 0L), pick(record(m), "RepairBacklog", "BackgroundNodeCapNow"),
          "before the worker runs: the queue, no caps");
      m.background(traffic, () -> 7);
      traffic.setNodeCap(NODE_CAP);
      m.backgroundSliceSent(4096, true);
      m.foregroundSliceSent(1024, false);
      Map<String, Long> r = record(m);
      assertEquals(Map.of("RepairBacklog", 7L, "BackgroundNodeCapNow", NODE_CAP, "BackgroundRackShareNow", 0L,
          "BackgroundBackoffPercent", 100L, "BackgroundThrottleWaits", 0L, "BackgroundThrottleOverruns", 0L,
          "BackgroundBytesSent", 4096L, "ForegroundBytesSent", 1024L), pick(r, "RepairBacklog", "BackgroundNodeCapNow",
          "BackgroundRackShareNow", "BackgroundBackoffPercent", "BackgroundThrottleWaits", "BackgroundThrottleOverruns",
          "BackgroundBytesSent", "ForegroundBytesSent"));
      assertEquals(1024, m.foregroundBytesSent(), "a user's slices, counted apart from the background's");
      for (String name : List.of("BackgroundBytesUnderCap", "BackgroundThrottleWaitMs", "TasksCompleted",
          "RepairsRackAggregated", "HandshakesRefusedWrongSecret")) {
        assertEquals(true, r.containsKey(name), name + " in " + r.keySet());
      }
      assertEquals(7, m.backlog());
    });
  }

  @Test
  void theStreamsStartedAheadAndThoseTakenAreTheStepServicesCounts() {
    RepairMetrics m = new RepairMetrics("WideEcRepair-test");
    assertEquals(Map.of("StreamsStartedAhead", 0L, "StreamsStartedAheadTaken", 0L),
        pick(record(m), "StreamsStartedAhead", "StreamsStartedAheadTaken"), "before the worker runs");
    m.startedAhead(() -> new long[] {5, 3});
    assertEquals(Map.of("StreamsStartedAhead", 5L, "StreamsStartedAheadTaken", 3L),
        pick(record(m), "StreamsStartedAhead", "StreamsStartedAheadTaken"));
  }

  @Test
  void slicesToOtherRacksAreCountedPerDestinationRackAndSlicesWithinTheRackAreNot() {
    RepairMetrics m = new RepairMetrics("WideEcRepair-test");
    m.sliceSentBetween(100, "/r1", "/r2");
    m.sliceSentBetween(50, "/r1", "/r1");
    m.sliceSentBetween(7, "/r1", "/r3");
    m.sliceSentBetween(1, "/r1", "/r2");
    assertEquals(Map.of("/r2", 101L, "/r3", 7L), m.crossRackBytesByDestination());
  }

  /** The one record the source gives, metric name to value. */
  private static Map<String, Long> record(RepairMetrics m) {
    MetricsCollectorImpl c = new MetricsCollectorImpl();
    m.getMetrics(c, true);
    List<MetricsRecordImpl> records = c.getRecords();
    assertEquals(1, records.size(), "one record: a second one's JMX attributes would be renamed");
    Map<String, Long> out = new HashMap<>();
    for (AbstractMetric a : records.get(0).metrics()) {
      out.put(a.name(), a.value().longValue());
    }
    return out;
  }

  private static Map<String, Long> pick(Map<String, Long> r, String... names) {
    Map<String, Long> out = new HashMap<>();
    for (String n : names) {
      if (r.containsKey(n)) {
        out.put(n, r.get(n));
      }
    }
    return out;
  }
}
