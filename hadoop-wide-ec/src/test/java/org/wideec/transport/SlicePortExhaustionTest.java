package org.wideec.transport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.wideec.minicluster.Eventually;
import org.wideec.repair.BlockRef;
import org.wideec.engine.StepService;
import org.wideec.repair.ReplicaAccess;
import org.wideec.protocol.StepRequest;
import org.wideec.repair.UnitStore;
import org.wideec.topology.Endpoint;
import org.wideec.topology.Site;

/**
 * Hostile clients against real slice transports: nobody can hold more of a node's helper threads or connections than
 * its share, whatever names its requests carry and whichever DataNodes relay them, connections that never
 * authenticate give way to newcomers, and a request without authority or beyond a bound costs no thread.
 */
@ExtendWith(NettyLeakCheck.class)
class SlicePortExhaustionTest {
  static final byte[] SECRET = "the cluster secret of this test".getBytes(StandardCharsets.UTF_8);
  static final int SLICE = 4096;
  static final BlockRef UNIT = new BlockRef("bp", 1, 1, SLICE);
  /** A small slice port: 12 connections, 4 reserved for DataNodes, 3 per address that has not proved the secret. */
  static final PeerLimits SMALL_PORT = new PeerLimits(64, 12, 12, 60_000, 120_000, 8, 8, 10_000, 4, 3);
  /** A unit long enough that a stream nobody reads keeps its producers blocked on credits. */
  static final BlockRef LONG_UNIT = new BlockRef("bp", 2, 1, 4096L * SLICE);
  /**
   * Block tokens on, as a DataNode checks them: a reference's token ("mallory", "alice", or "dn" as DataNodes mint for
   * their own repairs) must be one of those, and names the client it runs for ("dn": none).
   */
  static final ReplicaAccess TOKENS_CHECKED = new ReplicaAccess() {
    @Override
    public void checkRead(BlockRef unit) throws IOException {
      if (!List.of("mallory", "alice", "dn").contains(new String(unit.token(), StandardCharsets.UTF_8))) {
        throw new ReplicaAccess.DeniedException("no valid block token for " + unit);
      }
    }

    @Override
    public String clientOf(BlockRef unit) {
      String owner = new String(unit.token(), StandardCharsets.UTF_8);
      return owner.equals("dn") ? null : owner;
    }
  };
  /** Two block tokens: identifier "mallory" or "alice", password = identifier reversed. */
  static final TokenKeys TOKENS = new TokenKeys() {
    @Override
    public byte[] passwordOf(byte[] id) throws Handshake.AuthenticationException {
      String owner = new String(id, StandardCharsets.UTF_8);
      if (!owner.equals("mallory") && !owner.equals("alice")) {
        throw new Handshake.AuthenticationException("block token refused: unknown key");
      }
      return password(owner);
    }

    @Override
    public String ownerOf(byte[] id) {
      return new String(id, StandardCharsets.UTF_8);
    }
  };

  private final CountDownLatch release = new CountDownLatch(1);
  private final List<AutoCloseable> open = new ArrayList<>();

  @AfterEach
  void tearDown() throws Exception {
    release.countDown();
    for (int i = open.size() - 1; i >= 0; i--) {
      open.get(i).close();
    }
  }

  static byte[] password(String owner) {
    byte[] p = owner.getBytes(StandardCharsets.UTF_8);
    for (int i = 0; i < p.length / 2; i++) {
      byte t = p[i];
      p[i] = p[p.length - 1 - i];
      p[p.length - 1 - i] = t;
    }
    return p;
  }

  static Credential token(String owner) {
    return Credential.token(owner.getBytes(StandardCharsets.UTF_8), password(owner));
  }

  private ThreadPoolExecutor threads(int n) {
    ThreadPoolExecutor t = new ThreadPoolExecutor(0, n, 1, TimeUnit.SECONDS, new SynchronousQueue<>());
    open.add(t::shutdownNow);
    return t;
  }

