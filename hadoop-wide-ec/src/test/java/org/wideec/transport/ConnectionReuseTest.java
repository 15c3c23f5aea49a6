package org.wideec.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.wideec.minicluster.Eventually;
import org.wideec.topology.Endpoint;
import org.wideec.topology.Site;

/**
 * Authenticated connections are kept and reused: a stream read to its END leaves its connection for the next
 * request to the same peer (one handshake for many streams, frames still tagged under the session's keys), a stream
 * left early retires it, a kept connection the peer dropped is replaced once without the caller noticing, a refusal
 * on a kept connection is not retried, and kept connections are closed after the pool's idle time.
 */
@ExtendWith(NettyLeakCheck.class)
class ConnectionReuseTest {
  static final byte[] SECRET = "a cluster secret for reuse tests".getBytes(StandardCharsets.UTF_8);
  static final int SLICE = 4096;
  static final int SLICES = 6;

  private final ExecutorService workers = Executors.newCachedThreadPool();
  private final List<SliceTransport> transports = new ArrayList<>();
  private final AtomicInteger requests = new AtomicInteger();

  @AfterEach
  void tearDown() {
    transports.forEach(SliceTransport::close);
    workers.shutdownNow();
  }

  private SliceTransport transport(String node, PeerLimits limits) throws IOException {
    TransportConf conf = new TransportConf("127.0.0.1", 0, SECRET, SLICE, 4, 1 << 16, 5000, 5000, TrafficShaper.OFF,
        null, limits);
    SliceTransport t = new SliceTransport(conf, node, TrafficCounters.NONE, workers);
    transports.add(t);
    return t;
  }

  /** Serves SLICES slices whose bytes are the request's first byte plus the slice number; refuses a body of 0xff. */
  private int serve(SliceTransport t) throws IOException {
    return t.start((id, body, d) -> {
      requests.incrementAndGet();
      if (body[0] == (byte) 0xff) {
        d.fail(d.selfNode(), d.selfNode() + " will not serve this one");
        return;
      }
      Producers.sendAll(d, SLICES, s -> {
        ByteBuf b = d.alloc().heapBuffer(SLICE);
        b.writerIndex(SLICE);
        java.util.Arrays.fill(b.array(), b.arrayOffset(), b.arrayOffset() + SLICE, (byte) (body[0] + s));
        return b;
      });
    });
  }

  /** Reads a whole stream and checks every byte. */
  private static void readWhole(SliceTransport client, Endpoint at, int request) throws Exception {
    readWhole(client.open(at, "client", "/r2", request, new byte[] {(byte) request}), request);
  }

  /** Reads a whole stream opened with a body of {@code request}, checks every byte and closes it. */
  private static void readWhole(PeerStream stream, int request) throws Exception {
    try (PeerStream s = stream) {
      for (int i = 0; i < SLICES; i++) {
        Frame f = s.next(i);
        try {
          assertEquals(SLICE, f.payload().readableBytes());
          for (int b = 0; b < SLICE; b++) {
            assertEquals((byte) (request + i), f.payload().getByte(f.payload().readerIndex() + b), "slice " + i);
          }
        } finally {
          f.release();
        }
        s.credit();
      }
      s.awaitEnd();
    }
  }

  @Test
  void aStreamReadToItsEndLeavesItsConnectionForTheNextRequest() throws Exception {
    SliceTransport server = transport("server", PeerLimits.DEFAULTS);
    Endpoint at = new Endpoint("127.0.0.1", serve(server), new Site("server", "/r1"));
    SliceTransport client = transport("client", PeerLimits.DEFAULTS);
    for (int r = 0; r < 20; r++) {
      readWhole(client, at, r);
    }
    assertEquals(20, requests.get());
    assertEquals(1, server.acceptedConnections(), "one connection and one handshake for twenty streams");
    assertEquals(1, client.keptConnections());
    assertEquals(1, server.openConnections());
  }

  @Test
  void aStreamLeftEarlyRetiresItsConnection() throws Exception {
    SliceTransport server = transport("server", PeerLimits.DEFAULTS);
    Endpoint at = new Endpoint("127.0.0.1", serve(server), new Site("server", "/r1"));
    SliceTransport client = transport("client", PeerLimits.DEFAULTS);
    try (PeerStream s = client.open(at, "client", "/r2", 1, new byte[] {1})) {
      s.next(0).release(); // the producer may still be sending: the connection cannot carry another stream
    }
    assertEquals(0, client.keptConnections());
    readWhole(client, at, 2);
    assertEquals(2, server.acceptedConnections());
  }

