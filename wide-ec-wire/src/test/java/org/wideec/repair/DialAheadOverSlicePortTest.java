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
 * A helper told its step ahead asks its upstream at once and keeps the stream; the step's request then takes that
 * stream (its upstream is asked once and reads its unit once) and sums the same bytes; a request that came first
 * leaves nothing for a late word to start; a stream nobody takes is closed well before its upstream's stall timeout;
 * a word whose step fails the request's own checks asks nothing.
 */
@org.junit.jupiter.api.extension.ExtendWith(org.wideec.transport.NettyLeakCheck.class)
class DialAheadOverSlicePortTest {
  private static final int LENGTH = 3 * RepairExecutionTest.SLICE;
  private MemoryCluster cluster;
  private byte[] one;
  private byte[] two;

  @AfterEach
  void tearDown() {
    TransportFaultInjector.set(null);
    if (cluster != null) {
      cluster.close();
    }
  }

  private void start() throws IOException {
    start(RepairExecutionTest.conf(RepairExecutionTest.SECRET, 5000), java.util.concurrent.Executors.newCachedThreadPool(),
        LENGTH);
  }

  /** h1 holding unit 1, h2 unit 2 (its requests on {@code h2Helpers}), each of {@code length}, and the requestor. */
  private void start(org.wideec.transport.TransportConf conf, java.util.concurrent.ExecutorService h2Helpers,
      int length) throws IOException {
    Random r = new Random(7);
    one = new byte[length];
    two = new byte[length];
    r.nextBytes(one);
    r.nextBytes(two);
    cluster = new MemoryCluster(conf);
    cluster.node("h1", "r1", Map.of(1, one));
    cluster.node("h2", "r2", Map.of(2, two), h2Helpers);
    cluster.node("req", "r1", Map.of());
  }

  /** {started, taken} of a node's streams started ahead. */
  private long[] startedAhead(String node) {
    return java.util.Arrays.copyOf(cluster.steps.get(node).startedAheadCounts(), 2);
  }

