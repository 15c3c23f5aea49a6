package org.wideec.repair;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.wideec.code.Codes;
import org.wideec.code.LinearCode;
import org.wideec.engine.RepairEngine;
import org.wideec.placement.FlatPlanner;
import org.wideec.placement.PlacementPlan;
import org.wideec.protocol.DialAheadRequest;
import org.wideec.protocol.StepRequest;
import org.wideec.topology.Endpoint;
import org.wideec.topology.Site;
import org.wideec.transport.Frame;
import org.wideec.transport.PeerFailure;
import org.wideec.transport.PeerStream;
import org.wideec.transport.SliceTransport;
import org.wideec.transport.TransportFaultInjector;

/**
 * A helper told its step ahead dials its upstream at once and keeps the connection; the step's request then runs on
 * that connection (its upstream accepts one connection, not two) and sums the same bytes; a dial-ahead whose step
 * fails the request's own checks dials nothing.
 */
@org.junit.jupiter.api.extension.ExtendWith(org.wideec.transport.NettyLeakCheck.class)
class DialAheadOverSlicePortTest {
  private static final int LENGTH = 3 * RepairExecutionTest.SLICE;
  private MemoryCluster cluster;
  private final byte[] one = new byte[LENGTH];
  private final byte[] two = new byte[LENGTH];

  @AfterEach
  void tearDown() {
    TransportFaultInjector.set(null);
    if (cluster != null) {
      cluster.close();
    }
  }

  private void start() throws IOException {
    Random r = new Random(7);
    r.nextBytes(one);
    r.nextBytes(two);
    cluster = new MemoryCluster(RepairExecutionTest.conf(RepairExecutionTest.SECRET, 5000));
    cluster.node("h1", "r1", Map.of(1, one));
    cluster.node("h2", "r2", Map.of(2, two));
    cluster.node("req", "r1", Map.of());
  }

  private Endpoint at(String node) {
    return new Endpoint("127.0.0.1", cluster.transports.get(node).port(), new Site(node, cluster.racks.get(node)));
  }

  /** h1's unit plus h2's, h2 asked by h1. */
  private StepRequest chain(Endpoint upstream) {
    StepRequest leaf = new StepRequest(MemoryCluster.blocks(3, LENGTH).get(2), 1, LENGTH, RepairExecutionTest.SLICE,
        0, 1, List.of());
    return new StepRequest(MemoryCluster.blocks(3, LENGTH).get(1), 1, LENGTH, RepairExecutionTest.SLICE, 0, 1,
        List.of(new StepRequest.Upstream(upstream, leaf)));
  }

  private byte[] run(StepRequest step) throws IOException, InterruptedException {
    byte[] got = new byte[LENGTH];
    try (PeerStream s = cluster.transports.get("req").open(at("h1"), "req", "r1", 11, step.toBytes())) {
      for (int i = 0; i < LENGTH / RepairExecutionTest.SLICE; i++) {
        Frame f = s.next(i, RepairExecutionTest.SLICE);
        f.payload().getBytes(f.payload().readerIndex(), got, i * RepairExecutionTest.SLICE, RepairExecutionTest.SLICE);
        f.release();
        s.credit();
      }
      s.awaitEnd();
    }
    return got;
  }

  @Test
  void aToldHelperDialsItsUpstreamBeforeItsRequestArrives() throws Exception {
    start();
    SliceTransport h1 = cluster.transports.get("h1");
    try (PeerStream told = cluster.transports.get("req").open(at("h1"), "req", "r1", 10,
        new DialAheadRequest(chain(at("h2"))).toBytes())) {
      told.awaitEnd(); // answered at once, before any slice of its step could exist
    }
    assertEquals(1, h1.dialAheadCounts()[0], "h1 dialled its upstream when told");
    assertEquals(0, h1.dialAheadCounts()[1]);
  }

  @Test
  void theRequestTakesTheConnectionDialledAhead() throws Exception {
    start();
    SliceTransport h1 = cluster.transports.get("h1");
    SliceTransport h2 = cluster.transports.get("h2");
    assertTrue(h1.dialAhead(at("h2"), h1.ownCredential()).get(5, TimeUnit.SECONDS), "kept once connected");
    assertEquals(1, h1.keptConnections());
    // A second word while one waits dials nothing more.
    assertEquals(false, h1.dialAhead(at("h2"), h1.ownCredential()).get(5, TimeUnit.SECONDS));

    byte[] got = run(chain(at("h2")));

    byte[] sum = new byte[LENGTH];
    for (int i = 0; i < LENGTH; i++) {
      sum[i] = (byte) (one[i] ^ two[i]);
    }
    assertArrayEquals(sum, got, "the chain sums both units over the connection dialled ahead");
    assertEquals(1, h2.acceptedConnections(), "h1 reached h2 once: the request took the kept connection");
    assertEquals(1, h1.dialAheadCounts()[0]);
    assertEquals(1, h1.dialAheadCounts()[1], "the connection dialled ahead was used");
  }