  private SliceTransport transport(String node, byte[] secret, PeerLimits limits, ThreadPoolExecutor workers)
      throws IOException {
    TransportConf conf = new TransportConf("127.0.0.1", 0, secret, SLICE, 2, 1 << 20, 30_000, 5000, TrafficShaper.OFF,
        null, limits);
    SliceTransport t = new SliceTransport(conf, node, TrafficCounters.NONE, workers, secret == null ? null : TOKENS);
    open.add(t::close);
    return t;
  }

  /** A helper whose store holds every unit as bytes 0, 1, 2, ... and reads it for any asker {@code access} admits. */
  private static StepService helper(SliceTransport t, ReplicaAccess access) {
    return helper(t, access, () -> {});
  }

  /** The same, running {@code beforeRead} before each read (a helper that blocks there holds its thread). */
  private static StepService helper(SliceTransport t, ReplicaAccess access, Runnable beforeRead) {
    UnitStore store = unit -> new UnitStore.Reader() {
      @Override
      public void read(long offset, byte[] dst, int off, int len) {
        beforeRead.run();
        for (int i = 0; i < len; i++) {
          dst[off + i] = (byte) (offset + i);
        }
      }

      @Override
      public void close() {}
    };
    return new StepService(t, store, access, null, new org.wideec.engine.RepairCounters() {
      @Override
      public void sliceSent(int bytes, boolean crossRack) {}

      @Override
      public void readLocally(long bytes) {}
    });
  }

  private static byte[] readAll(PeerStream s, int bytes) throws Exception {
    byte[] out = new byte[bytes];
    int at = 0;
    for (int i = 0; ; i++) {
      Frame f = s.nextOrEnd(i);
      if (f == null) {
        break;
      }
      try {
        int n = f.payload().readableBytes();
        f.payload().readBytes(out, at, n);
        at += n;
      } finally {
        f.release();
      }
      s.credit();
    }
    assertEquals(bytes, at);
    return out;
  }

  /** Bytes 0, 1, 2, ... of a unit, as every helper here stores it. */
  private static byte[] unitBytes(int n) {
    byte[] b = new byte[n];
    for (int i = 0; i < n; i++) {
      b[i] = (byte) i;
    }
    return b;
  }

  private static StepRequest step(BlockRef unit, String token, List<StepRequest.Upstream> ups) {
    return new StepRequest(unit.withToken(token.getBytes(StandardCharsets.UTF_8)), 1, unit.numBytes(), SLICE, 0, 1,
        ups);
  }

  /** Reads one unit's first slice from {@code port} as asked by {@code from}, proving {@code who}: bytes 0, 1, 2 ... */
  private static void assertReadsUnit(SliceTransport from, int port, long id, String token, Credential who)
      throws Exception {
    try (PeerStream s = from.open(new Endpoint("127.0.0.1", port, new Site("B", "/r")), from.node(), "/r", id,
        step(UNIT, token, List.of()).toBytes(), who)) {
      assertArrayEquals(unitBytes(SLICE), readAll(s, SLICE));
    }
  }