  @Test
  void aKeptConnectionThePeerDroppedIsReplacedOnce() throws Exception {
    SliceTransport server = transport("server", PeerLimits.DEFAULTS);
    int port = serve(server);
    try (DroppingRelay relay = new DroppingRelay(port)) {
      Endpoint at = new Endpoint("127.0.0.1", relay.port(), new Site("server", "/r1"));
      SliceTransport client = transport("client", PeerLimits.DEFAULTS);
      readWhole(client, at, 1);
      assertEquals(1, client.keptConnections());
      // The relay drops the kept connection as its second request arrives, as a peer that timed it out would.
      readWhole(client, at, 2);
      assertEquals(1, relay.dropped(), "the kept connection was dropped under the second request");
      assertEquals(2, server.acceptedConnections(), "and the request was asked again on a new connection");
      assertEquals(2, requests.get());
    }
  }

  @Test
  void aRefusalOnAKeptConnectionIsNotRetried() throws Exception {
    SliceTransport server = transport("server", PeerLimits.DEFAULTS);
    Endpoint at = new Endpoint("127.0.0.1", serve(server), new Site("server", "/r1"));
    SliceTransport client = transport("client", PeerLimits.DEFAULTS);
    readWhole(client, at, 1);
    try (PeerStream s = client.open(at, "client", "/r2", 2, new byte[] {(byte) 0xff})) {
      PeerFailure f = assertThrows(PeerFailure.class, () -> s.next(0));
      assertEquals("server will not serve this one", f.getMessage());
      assertEquals("server", f.culprit());
    }
    assertEquals(2, requests.get(), "asked once");
    assertEquals(1, server.acceptedConnections());
    assertEquals(0, client.keptConnections(), "a connection that carried an ERROR is retired");
  }

  /** Peers named {@code nodes}, each serving ({@link #serve}). */
  private List<SliceTransport> servers(String... nodes) throws IOException {
    List<SliceTransport> out = new ArrayList<>();
    for (String node : nodes) {
      SliceTransport t = transport(node, PeerLimits.DEFAULTS);
      serve(t);
      out.add(t);
    }
    return out;
  }

  /** Where a serving peer listens, in rack /r1. */
  private static Endpoint at(SliceTransport t) {
    return new Endpoint("127.0.0.1", t.port(), new Site(t.node(), "/r1"));
  }

  /** A stream of {@link SliceTransport#openAll} asking {@code at} with a body of {@code request}. */
  private static SliceTransport.Ask ask(SliceTransport client, Endpoint at, int request) {
    return new SliceTransport.Ask(at, new byte[] {(byte) request}, client.ownCredential(), 4);
  }

  @Test
  void streamsOpenedTogetherEachTakeAConnectionAndKeepItForTheNextOpen() throws Exception {
    List<SliceTransport> peers = servers("a", "b");
    Endpoint atA = at(peers.get(0));
    Endpoint atB = at(peers.get(1));
    SliceTransport client = transport("client", PeerLimits.DEFAULTS);
    for (int round = 0; round < 2; round++) {
      List<PeerStream> streams = client.openAll("client", "/r2", round, List.of(ask(client, atA, 10 + round),
          ask(client, atB, 20 + round), ask(client, atA, 30 + round)));
      assertEquals(List.of(atA, atB, atA), streams.stream().map(PeerStream::peer).toList(), "in the asks' order");
      readWhole(streams.get(0), 10 + round);
      readWhole(streams.get(1), 20 + round);
      readWhole(streams.get(2), 30 + round);
    }
    assertEquals(6, requests.get());
    assertEquals(List.of(2L, 1L), List.of(peers.get(0).acceptedConnections(), peers.get(1).acceptedConnections()),
        "two streams at a time to a, one to b: the second round reused the first's connections");
    assertEquals(3, client.keptConnections());
  }