  /** Tells h1 its step of {@link #chain} under chain id {@code id}, and waits until h1 has acted on the word. */
  private void tell(long id, StepRequest step) throws IOException, InterruptedException {
    long words = cluster.steps.get("h1").startedAheadCounts()[2];
    try (PeerStream told = cluster.transports.get("req").open(at("h1"), "req", "r1", id,
        new DialAheadRequest(step).toBytes())) {
      told.awaitEnd();
    }
    // The word is answered at once and its start runs after: wait for it, so the counts below are its outcome.
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10); // a bound on a hung start, not a timing
    while (cluster.steps.get("h1").startedAheadCounts()[2] == words && System.nanoTime() < until) {
      java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
    }
    assertEquals(words + 1, cluster.steps.get("h1").startedAheadCounts()[2], "h1's start for the word ran");
  }

  private Endpoint at(String node) {
    return new Endpoint("127.0.0.1", cluster.transports.get(node).port(), new Site(node, cluster.racks.get(node)));
  }

  /** h1's unit plus h2's, h2 asked by h1. */
  private StepRequest chain(Endpoint upstream) {
    int length = one.length;
    StepRequest leaf = new StepRequest(MemoryCluster.blocks(3, length).get(2), 1, length, RepairExecutionTest.SLICE,
        0, 1, List.of());
    return new StepRequest(MemoryCluster.blocks(3, length).get(1), 1, length, RepairExecutionTest.SLICE, 0, 1,
        List.of(new StepRequest.Upstream(upstream, leaf)));
  }

  private byte[] run(long id, StepRequest step) throws IOException, InterruptedException {
    byte[] got = new byte[one.length];
    try (PeerStream s = cluster.transports.get("req").open(at("h1"), "req", "r1", id, step.toBytes())) {
      for (int i = 0; i < one.length / RepairExecutionTest.SLICE; i++) {
        Frame f = s.next(i, RepairExecutionTest.SLICE);
        f.payload().getBytes(f.payload().readerIndex(), got, i * RepairExecutionTest.SLICE, RepairExecutionTest.SLICE);
        f.release();
        s.credit();
      }
      s.awaitEnd();
    }
    return got;
  }

  private byte[] sum() {
    byte[] sum = new byte[one.length];
    for (int i = 0; i < one.length; i++) {
      sum[i] = (byte) (one[i] ^ two[i]);
    }
    return sum;
  }

  @Test
  void theRequestTakesTheStreamStartedWhenItsHelperWasTold() throws Exception {
    start();
    tell(11, chain(at("h2")));
    assertArrayEquals(new long[] {1, 0}, startedAhead("h1"), "h1 asked its upstream when told");

    byte[] got = run(11, chain(at("h2")));

    assertArrayEquals(sum(), got, "the chain sums both units over the stream started ahead");
    assertArrayEquals(new long[] {1, 1}, startedAhead("h1"), "the request took it");
    assertEquals(1, cluster.transports.get("h2").acceptedConnections(), "h1 reached h2 once");
    assertEquals(LENGTH, cluster.counters.get("h2").localReads.get(), "h2 was asked once: it read its unit once");
  }

  @Test
  void aWordArrivingAfterItsRequestStartsNothing() throws Exception {
    start();
    assertArrayEquals(sum(), run(12, chain(at("h2"))));
    tell(12, chain(at("h2")));
    assertArrayEquals(new long[] {0, 0}, startedAhead("h1"), "the late word asked nothing");
    assertEquals(LENGTH, cluster.counters.get("h2").localReads.get(), "h2 read its unit once, for the request");
    // Another chain's word is no late one.
    tell(13, chain(at("h2")));
    assertArrayEquals(new long[] {1, 0}, startedAhead("h1"));
  }

  /**
   * A stream started ahead that no request takes is closed after a quarter of the stall timeout (here 1 of 4 s), so
   * its upstream's step, its window full (a user's stream: 2 MiB of a 4 MiB unit), ends then and not at its own
   * stall; a request for the same chain afterwards asks again.
   */
  @Test
  void aStreamNoRequestTakesIsClosedBeforeItsUpstreamStalls() throws Exception {
    java.util.concurrent.ThreadPoolExecutor h2Helpers = new java.util.concurrent.ThreadPoolExecutor(1, 4, 30,
        TimeUnit.SECONDS, new java.util.concurrent.SynchronousQueue<>());
    try {
      start(RepairExecutionTest.conf(RepairExecutionTest.SECRET, 4000), h2Helpers, 4 << 20);
      long told = System.nanoTime();
      tell(14, chain(at("h2")));
      long until = told + TimeUnit.MILLISECONDS.toNanos(3000); // a bound below h2's 4 s stall, not a timing
      while (h2Helpers.getCompletedTaskCount() < 1 && System.nanoTime() < until) {
        java.util.concurrent.locks.LockSupport.parkNanos(5_000_000);
      }
      assertEquals(1, h2Helpers.getCompletedTaskCount(), "h2's step ended when h1 let the untaken stream go");
      assertArrayEquals(sum(), run(14, chain(at("h2"))));
      assertArrayEquals(new long[] {1, 0}, startedAhead("h1"), "nothing was left to take");
      assertEquals(2, cluster.transports.get("h2").acceptedConnections(), "the request reached h2 on its own");
    } finally {
      h2Helpers.shutdownNow();
    }
  }

  /**
   * A 6-helper chain (RS(6,3), pipelined): the requestor tells the 4 helpers between its head and its far end their
   * steps, each asks its upstream at once, and when the requests come down the chain each takes the stream it
   * started: every upstream accepts one connection, every helper reads its unit once, and the unit is rebuilt. The
   * head's request is held until every told helper's word has run (as a busy head's handshake would), so the order is
   * the one the mechanism is for.
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
    // The upstreams the words name: the far end's request comes from a told helper's start, and holding it would hold
    // that start. The head is the one helper neither told nor named.
    Set<Integer> namedUpstreams = ConcurrentHashMap.newKeySet();
    AtomicBoolean headSeen = new AtomicBoolean();
    TransportFaultInjector.set(new TransportFaultInjector() {
      @Override
      public void beforeScreen(String node, byte[] body) throws java.io.IOException {
        if (DialAheadRequest.isOne(body)) {
          DialAheadRequest.parse(body).step().upstreams().forEach(u -> namedUpstreams.add(u.endpoint().port()));
          told.add(node);
        } else if (!told.contains(node) && !namedUpstreams.contains(cluster.transports.get(node).port())
            && !headSeen.getAndSet(true)) { // the head's request: held until the told helpers hold their dials
          // At most 3 s, within the requestor's 5 s stall: a word that never ran fails the counts below, by name.
          long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
          while (System.nanoTime() < until && !(told.size() == 4
              && told.stream().allMatch(n -> cluster.steps.get(n).startedAheadCounts()[2] == 1))) {
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
      // A told helper's request may come from its downstream's start before its own word: then the word finds the
      // mark its step left and starts nothing ({0, 0, 1}). The helper below the held head is always told first.
      long started = 0;
      for (String n : told) {
        long[] c = cluster.steps.get(n).startedAheadCounts();
        assertTrue(java.util.Arrays.equals(c, new long[] {1, 1, 1}) || java.util.Arrays.equals(c, new long[] {0, 0, 1}),
            n + " started its upstream once when told and its request took that stream, or its request came first: "
                + java.util.Arrays.toString(c));
        started += c[0];
      }
      assertTrue(started >= 1, "at least the helper below the head started its upstream when told");
      Map<Long, Long> reads = new java.util.TreeMap<>();
      for (int u = 1; u < code.n(); u++) {
        reads.merge(cluster.counters.get("n" + u).localReads.get(), 1L, Long::sum);
      }
      assertEquals(Map.of((long) length, 6L, 0L, 2L), reads, "six helpers read their units once, the others nothing");
      long accepted = cluster.transports.entrySet().stream().filter(e -> !e.getKey().equals("req"))
          .mapToLong(e -> e.getValue().acceptedConnections()).sum();
      assertEquals(1 + 4 + 5, accepted, "the requestor's to the head and its four words, and one for each of the chain's "
          + "5 links: no helper dialled its upstream twice");
    } finally {
      TransportFaultInjector.set(null);
    }
  }

  /**
   * A word is answered before its upstream is even reached: it holds no helper thread (nor a background slot) while
   * the told helper connects, so words can never crowd out the requests they precede.
   */
  @Test
  void aWordIsAnsweredBeforeItsUpstreamIsReached() throws Exception {
    start();
    java.util.concurrent.CountDownLatch entered = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
    AtomicBoolean exited = new AtomicBoolean();
    TransportFaultInjector.set(new TransportFaultInjector() {
      @Override
      public void beforeChallenge(String node) { // h2 holds h1's connection before its handshake
        if (node.equals("h2")) {
          entered.countDown();
          try {
            release.await(10, TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          exited.set(true);
        }
      }
    });
    try (PeerStream told = cluster.transports.get("req").open(at("h1"), "req", "r1", 16,
        new DialAheadRequest(chain(at("h2"))).toBytes())) {
      told.awaitEnd();
    }
    assertTrue(entered.await(10, TimeUnit.SECONDS), "h1 dialled h2 for the word's step");
    assertEquals(false, exited.get(), "the word was answered while h2 still held h1's connection unanswered");
    release.countDown();
    TransportFaultInjector.set(null);
    assertArrayEquals(sum(), run(16, chain(at("h2"))), "the request took the started stream once h2 let it go");
    assertArrayEquals(new long[] {1, 1}, startedAhead("h1"));
  }

  @Test
  void aWordFailingTheStepsChecksAsksNothing() throws Exception {
    start();
    // An upstream named as a DataNode on another host than its slice port: the request itself would be refused.
    Endpoint elsewhere = new Endpoint("127.0.0.1", cluster.transports.get("h2").port(), new Site("10.9.9.9:9866", "r2"));
    PeerFailure e = assertThrows(PeerFailure.class, () -> {
      try (PeerStream told = cluster.transports.get("req").open(at("h1"), "req", "r1", 12,
          new DialAheadRequest(chain(elsewhere)).toBytes())) {
        told.awaitEnd();
      }
    });
    assertTrue(e.getMessage().contains("on another host than DataNode 10.9.9.9:9866"), e.getMessage());
    assertEquals(0, startedAhead("h1")[0], "nothing asked for a step the request's checks refuse");
    assertEquals(0, cluster.transports.get("h2").acceptedConnections());
  }
}
