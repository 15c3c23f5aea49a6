package org.wideec.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.wideec.minicluster.Eventually;

/** Every bound a peer meets on a slice port: connections, handshake and idle time, credits, requests, threads. */
@org.junit.jupiter.api.extension.ExtendWith(org.wideec.transport.NettyLeakCheck.class)
class PeerLimitsTest {
  private final CountDownLatch release = new CountDownLatch(1);
  private final ThreadPoolExecutor workers = new ThreadPoolExecutor(0, 2, 1, TimeUnit.SECONDS, new SynchronousQueue<>());
  private SliceTransport server;

  @AfterEach
  void tearDown() {
    release.countDown();
    if (server != null) {
      server.close();
    }
    workers.shutdownNow();
  }

  /** An anonymous server (auth=none) whose requests hold their helper thread until the test ends. */
  private int start(PeerLimits limits) throws IOException {
    TransportConf conf = new TransportConf("127.0.0.1", 0, null, 4096, 2, 1 << 20, 5000, 3000, TrafficShaper.OFF, null,
        limits);
    server = new SliceTransport(conf, "server", TrafficCounters.NONE, workers);
    return server.start((id, body, d) -> {
      try {
        release.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      d.end();
    });
  }

  private static PeerLimits limits(int credits, int perHost, long handshakeMs, long idleMs, int perPeer) {
    return new PeerLimits(credits, 100, perHost, handshakeMs, idleMs, perPeer);
  }

  private static void assertRefused(RawPeer p, String why) throws IOException {
    RawPeer.Received r;
    do {
      r = p.receive();
    } while (r != null && r.type() != FrameType.ERROR);
    assertTrue(r != null && r.text().contains(why), "refused with '" + why + "', got " + (r == null ? "a close" : r.text()));
  }

  @Test
  void aHostGetsNoMoreConnectionsThanItsShare() throws IOException {
    int port = start(limits(8, 2, 10_000, 60_000, 8));
    try (RawPeer a = new RawPeer(port, 5000); RawPeer b = new RawPeer(port, 5000); RawPeer c = new RawPeer(port, 5000)) {
      assertEquals(FrameType.CHALLENGE, a.receive().type());
      assertEquals(FrameType.CHALLENGE, b.receive().type());
      assertRefused(c, "already has 2 slice connections");
    }
    awaitConnections(0); // closed connections give their share back
    try (RawPeer again = new RawPeer(port, 5000)) {
      assertEquals(FrameType.CHALLENGE, again.receive().type());
    }
  }

  private void awaitConnections(int n) {
    Eventually.await("connections closed down to " + n, Duration.ofSeconds(5), server::openConnections,
        open -> open <= n);
  }

  @Test
  void aPeerThatNeverAsksIsRefusedAfterTheHandshakeTimeout() throws IOException {
    int port = start(limits(8, 8, 300, 60_000, 8));
    try (RawPeer p = new RawPeer(port, 5000)) {
      assertEquals(FrameType.CHALLENGE, p.receive().type());
      long t0 = System.nanoTime();
      assertRefused(p, "no authenticated request within 300 ms");
      assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(4));
    }
  }

  @Test
  void aSilentConnectionIsClosedAfterTheIdleTimeout() throws IOException {
    int port = start(limits(8, 8, 60_000, 300, 8));
    try (RawPeer p = new RawPeer(port, 5000)) {
      assertEquals(FrameType.CHALLENGE, p.receive().type());
      assertNull(p.receive(), "closed");
    }
  }

  @Test
  void aConsumerCannotGrantMoreThanTheCreditBound() throws IOException {
    int port = start(limits(8, 8, 60_000, 60_000, 8));
    try (RawPeer p = new RawPeer(port, 5000)) {
      assertEquals(FrameType.AUTH_OK, p.anonymousRequest(new byte[0]).type());
      p.send(FrameType.CREDIT, 8, new byte[0]);
      p.send(FrameType.CREDIT, 1, new byte[0]);
      assertRefused(p, "credits beyond the 8 allowed");
    }
  }

  @Test
  void onePeerHoldsAtMostItsShareOfHelperThreadsAndAFullNodeSaysSo() throws IOException {
    int port = start(limits(8, 8, 60_000, 60_000, 1));
    try (RawPeer first = new RawPeer(port, 5000); RawPeer second = new RawPeer(port, 5000)) {
      first.anonymousRequest(new byte[0]);
      awaitActive(1);
      second.anonymousRequest(new byte[0]);
      assertRefused(second, "already has 1 requests running here");
    }
  }

  @Test
  void whenEveryHelperThreadIsBusyARequestIsRefusedNotQueued() throws IOException {
    int port = start(limits(8, 8, 60_000, 60_000, 8));
    try (RawPeer a = new RawPeer(port, 5000); RawPeer b = new RawPeer(port, 5000); RawPeer c = new RawPeer(port, 5000)) {
      a.anonymousRequest(new byte[0]);
      b.anonymousRequest(new byte[0]);
      awaitActive(2);
      c.anonymousRequest(new byte[0]);
      assertRefused(c, "has no free helper thread");
    }
  }

  private void awaitActive(int n) {
    Eventually.await(n + " requests reached the helper threads", Duration.ofSeconds(5), workers::getActiveCount,
        active -> active >= n);
  }

  @Test
  void beforeAuthenticatingAPeerCanAnnounceOnlyASmallFrame() throws IOException {
    int port = start(limits(8, 8, 60_000, 60_000, 8));
    try (RawPeer p = new RawPeer(port, 5000)) {
      assertEquals(FrameType.CHALLENGE, p.receive().type());
      p.send(FrameType.AUTH, 0, new byte[FrameAuth.HANDSHAKE_FRAME + 1]);
      assertNull(p.receive(), "a connection announcing a large frame before authenticating is dropped unbuffered");
    }
  }

  @Test
  void anAddressThatProvedTheSecretHandshakesInAReservedConnectionAndTheOldestStrangerGivesWay() throws Exception {
    // 4 connections, 2 reserved for DataNodes.
    PeerLimits.Gate gate = new PeerLimits(64, 4, 4, 10_000, 60_000, 8, 8, 10_000, 2, 4).gate();
    List<String> evicted = new ArrayList<>();
    PeerLimits.Gate.Place dataNode = gate.admitConnection("10.0.0.1", () -> evicted.add("dataNode"));
    assertTrue(gate.provedPeer(dataNode));
    PeerLimits.Gate.Place first = gate.admitConnection("10.0.0.9", () -> evicted.add("first"));
    gate.admitConnection("10.0.0.9", () -> evicted.add("second"));
    // The DataNode's address reconnects into the last reserved connection; nobody gives way.
    PeerLimits.Gate.Place again = gate.admitConnection("10.0.0.1", () -> evicted.add("again"));
    assertEquals(List.of(), evicted);
    assertEquals(4, gate.connections());
    // A newcomer from elsewhere: the oldest stranger's handshake gives way, and its late proof counts for nothing.
    gate.admitConnection("10.0.0.8", () -> evicted.add("third"));
    assertEquals(List.of("first"), evicted);
    assertEquals(4, gate.connections());
    assertFalse(gate.provedPeer(first));
    // Authenticating as a client, the reconnection must fit the 4 - 2 unreserved connections: they are full.
    assertTrue(gate.admitClient(again).contains("already hold 2 slice connections here; the other 2 are reserved for "
        + "this cluster's DataNodes (wide-ec.transport.reserved-peer-connections)"));
    gate.releaseConnection(again);
    gate.releaseConnection(first); // released once, by its eviction
    assertEquals(3, gate.connections());
  }
}
