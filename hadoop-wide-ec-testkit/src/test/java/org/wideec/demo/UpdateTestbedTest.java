package org.wideec.demo;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;
import org.wideec.transport.TrafficShaper;
import org.wideec.update.SyntheticVolume;
import org.wideec.update.TraceUpdate;
import org.wideec.update.UpdateExecution;
import org.wideec.update.UpdatePattern;
import org.wideec.update.UpdatePlan;
import org.wideec.update.UpdateScheme;
import org.wideec.update.UpdateTraceReplayer;
import org.wideec.update.UpdateTraffic;

/**
 * The paper-faithful layer of {@code bench update} on a handful of updates, unshaped (no timing): what the transports
 * count across racks is exactly what the plans say, and the parities end as a fresh encode of the data.
 */
class UpdateTestbedTest {
  private static final int CHUNK = 4096;

  /** A few generated updates, then the same stripe updated again and again (Parix's new-data-only path). */
  private static List<TraceUpdate> trace() {
    List<TraceUpdate> t = new ArrayList<>(SyntheticVolume.withMeanUpdate("vol-15k", 15_000).generate(12, 7));
    long time = t.get(t.size() - 1).timeMicros();
    t.add(new TraceUpdate(time + 1, 0, 5 * CHUNK));
    t.add(new TraceUpdate(time + 2, 2 * CHUNK, 12 * CHUNK)); // the rest of stripe 0 and two units of stripe 1
    t.add(new TraceUpdate(time + 3, 100, 200));
    return t;
  }

  @Test
  void everySchemesTransportCrossRackBytesAreItsPlansChunksAndItsParitiesAFreshEncode() throws Exception {
    TrafficShaper.emulate(null);
    List<TraceUpdate> trace = trace();
    UpdateTraceReplayer model = UpdateTraceReplayer.paperFaithful();
    Map<String, UpdateTraffic> modelled = model.replay(trace);
    try (UpdateTestbed bed = new UpdateTestbed(model.placement(), CHUNK);
        TraceOnTestbed replayer = new TraceOnTestbed(bed, 3)) {
      Set<Long> stripes = replayer.writeStripes(trace, 1);
      for (String name : UpdateBench.SCHEMES) {
        TraceOnTestbed.Replay r = replayer.replay(trace, UpdateScheme.byName(name), stripes, 1);
        assertEquals(modelled.get(name).crossRackChunks(), r.planCrossRackChunks(), name);
        assertEquals(r.planCrossRackChunks() * CHUNK, r.transportCrossRackBytes(), name);
        assertEquals(stripes.size(), r.consistentStripes(), name + ": stripes whose parities equal a fresh encode");
        assertEquals(modelled.get(name).stripeUpdates(), r.stripeUpdates(), name);
      }
      assertTrue(modelled.get("parix").crossRackChunks() < 2L * 4 * modelled.get("parix").changedChunks(),
          "the trace updates some units twice, so Parix sends new data alone at least once");
    }
  }

  @Test
  void aRackCuUpdateOverTheTransportEndsAsTheReferenceExecutorsStripe() throws Exception {
    TrafficShaper.emulate(null);
    UpdateTraceReplayer model = UpdateTraceReplayer.paperFaithful();
    ExecutorService senders = Executors.newCachedThreadPool();
    try (UpdateTestbed bed = new UpdateTestbed(model.placement(), CHUNK)) {
      bed.writeStripe(5, new Random(3));
      byte[][] before = bed.stripe(5);
      UpdatePlan plan = UpdateScheme.byName("rackcu").plan(UpdatePattern.of(model.placement()).withChanged(0, 1, 2, 5, 9));
      byte[][] newData = new byte[12][];
      Random r = new Random(4);
      for (int d : plan.pattern().changed()) {
        newData[d] = new byte[CHUNK];
        r.nextBytes(newData[d]);
      }
      byte[][] expected = UpdateExecution.apply(plan, before, newData, new UpdateExecution.ParixLog());
      bed.resetCounters();
      new PlanOverTransport(bed, senders).apply(5, plan, newData);
      byte[][] after = bed.stripe(5);
      for (int u = 0; u < after.length; u++) {
        assertArrayEquals(expected[u], after[u], "unit " + u);
      }
      assertEquals((long) plan.crossRackChunks() * CHUNK, bed.crossRackBytes());
      assertTrue(bed.consistent(5));
    } finally {
      senders.shutdownNow();
    }
  }
}