  /**
   * Streams opened together fail together: a peer that cannot be reached fails the call under its name, and no stream
   * of the call is left open or kept, at either end, whatever the other peers' connections had got to.
   */
  @Test
  void streamsOpenedTogetherFailWholeNamingThePeerThatCouldNotBeReached() throws Exception {
    List<SliceTransport> peers = servers("a", "b");
    Endpoint atA = at(peers.get(0));
    Endpoint atB = at(peers.get(1));
    int closed;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      closed = s.getLocalPort(); // nothing listens there once it is closed: the connect is refused
    }
    Endpoint gone = new Endpoint("127.0.0.1", closed, new Site("gone", "/r1"));
    SliceTransport client = transport("client", PeerLimits.DEFAULTS);
    PeerFailure f = assertThrows(PeerFailure.class, () -> client.openAll("client", "/r2", 1,
        List.of(ask(client, atA, 1), ask(client, gone, 2), ask(client, atB, 3))));
    assertEquals("gone", f.culprit());
    assertTrue(f.getMessage().startsWith("cannot connect to "), f.getMessage());
    assertEquals(0, client.keptConnections());
    Eventually.await("no connection of the call left open at a or b", Duration.ofSeconds(5),
        () -> List.of(peers.get(0).openConnections(), peers.get(1).openConnections()), List.of(0, 0)::equals);
    // The client is whole: the same streams without the lost peer open and carry every byte.
    List<PeerStream> streams = client.openAll("client", "/r2", 2, List.of(ask(client, atA, 4), ask(client, atB, 5)));
    readWhole(streams.get(0), 4);
    readWhole(streams.get(1), 5);
  }

  @Test
  void keptConnectionsCloseAfterThePoolsIdleTime() throws Exception {
    PeerLimits shortPool = new PeerLimits(64, 2048, 512, 10_000, 120_000, 32, 8, 200);
    SliceTransport server = transport("server", PeerLimits.DEFAULTS);
    Endpoint at = new Endpoint("127.0.0.1", serve(server), new Site("server", "/r1"));
    SliceTransport client = transport("client", shortPool);
    readWhole(client, at, 1);
    assertEquals(1, client.keptConnections());
    Eventually.await("no connection kept or open (kept, open at the server)", Duration.ofSeconds(5),
        () -> List.of(client.keptConnections(), server.openConnections()), List.of(0, 0)::equals);
    readWhole(client, at, 2);
    assertEquals(2, server.acceptedConnections());
  }

  @Test
  void noConnectionIsKeptWhenReuseIsOff() throws Exception {
    PeerLimits noPool = new PeerLimits(64, 2048, 512, 10_000, 120_000, 32, 0, 0);
    SliceTransport server = transport("server", PeerLimits.DEFAULTS);
    Endpoint at = new Endpoint("127.0.0.1", serve(server), new Site("server", "/r1"));
    SliceTransport client = transport("client", noPool);
    readWhole(client, at, 1);
    readWhole(client, at, 2);
    assertEquals(0, client.keptConnections());
    assertEquals(2, server.acceptedConnections());
  }

  @Test
  void aPoolIdleTimeAtOrAboveTheIdleTimeoutIsRefused() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> new PeerLimits(64, 2048, 512, 10_000, 5_000, 32, 8, 5_000));
    assertTrue(e.getMessage().startsWith(PeerLimits.POOL_IDLE + "=5000 must be below " + PeerLimits.IDLE_TIMEOUT),
        e.getMessage());
  }

  /**
   * Relays connections to a slice port and drops a connection (both sides, nothing forwarded) when its consumer sends
   * a second REQUEST on it: a kept connection that dies just as it is reused.
   */
  static final class DroppingRelay implements AutoCloseable {
    private final ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    private final AtomicInteger dropped = new AtomicInteger();

    DroppingRelay(int target) throws IOException {
      TamperingRelay.relayAll(server, target, "dropping-relay", this::requests, TamperingRelay.COPY);
    }

    int port() {
      return server.getLocalPort();
    }

    int dropped() {
      return dropped.get();
    }

    /** Copies the consumer's frames (AUTH untagged, the rest tagged) until its second REQUEST. */
    private void requests(InputStream from, OutputStream to) throws IOException {
      DataInputStream in = new DataInputStream(from);
      int seen = 0;
      int tagBytes = 0;
      for (int frame = 0; ; frame++) {
        byte[] header = new byte[FrameCodec.HEADER];
        in.readFully(header);
        int len = ByteBuffer.wrap(header, 16, 4).getInt();
        byte[] rest = new byte[len + (frame >= 1 ? tagBytes : 0)];
        if (frame == 0) { // the AUTH: its index is the frame MAC the consumer picked
          tagBytes = FrameMac.ofId(ByteBuffer.wrap(header, 12, 4).getInt()).tagLength();
        }
        in.readFully(rest);
        if (header[3] == FrameType.REQUEST.ordinal() && ++seen == 2) {
          dropped.incrementAndGet();
          throw new IOException("dropped");
        }
        to.write(header);
        to.write(rest);
        to.flush();
      }
    }

    @Override
    public void close() throws IOException {
      server.close();
    }
  }
}