  @Test
  void aClientNamingFreshNodesInARelayedTreeIsCountedUnderItsOwnTokenAtTheNextHop() throws Exception {
    PeerLimits limits = new PeerLimits(64, 2048, 512, 60_000, 120_000, 2);
    // B: a DataNode whose helpers hold their thread (a slow disk) until the test ends.
    AtomicInteger entered = new AtomicInteger();
    SliceTransport b = transport("B", SECRET, limits, threads(8));
    int bPort = b.start(helper(b, TOKENS_CHECKED, () -> {
      entered.incrementAndGet();
      try {
        release.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }));
    // A: a DataNode serving steps; it relays a step's upstreams to B with its own credential.
    SliceTransport a = transport("A", SECRET, limits, threads(8));
    int aPort = a.start(helper(a, TOKENS_CHECKED));
    SliceTransport client = transport("client", null, limits, threads(1));

    // Mallory's one request names six upstreams at B, each under a fresh node name on B's host, each with her token.
    List<StepRequest.Upstream> ups = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      ups.add(new StepRequest.Upstream(new Endpoint("127.0.0.1", bPort, new Site("127.0.0.1:" + (20000 + i), "/r")),
          step(UNIT, "mallory", List.of())));
    }
    PeerStream mallory = client.open(new Endpoint("127.0.0.1", aPort, new Site("A", "/r")), "mallory", "/r", 1,
        step(UNIT, "mallory", ups).toBytes(), token("mallory"));
    open.add(mallory::close);
    Eventually.await("B decided every relayed request", Duration.ofSeconds(20),
        () -> entered.get() + b.refusedBusy() == 6);
    assertEquals(2, entered.get(), "B runs only Mallory's share of the relayed requests, whatever nodes they name");
    assertEquals(4, b.refusedBusy());
    assertEquals(2, b.requestsOf("token owner mallory"));
    assertEquals(0, b.requestsOf("DataNode A"), "the relaying DataNode's share at B is untouched");

    // Another DataNode asks B directly for its own repair: its share is free.
    SliceTransport c = transport("C", SECRET, limits, threads(1));
    PeerStream fromC = c.open(new Endpoint("127.0.0.1", bPort, new Site("B", "/r")), "C", "/r", 2,
        step(UNIT, "dn", List.of()).toBytes());
    open.add(fromC::close);
    Eventually.await("B serves DataNode C", Duration.ofSeconds(20), () -> entered.get() == 3);
    assertEquals(1, b.requestsOf("DataNode C"));

    // An honest client reads the unit from A, byte for byte.
    try (PeerStream alice = client.open(new Endpoint("127.0.0.1", aPort, new Site("A", "/r")), "alice", "/r", 3,
        step(UNIT, "alice", List.of()).toBytes(), token("alice"))) {
      assertArrayEquals(unitBytes(SLICE), readAll(alice, SLICE));
    }
  }

  @Test
  void oneClientRelayingThroughTwoDataNodesHoldsOnlyItsShareOfAThirdsHelperThreads() throws Exception {
    PeerLimits limits = new PeerLimits(64, 2048, 512, 60_000, 120_000, 2); // 2 requests per principal
    ThreadPoolExecutor bThreads = threads(4); // B: 4 helper threads, two principals' shares
    SliceTransport b = transport("B", SECRET, limits, bThreads);
    int bPort = b.start(helper(b, TOKENS_CHECKED));
    SliceTransport a1 = transport("A1", SECRET, limits, threads(8));
    int a1Port = a1.start(helper(a1, TOKENS_CHECKED));
    SliceTransport a2 = transport("A2", SECRET, limits, threads(8));
    int a2Port = a2.start(helper(a2, TOKENS_CHECKED));
    SliceTransport client = transport("client", null, limits, threads(1));

    // Mallory sends A1 and A2 one tree each, each naming two upstreams at B (a relaying DataNode's whole share there),
    // and never reads: A blocks on her credits, B's producers on A's.
    PeerStream[] trees = new PeerStream[2];
    int port = 20000;
    int[] relays = {a1Port, a2Port};
    for (int t = 0; t < 2; t++) {
      List<StepRequest.Upstream> ups = new ArrayList<>();
      for (int i = 0; i < 2; i++) {
        ups.add(new StepRequest.Upstream(new Endpoint("127.0.0.1", bPort, new Site("127.0.0.1:" + port++, "/r")),
            step(LONG_UNIT, "mallory", List.of())));
      }
      trees[t] = client.open(new Endpoint("127.0.0.1", relays[t], new Site("A" + (t + 1), "/r")), "mallory", "/r",
          10 + t, step(LONG_UNIT, "mallory", ups).toBytes(), token("mallory"));
      open.add(trees[t]::close);
      if (t == 0) {
        Eventually.await("B runs Mallory's first tree under her name", Duration.ofSeconds(20),
            () -> b.requestsOf("token owner mallory") == 2);
      }
    }
    // Her second tree finds her share at B taken, whichever DataNode relays it.
    PeerFailure refused = assertThrows(PeerFailure.class, () -> readAll(trees[1], 0));
    assertTrue(refused.getMessage().contains("token owner mallory already has 2 requests running here "
        + "(wide-ec.transport.max-requests-per-peer)"), refused.getMessage());
    assertEquals(2, b.requestsOf("token owner mallory"));
    assertEquals(0, b.requestsOf("DataNode A1"));
    assertEquals(0, b.requestsOf("DataNode A2"));
    assertEquals(2, bThreads.getActiveCount(), "Mallory holds her share of B's helper threads, no more");

    // Meanwhile DataNodes' own repairs and an honest client's read at B complete, byte for byte.
    SliceTransport c = transport("C", SECRET, limits, threads(1));
    assertReadsUnit(c, bPort, 20, "dn", c.credentialFor(new byte[0]));
    assertReadsUnit(a1, bPort, 21, "dn", a1.credentialFor(new byte[0]));
    assertReadsUnit(client, bPort, 22, "alice", token("alice"));
    assertEquals(2, b.requestsOf("token owner mallory"));
  }

