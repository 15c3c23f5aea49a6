package org.wideec.transport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.wideec.minicluster.Eventually;
import org.wideec.time.Backoff;
import org.wideec.topology.Endpoint;
import org.wideec.topology.Site;

/**
 * Hostile peers on a live slice port, at the socket level: random bytes and mutated frames before the handshake, a
 * mutated AUTH, and after a real handshake (anonymous, or the cluster secret with tagged frames) protocol frames in
 * any order with any values, mutated or not. Whatever a peer sends, the server must end the connection (an ERROR
 * and a close, or a close) within a bound, and afterwards still serve a legitimate client, give back every
 * connection and request slot, and release every buffer. Each case's choices and mutations are fixed by the seed and
 * the case number (the failure names both), whatever the threads' timing; only the handshake's nonces are fresh.
 *
 * <p>Only {@link #authenticate} and {@link #session} know the handshake and the frame keys: adapt them if those change.
 */
@ExtendWith(NettyLeakCheck.class)
class ServerFuzzTest {
  static final long SEED = Long.getLong("wideec.fuzz.seed", 20261123L);
  static final int CONNECTIONS = Integer.getInteger("wideec.fuzz.connections", 600);
  static final int BATCH = 50;
  static final int THREADS = 8; // peers mostly wait for the server to end them
  static final int REQUESTS_PER_PEER = 4;
  // However a server refuses, a hostile connection ends well within this (handshake and idle timeouts are 150 ms).
  static final int END_WITHIN_MS = 5000;
  static final byte[] SECRET = "a cluster secret for fuzzing".getBytes(StandardCharsets.UTF_8);

  static final String REFUSED = "refused the connection: ";
  // Why the server refused, over all cases: the fuzzer must reach the protocol's checks, not only the framing's.
  static final java.util.concurrent.ConcurrentHashMap<String, Integer> REASONS = new java.util.concurrent.ConcurrentHashMap<>();

  private final UnpooledByteBufAllocator slices = new UnpooledByteBufAllocator(true); // counts what producers hold

  private static TransportConf conf(boolean keyed) {
    return new TransportConf("127.0.0.1", 0, keyed ? SECRET : null, 4096, 2, 1 << 16, 2000, 2000, TrafficShaper.OFF, null,
        new PeerLimits(64, 2048, 512, 150, 150, REQUESTS_PER_PEER));
  }