  /**
   * A 6-helper chain (RS(6,3), pipelined): the requestor tells the 4 helpers between its head and its far end their
   * steps, each dials its upstream, and when the requests come down the chain each takes the connection it dialled:
   * every upstream accepts one connection, and the unit is rebuilt. The head's request is held until every told
   * helper's connection is kept (as a busy head's handshake would), so the order is the one the mechanism is for.
   */
  @Test
  void aChainsInnerHelpersDialTheirUpstreamsWhenToldAndTheChainRunsOnThoseConnections() throws Exception {
    LinearCode code = Codes.fromSpec("rs:k=6,m=3");
    PlacementPlan plan = new FlatPlanner().plan(code);
    int length = 5 * RepairExecutionTest.SLICE + 77;
    byte[][] units = RepairPlanningTest.codeword(code, length, new Random(3));
    cluster = new MemoryCluster(RepairExecutionTest.conf(RepairExecutionTest.SECRET, 5000));
    for (int u = 1; u < code.n(); u++) {
      cluster.node("n" + u, "r" + plan.rackOf(u), Map.of(u, units[u]));
    }
    cluster.node("req", "r" + plan.rackOf(0), Map.of());
    Map<Integer, UnitLocation> survivors = RepairPlanningTest.locations(plan, -1);
    survivors.remove(0);
    StripeRepair r = StripeRepair.of("told ahead", code, new int[] {0}, new long[] {length}, survivors,
        MemoryCluster.blocks(code.n(), length), Set.of(), RepairScheme.PIPELINED);
    Set<String> told = ConcurrentHashMap.newKeySet();
    AtomicBoolean headSeen = new AtomicBoolean();
    TransportFaultInjector.set(new TransportFaultInjector() {
      @Override
      public void beforeScreen(String node, byte[] body) {
        if (DialAheadRequest.isOne(body)) {
          told.add(node);
        } else if (!headSeen.getAndSet(true)) { // the head's request: held until the told helpers hold their dials
          long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
          while (System.nanoTime() < until && !(told.size() == 4
              && told.stream().allMatch(n -> cluster.transports.get(n).keptConnections() == 1))) {
            java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
          }
        }
      }
    });
    try {
      MemoryCluster.MemorySink sink = new MemoryCluster.MemorySink(length);
      RepairEngine.Result res = cluster.engine("req", 1).repair(r, cluster.where("req"), (u, len) -> sink);
      assertArrayEquals(units[0], sink.bytes, "the chain rebuilt the unit");
      assertEquals(6, res.helpers());
      assertEquals(4, told.size(), "the helpers between the head and the far end were told: " + told);
      for (String n : told) {
        assertArrayEquals(new long[] {1, 1}, cluster.transports.get(n).dialAheadCounts(),
            n + " dialled its upstream once when told, and its request took that connection");
      }
      long accepted = cluster.transports.entrySet().stream().filter(e -> !e.getKey().equals("req"))
          .mapToLong(e -> e.getValue().acceptedConnections()).sum();
      assertEquals(1 + 4 + 5, accepted, "the requestor's to the head and its four words, and one for each of the chain's "
          + "5 links: no helper dialled its upstream twice");
    } finally {
      TransportFaultInjector.set(null);
    }
  }

  @Test
  void aDialAheadFailingTheStepsChecksDialsNothing() throws Exception {
    start();
    SliceTransport h1 = cluster.transports.get("h1");
    // An upstream named as a DataNode on another host than its slice port: the request itself would be refused.
    Endpoint elsewhere = new Endpoint("127.0.0.1", cluster.transports.get("h2").port(), new Site("10.9.9.9:9866", "r2"));
    PeerFailure e = assertThrows(PeerFailure.class, () -> {
      try (PeerStream told = cluster.transports.get("req").open(at("h1"), "req", "r1", 12,
          new DialAheadRequest(chain(elsewhere)).toBytes())) {
        told.awaitEnd();
      }
    });
    assertTrue(e.getMessage().contains("on another host than DataNode 10.9.9.9:9866"), e.getMessage());
    assertEquals(0, h1.dialAheadCounts()[0], "nothing dialled for a step the request's checks refuse");
    assertEquals(0, cluster.transports.get("h2").acceptedConnections());
  }
}