  @Test
  void aClientIsCountedUnderItsTokensOwnerWhateverItNamesItself() throws Exception {
    PeerLimits limits = new PeerLimits(64, 2048, 512, 60_000, 120_000, 2);
    AtomicInteger entered = new AtomicInteger();
    SliceTransport server = transport("S", SECRET, limits, threads(8));
    int port = server.start((id, body, d) -> {
      entered.incrementAndGet();
      try {
        release.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      d.fail(null, "released");
    });
    SliceTransport client = transport("client", null, limits, threads(1));
    for (int i = 0; i < 5; i++) {
      PeerStream s = client.open(new Endpoint("127.0.0.1", port, new Site("S", "/r")), "node-" + i + ":9866", "/r", i,
          new byte[0], token("mallory"));
      open.add(s::close);
    }
    Eventually.await("every request decided", Duration.ofSeconds(20), () -> entered.get() + server.refusedBusy() == 5);
    assertEquals(2, entered.get());
    assertEquals(2, server.requestsOf("token owner mallory"));
    PeerStream alice = client.open(new Endpoint("127.0.0.1", port, new Site("S", "/r")), "x", "/r", 9, new byte[0],
        token("alice"));
    open.add(alice::close);
    Eventually.await("alice is served", Duration.ofSeconds(20), () -> entered.get() == 3);
  }

  @Test
  void aRequestWithoutAuthorityOrBeyondABoundTakesNoHelperThreadAndDialsNothing() throws Exception {
    ThreadPoolExecutor workers = threads(4);
    SliceTransport server = transport("S", SECRET, PeerLimits.DEFAULTS, workers);
    byte[] forged = "forged".getBytes(StandardCharsets.UTF_8);
    int port = server.start(helper(server, unit -> {
      if (Arrays.equals(unit.token(), forged)) {
        throw new ReplicaAccess.DeniedException("block token of " + unit + " refused: expired or forged");
      }
    }));
    SliceTransport client = transport("client", null, PeerLimits.DEFAULTS, threads(1));
    try (ServerSocketChannel outside = ServerSocketChannel.open()) {
      outside.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
      outside.configureBlocking(false);
      int outsidePort = ((InetSocketAddress) outside.getLocalAddress()).getPort();

      // A forged token inside the request.
      StepRequest forgedStep = new StepRequest(UNIT.withToken(forged), 1, SLICE, SLICE, 0, 1,
          List.of(new StepRequest.Upstream(new Endpoint("127.0.0.1", outsidePort, new Site("127.0.0.1:9866", "/r")),
              new StepRequest(UNIT, 1, SLICE, SLICE, 0, 1, List.of()))));
      PeerFailure denied = assertThrows(PeerFailure.class, () -> readAll(client.open(
          new Endpoint("127.0.0.1", port, new Site("S", "/r")), "c", "/r", 1, forgedStep.toBytes(),
          token("mallory")), 0));
      assertTrue(denied.getMessage().contains("refused: expired or forged"), denied.getMessage());

      // A tree of 1 + 16 + 256 steps: within depth and fan-out, beyond any stripe.
      List<StepRequest.Upstream> heads = new ArrayList<>();
      for (int i = 0; i < 16; i++) {
        List<StepRequest.Upstream> leaves = new ArrayList<>();
        for (int j = 0; j < 16; j++) {
          leaves.add(new StepRequest.Upstream(
              new Endpoint("127.0.0.1", outsidePort, new Site("127.0.0.1:" + (1000 + j), "/r")),
              new StepRequest(UNIT, 1, SLICE, SLICE, 0, 1, List.of())));
        }
        heads.add(new StepRequest.Upstream(
            new Endpoint("127.0.0.1", outsidePort, new Site("127.0.0.1:" + (2000 + i), "/r")),
            new StepRequest(UNIT, 1, SLICE, SLICE, 0, 1, leaves)));
      }
      StepRequest huge = new StepRequest(UNIT, 1, SLICE, SLICE, 0, 1, heads);
      PeerFailure big = assertThrows(PeerFailure.class, () -> readAll(client.open(
          new Endpoint("127.0.0.1", port, new Site("S", "/r")), "c", "/r", 2, huge.toBytes(), token("mallory")), 0));
      assertTrue(big.getMessage().contains("step request tree has 256 steps; at most 255"), big.getMessage());

      assertEquals(2, server.screenedOut());
      assertEquals(0, workers.getTaskCount(), "no helper thread was taken");
      assertNull(outside.accept(), "nothing was dialled");
    }
  }

  @Test
  void connectionsThatNeverProveTheClusterSecretCannotLockDataNodesOut() throws Exception {
    PeerLimits limits = SMALL_PORT;
    SliceTransport server = transport("S", SECRET, limits, threads(4));
    int port = server.start(sevens(3));

    // From one host: three connections that never finish the handshake; the fourth is refused.
    InetAddress stalling = InetAddress.getByName("127.0.0.2");
    for (int i = 0; i < 3; i++) {
      RawPeer p = new RawPeer(stalling, port, 10_000);
      open.add(p);
      assertEquals(FrameType.CHALLENGE, p.receive().type());
    }
    try (RawPeer fourth = new RawPeer(stalling, port, 10_000)) {
      assertRefused(fourth, "127.0.0.2 already has 3 connections here that are not DataNodes of this cluster "
          + "(wide-ec.transport.max-client-connections-per-host)");
    }
    // From three more hosts: token clients, up to the outsiders' share of 12 - 4 = 8: the sixth to eighth take the
    // places of the stalled handshakes (oldest first); the ninth handshakes in a reserved connection (the share holds
    // only clients) and is refused as a client.
    int clients = 0;
    for (int host = 3; host <= 5; host++) {
      for (int i = 0; i < 3; i++) {
        RawPeer p = new RawPeer(InetAddress.getByName("127.0.0." + host), port, 10_000);
        open.add(p);
        RawPeer.Received r = p.authenticate(token("mallory"));
        if (++clients <= 8) {
          assertEquals(FrameType.AUTH_OK, r.type());
        } else {
          assertEquals(FrameType.ERROR, r.type());
          assertTrue(r.text().contains("connections that are not DataNodes of this cluster (in their handshake, or "
              + "clients) already hold 8 slice connections here; the other 4 are reserved for this cluster's DataNodes"
              + " (wide-ec.transport.reserved-peer-connections)"), r.text());
          p.close();
        }
      }
    }
    Eventually.await("the refused client's connection closed", Duration.ofSeconds(20),
        () -> server.openConnections() == 8);
    assertEquals(3, server.evictedConnections(), "the stalled handshakes gave way to the clients");

    // A DataNode still connects and its stream completes, byte for byte.
    SliceTransport dataNode = transport("D", SECRET, limits, threads(1));
    try (PeerStream s = dataNode.open(new Endpoint("127.0.0.1", port, new Site("S", "/r")), "D", "/r", 1,
        new byte[0])) {
      assertSevens(readAll(s, 3 * SLICE));
    }
  }

  @Test
  void connectionsThatNeverAuthenticateFromManyAddressesGiveWayToADataNodeAndAClient() throws Exception {
    PeerLimits limits = SMALL_PORT;
    SliceTransport server = transport("S", SECRET, limits, threads(4));
    int port = server.start(sevens(3));
    // Four addresses, each within its cap, open three connections each and never answer the challenge.
    for (int host = 2; host <= 5; host++) {
      for (int i = 0; i < 3; i++) {
        RawPeer p = new RawPeer(InetAddress.getByName("127.0.0." + host), port, 10_000);
        open.add(p);
        assertEquals(FrameType.CHALLENGE, p.receive().type());
      }
    }
    assertEquals(8, server.openConnections(), "unproven connections hold at most the 12 - 4 unreserved");
    assertEquals(4, server.evictedConnections(), "the oldest handshakes gave way to the newest");

    // A DataNode that never reached this node before connects (the oldest stalled handshake gives way) and its
    // stream completes byte for byte; so does a client's, once the DataNode's address proved the secret.
    SliceTransport dataNode = transport("D", SECRET, limits, threads(1));
    try (PeerStream s = dataNode.open(new Endpoint("127.0.0.1", port, new Site("S", "/r")), "D", "/r", 1,
        new byte[0])) {
      assertSevens(readAll(s, 3 * SLICE));
    }
    SliceTransport client = transport("client", null, limits, threads(1));
    try (PeerStream s = client.open(new Endpoint("127.0.0.1", port, new Site("S", "/r")), "alice", "/r", 2, new byte[0],
        token("alice"))) {
      assertSevens(readAll(s, 3 * SLICE));
    }
    assertEquals(5, server.evictedConnections());
  }

  @Test
  void theNameNodesOrdersAreRefusedToAClientBeforeTheyTakeAHelperThread() throws Exception {
    ThreadPoolExecutor workers = threads(2);
    SliceTransport server = transport("S", SECRET, PeerLimits.DEFAULTS, workers);
    int port = server.start(RequestHandler.clusterOnly("order pins", sevens(1)));
    SliceTransport client = transport("client", null, PeerLimits.DEFAULTS, threads(1));
    PeerFailure refused = assertThrows(PeerFailure.class, () -> readAll(client.open(
        new Endpoint("127.0.0.1", port, new Site("S", "/r")), "c", "/r", 1, new byte[0], token("mallory")), 0));
    assertTrue(refused.getMessage().contains("S refused the request: only a peer that proved the cluster secret "
        + "(wide-ec.transport.secret) may order pins"), refused.getMessage());
    assertEquals(1, server.screenedOut());
    assertEquals(0, workers.getTaskCount(), "no helper thread was taken");

    SliceTransport dataNode = transport("D", SECRET, PeerLimits.DEFAULTS, threads(1));
    try (PeerStream s = dataNode.open(new Endpoint("127.0.0.1", port, new Site("S", "/r")), "D", "/r", 2,
        new byte[0])) {
      assertSevens(readAll(s, SLICE));
    }
  }

  /** Answers every request with {@code slices} slices of sevens. */
  private static RequestHandler sevens(int slices) {
    return (id, body, d) -> Producers.sendAll(d, slices, s -> {
      byte[] b = new byte[SLICE];
      Arrays.fill(b, (byte) 7);
      return Unpooled.wrappedBuffer(b);
    });
  }

  private static void assertSevens(byte[] all) {
    byte[] sevens = new byte[all.length];
    Arrays.fill(sevens, (byte) 7);
    assertArrayEquals(sevens, all);
  }

  private static void assertRefused(RawPeer p, String why) throws IOException {
    RawPeer.Received r;
    do {
      r = p.receive();
    } while (r != null && r.type() != FrameType.ERROR);
    assertTrue(r != null && r.text().contains(why), "refused with '" + why + "', got " + (r == null ? "a close" : r.text()));
  }
}