  @ParameterizedTest(name = "keyed {0}")
  @ValueSource(booleans = {false, true})
  void aServerEndsEveryHostileConnectionAndKeepsServing(boolean keyed) throws Exception {
    REASONS.clear();
    byte[] unit = new byte[9000];
    new Random(SEED).nextBytes(unit);
    ExecutorService workers = Executors.newCachedThreadPool();
    ExecutorService peers = Executors.newFixedThreadPool(THREADS);
    try (SliceTransport server = new SliceTransport(conf(keyed), "server", TrafficCounters.NONE, workers);
         SliceTransport client = new SliceTransport(conf(keyed), "client", TrafficCounters.NONE, workers)) {
      int port = server.start((id, body, d) -> {
        try {
          d.send(0, slices.directBuffer(unit.length).writeBytes(unit));
          d.end();
        } catch (IOException e) {
          d.fail(null, e.getMessage());
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      });
      for (int from = 0; from < CONNECTIONS; from += BATCH) {
        List<Future<?>> batch = new ArrayList<>();
        for (int c = from; c < Math.min(CONNECTIONS, from + BATCH); c++) {
          int at = c;
          batch.add(peers.submit(() -> {
            hostile(port, keyed, at);
            return null;
          }));
        }
        for (Future<?> f : batch) {
          f.get();
        }
        awaitConnections(server, 0, "after " + (from + BATCH) + " hostile connections");
        // Every request slot was given back: as many streams as a peer may run at once are all served.
        serve(client, port, unit, REQUESTS_PER_PEER);
      }
    } finally {
      peers.shutdownNow();
      workers.shutdownNow();
      assertTrue(workers.awaitTermination(10, TimeUnit.SECONDS), "producers ended");
    }
    assertEquals(0, slices.metric().usedDirectMemory(), "every slice a producer allocated was released");
    System.out.println("refusals of the " + (keyed ? "keyed" : "open") + " server: " + new java.util.TreeMap<>(REASONS));
    for (String check : List.of("expected AUTH", "CREDIT before REQUEST", "credits beyond", "while a stream is running",
        "unexpected", "malformed REQUEST", keyed ? "peer failed authentication" : "malformed AUTH")) {
      assertTrue(REASONS.keySet().stream().anyMatch(k -> k.contains(check)), "the fuzzer reached '" + check + "': " + REASONS);
    }
  }

  /** {@code n} legitimate streams at once, each of which must deliver the unit. */
  private static void serve(SliceTransport client, int port, byte[] unit, int n) throws Exception {
    Endpoint server = new Endpoint("127.0.0.1", port, new Site("server", "/r"));
    Backoff retry = Backoff.doubling(20, 20, 5_000);
    while (true) {
      List<PeerStream> open = new ArrayList<>();
      try {
        for (int i = 0; i < n; i++) {
          open.add(client.open(server, "client", "/r", i, new byte[0]));
        }
        for (PeerStream s : open) {
          Frame f = s.next(0);
          try {
            assertArrayEquals(unit, f.payloadBytes(), "still serving");
          } finally {
            f.release();
          }
          s.credit();
          s.awaitEnd();
        }
        return;
      } catch (PeerFailure e) {
        // A producer of a hostile request may take a moment to see its peer gone and give its slot back, and a loaded
        // machine may miss the short handshake timeout once; a server that still refuses after seconds is broken.
        if (retry.expired()) {
          throw e;
        }
        retry.pause();
      } finally {
        open.forEach(PeerStream::close);
      }
    }
  }

  private static void awaitConnections(SliceTransport server, int n, String when) {
    Eventually.await(when + ": at most " + n + " connections counted", Duration.ofSeconds(5),
        server::openConnections, open -> open <= n);
  }

  /** One hostile connection; what it sends depends only on the seed, the server kind and the case. */
  private static void hostile(int port, boolean keyed, int c) throws IOException {
    String where = "case " + c + " against the " + (keyed ? "keyed" : "open") + " server (seed " + SEED + ")";
    Random r = new Random(SEED * 1_000_003L + (keyed ? 500_000 : 0) + c);
    try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
      s.setSoTimeout(END_WITHIN_MS);
      InputStream in = s.getInputStream();
      OutputStream out = s.getOutputStream();
      byte[] send;
      try {
        switch (r.nextInt(3)) {
          case 0 -> { // before any handshake: anything at all
            int how = r.nextInt(3);
            send = how == 0 ? ProtocolFuzzTest.random(r, 600) : how == 1 ? ProtocolFuzzTest.frames(r, FrameAuth.none())
                : ProtocolFuzzTest.mutate(ProtocolFuzzTest.frames(r, FrameAuth.none()), r);
          }
          case 1 -> { // an AUTH that is not quite right (or, now and then, right: then anything after it)
            byte[] challenge = readUntagged(in, FrameType.CHALLENGE, where);
            Credential cred = keyed ? Credential.cluster(SECRET) : Credential.anonymous();
            byte[] auth = Handshake.clientResponse(cred, challenge, Handshake.nonce());
            // Mutated inside a well-formed frame (so the handshake itself sees it) or on the wire (the framing does).
            send = r.nextBoolean() ? encode(new FrameAuth(), List.of(Frame.bytes(FrameType.AUTH, 0, ProtocolFuzzTest.mutate(auth, r))))
                : ProtocolFuzzTest.mutate(encode(new FrameAuth(), List.of(Frame.bytes(FrameType.AUTH, 0, auth))), r);
          }
          default -> { // a real session, then protocol frames in any order with any values, mutated or not
            FrameAuth session = authenticate(in, out, keyed, where);
            byte[] frames = encode(session, protocolFrames(r));
            // Well-formed frames carry the protocol's own violations; mutated bytes, the framing's and the tags'.
            send = r.nextBoolean() ? frames : ProtocolFuzzTest.mutate(frames, r);
          }
        }
        out.write(send);
        out.flush();
        if (r.nextBoolean()) {
          s.shutdownOutput(); // and nothing more: the server sees the end of input rather than silence
        }
      } catch (SocketTimeoutException e) {
        throw new AssertionError(where + ": the server sent no challenge or answer within " + END_WITHIN_MS + " ms", e);
      } catch (IOException refusedAlready) {
        // the server closed while we were still sending: a refusal
      }
      drainToEnd(in, where);
    }
  }

  /**
   * Reads whatever the server sends until it ends the connection; it must, within the bound. Notes the reason of a
   * refusal (an ERROR's text is plain in the stream, tagged or not), to show which checks the fuzzer reached.
   */
  private static void drainToEnd(InputStream in, String where) {
    long start = System.nanoTime();
    java.io.ByteArrayOutputStream got = new java.io.ByteArrayOutputStream();
    byte[] sink = new byte[4096];
    try {
      for (int n; (n = in.read(sink)) >= 0; ) {
        if (got.size() < (1 << 16)) {
          got.write(sink, 0, n);
        }
        if (System.nanoTime() - start > TimeUnit.MILLISECONDS.toNanos(END_WITHIN_MS)) {
          fail(where + ": the server kept the connection open (and talking) for " + END_WITHIN_MS + " ms");
        }
      }
    } catch (SocketTimeoutException e) {
      fail(where + ": the server neither refused nor closed the connection within " + END_WITHIN_MS + " ms");
    } catch (IOException reset) {
      // closed with our bytes unread: a refusal
    }
    // The ERROR's payload is "server\tserver refused the connection: why"; its length is in the header before it.
    byte[] bytes = got.toByteArray();
    String text = new String(bytes, StandardCharsets.ISO_8859_1);
    int at = text.indexOf(REFUSED);
    int payload = at - "server\tserver ".length();
    String reason = "(closed without an ERROR)";
    if (at >= 0 && payload >= FrameCodec.HEADER) {
      int end = payload + java.nio.ByteBuffer.wrap(bytes).getInt(payload - FrameCodec.HEADER + 16);
      reason = text.substring(at + REFUSED.length(), Math.min(Math.max(end, at + REFUSED.length()), text.length()))
          .replaceAll("-?\\d+", "N");
    }
    REASONS.merge(reason.length() > 60 ? reason.substring(0, 60) : reason, 1, Integer::sum);
  }

