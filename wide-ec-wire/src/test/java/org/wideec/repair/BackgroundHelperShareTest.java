package org.wideec.repair;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.wideec.code.Codes;
import org.wideec.code.LinearCode;
import org.wideec.engine.RepairEngine.RepairFailedException;
import org.wideec.placement.CombinedLocalityPlanner;
import org.wideec.placement.PlacementPlan;
import org.wideec.transport.BackgroundWork;
import org.wideec.transport.TransportFaultInjector;

/**
 * Background work may hold only half of a node's helper threads: repairs held back (by a cap, here by a test) fill
 * that half, a further repair is refused at once, and a user's degraded read still finds a thread at every helper.
 */
@org.junit.jupiter.api.extension.ExtendWith(org.wideec.transport.NettyLeakCheck.class)
class BackgroundHelperShareTest {
  @AfterEach
  void noFaults() {
    TransportFaultInjector.set(null);
  }

  @Test
  void repairsHoldingHalfTheHelperThreadsLeaveTheOtherHalfToUsersReads() throws Exception {
    LinearCode code = Codes.fromSpec("azure-lrc:k=12,l=2,g=2");
    PlacementPlan plan = new CombinedLocalityPlanner().plan(code);
    int length = 8 * RepairExecutionTest.SLICE;
    byte[][] units = RepairPlanningTest.codeword(code, length, new Random(3));
    int lost = 0;
    int helpers = code.repairPlan(lost).cost();
    CountDownLatch release = new CountDownLatch(1);
    Set<String> holding = ConcurrentHashMap.newKeySet();
    Semaphore arrived = new Semaphore(0);
    TransportFaultInjector.set(new TransportFaultInjector() {
      @Override
      public void beforeSend(String node, String to, long repairId, int slice, io.netty.buffer.ByteBuf payload) {
        if (BackgroundWork.isBackground(repairId) && release.getCount() > 0) {
          if (holding.add(node)) {
            arrived.release();
          }
          try { // as a repair waiting for its cap holds its helper thread
            release.await(60, TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        }
      }
    });
    try (MemoryCluster cluster = new MemoryCluster(RepairExecutionTest.conf(RepairExecutionTest.SECRET, 20_000))) {
      for (int u = 1; u < code.n(); u++) { // two helper threads each: one for background work
        cluster.node("n" + u, "r" + plan.rackOf(u), Map.of(u, units[u]),
            new ThreadPoolExecutor(0, 2, 60, TimeUnit.SECONDS, new SynchronousQueue<>()));
      }
      cluster.node("req", "r" + plan.rackOf(lost), Map.of());
      StripeRepair r = StripeRepair.of("share", code, new int[] {lost}, new long[] {length},
          RepairPlanningTest.locations(plan, lost), MemoryCluster.blocks(code.n(), length), Set.of(),
          RepairScheme.CONVENTIONAL);

      MemoryCluster.MemorySink held = new MemoryCluster.MemorySink(length);
      AtomicReference<Throwable> heldFailed = new AtomicReference<>();
      Thread first = new Thread(() -> {
        try {
          cluster.engine("req", 1).asBackground().repair(r, cluster.where("req"), (u, len) -> held,
              RepairExecutionTest.SLICE);
        } catch (Throwable e) {
          heldFailed.set(e);
        }
      });
      first.start();
      arrived.acquire(helpers); // every helper of the first repair holds its one background thread

      RepairFailedException refused = assertThrows(RepairFailedException.class, () -> cluster.engine("req", 1)
          .asBackground().repair(r, cluster.where("req"), (u, len) -> new MemoryCluster.MemorySink(length),
              RepairExecutionTest.SLICE));
      assertTrue(String.valueOf(refused.getMessage()).contains("already holds 1 helper threads"),
          "a second repair is refused for the background share: " + refused.getMessage());

      MemoryCluster.MemorySink read = new MemoryCluster.MemorySink(length);
      cluster.engine("req", 1).repair(r, cluster.where("req"), (u, len) -> read, RepairExecutionTest.SLICE);
      assertArrayEquals(units[lost], read.bytes, "the user's read, while repairs hold their share");

      release.countDown();
      first.join();
      assertEquals(null, heldFailed.get());
      assertArrayEquals(units[lost], held.bytes, "the held repair, once let go");
    } finally {
      release.countDown();
    }
  }
}