  /**
   * The handshake as a client does it (anonymous for an open server, the cluster secret for a keyed one); returns
   * the frame authentication to encode the session's frames with (tagging them when keyed). Its AUTH picks nothing
   * (index 0), as a peer of before the frame MAC choice: HMAC-SHA256.
   */
  private static FrameAuth authenticate(InputStream in, OutputStream out, boolean keyed, String where) throws IOException {
    byte[] challenge = readUntagged(in, FrameType.CHALLENGE, where);
    Credential cred = keyed ? Credential.cluster(SECRET) : Credential.anonymous();
    byte[] clientNonce = Handshake.nonce();
    FrameAuth session = new FrameAuth();
    out.write(encode(session, List.of(Frame.bytes(FrameType.AUTH, 0, Handshake.clientResponse(cred, challenge, clientNonce)))));
    out.flush();
    byte[] proof = readUntagged(in, FrameType.AUTH_OK, where);
    byte[][] keys = Handshake.verifyServer(cred, challenge, clientNonce, proof, FrameMac.HMAC_SHA256);
    if (keys != null) {
      session.start(keys[0], keys[1]);
    }
    session.handshakeDone();
    return session;
  }

  /** After the handshake: REQUESTs (well-formed or not), CREDITs of any count, any other type, in any order. */
  private static List<Frame> protocolFrames(Random r) {
    List<Frame> frames = new ArrayList<>();
    for (int i = 0, n = 1 + r.nextInt(5); i < n; i++) {
      switch (r.nextInt(4)) {
        case 0 -> {
          // Named "client", like the legitimate client: a request slot leaked here would starve it.
          byte[] request = PeerStream.requestPayload("client", "/r",
              new Endpoint("127.0.0.1", 1, new Site("server", "/r")), ProtocolFuzzTest.random(r, 64));
          frames.add(Frame.bytes(FrameType.REQUEST, r.nextLong(), r.nextBoolean() ? request : ProtocolFuzzTest.mutate(request, r)));
        }
        case 1, 2 -> {
          int[] counts = {1, 2, 64, 65, 0, -1, Integer.MAX_VALUE, Integer.MIN_VALUE, r.nextInt()};
          frames.add(Frame.of(FrameType.CREDIT, r.nextLong(), counts[r.nextInt(counts.length)]));
        }
        default -> frames.add(new Frame(FrameType.values()[r.nextInt(FrameType.values().length)], r.nextLong(),
            r.nextInt(), Unpooled.wrappedBuffer(ProtocolFuzzTest.random(r, 100))));
      }
    }
    return frames;
  }

  /** The frames as the session encodes them (tagged once keyed, in sequence). */
  private static byte[] encode(FrameAuth session, List<Frame> frames) {
    EmbeddedChannel ch = new EmbeddedChannel(new FrameCodec.Encoder(session));
    ch.config().setAllocator(ProtocolFuzzTest.UNTRACKED);
    ByteBuf all = Unpooled.buffer();
    for (Frame f : frames) {
      ch.writeOutbound(f);
      for (ByteBuf b; (b = ch.readOutbound()) != null; ) {
        all.writeBytes(b);
        b.release();
      }
    }
    ch.finishAndReleaseAll();
    byte[] bytes = new byte[all.readableBytes()];
    all.readBytes(bytes);
    all.release();
    return bytes;
  }

  /** Reads one untagged frame of the handshake, which must be of the given type. */
  private static byte[] readUntagged(InputStream in, FrameType expected, String where) throws IOException {
    DataInputStream d = new DataInputStream(in);
    byte[] header = new byte[FrameCodec.HEADER];
    d.readFully(header);
    java.nio.ByteBuffer h = java.nio.ByteBuffer.wrap(header);
    int len = h.getInt(16);
    assertTrue(h.getShort(0) == FrameCodec.MAGIC && len >= 0 && len <= FrameAuth.HANDSHAKE_FRAME,
        where + ": the server's handshake is not a frame");
    byte[] payload = new byte[len];
    d.readFully(payload);
    FrameType type = FrameType.of(header[3]);
    if (type != expected) {
      fail(where + ": expected " + expected + " from the server, got " + type + " "
          + new String(payload, StandardCharsets.UTF_8));
    }
    return payload;
  }
}
