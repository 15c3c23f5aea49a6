package org.wideec.transport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.DecoderException;
import io.netty.util.ReferenceCountUtil;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Executors;
import java.util.concurrent.ExecutorService;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A seeded fuzzer over the slice port's parsers, with a fixed budget: random bytes and mutations (bit flips,
 * truncation, length changes, splicing, random chunking) of valid frames and handshakes. Whatever arrives, only the
 * parser's own refusal comes out, nothing is buffered beyond the frame bound, every decoded frame is released, each
 * input finishes at once, and a server keeps serving. A failure names the seed and case to replay.
 */
@ExtendWith(NettyLeakCheck.class)
class ProtocolFuzzTest {
  static final long SEED = Long.getLong("wideec.fuzz.seed", 20261123L);
  static final int CASES = Integer.getInteger("wideec.fuzz.cases", 10_000);
  static final int MAX = 4096;

  static byte[] random(Random r, int max) {
    byte[] b = new byte[r.nextInt(max + 1)];
    r.nextBytes(b);
    return b;
  }

  /** One of several mutations of a valid input. */
  static byte[] mutate(byte[] valid, Random r) {
    byte[] b = valid.clone();
    switch (r.nextInt(6)) {
      case 0 -> { // flip bits
        for (int i = 0, n = 1 + r.nextInt(4); i < n && b.length > 0; i++) {
          int at = r.nextInt(b.length);
          b[at] ^= (byte) (1 << r.nextInt(8));
        }
      }
      case 1 -> b = Arrays.copyOf(b, r.nextInt(b.length + 1)); // truncate
      case 2 -> { // overwrite a 4-byte field with an extreme value (lengths, counts, indexes)
        if (b.length >= 4) {
          int at = r.nextInt(b.length - 3);
          int v = new int[] {-1, Integer.MAX_VALUE, Integer.MIN_VALUE, 0, 65535, MAX + 1}[r.nextInt(6)];
          java.nio.ByteBuffer.wrap(b, at, 4).putInt(v);
        }
      }
      case 3 -> { // append garbage
        byte[] tail = random(r, 64);
        b = Arrays.copyOf(b, b.length + tail.length);
        System.arraycopy(tail, 0, b, valid.length, tail.length);
      }
      case 4 -> { // duplicate a span
        if (b.length > 1) {
          int from = r.nextInt(b.length);
          int len = r.nextInt(b.length - from);
          byte[] out = Arrays.copyOf(b, b.length + len);
          System.arraycopy(b, from, out, from + len, b.length - from);
          b = out;
        }
      }
      default -> { // set a byte to an extreme
        if (b.length > 0) {
          b[r.nextInt(b.length)] = (byte) new int[] {0, 0xff, 0x7f, 0x80}[r.nextInt(4)];
        }
      }
    }
    return b;
  }

  /** Valid frames, encoded by our encoder with {@code send} (tagged when keyed), back to back. */
  static byte[] frames(Random r, FrameAuth send) {
    EmbeddedChannel out = new EmbeddedChannel(new FrameCodec.Encoder(send));
    for (int i = 0, n = 1 + r.nextInt(3); i < n; i++) {
      FrameType t = FrameType.values()[r.nextInt(FrameType.values().length)];
      out.writeOutbound(new Frame(t, r.nextLong(), r.nextInt(), Unpooled.wrappedBuffer(random(r, 300))));
    }
    ByteBuf all = Unpooled.buffer();
    for (ByteBuf b; (b = out.readOutbound()) != null; ) {
      all.writeBytes(b);
      b.release();
    }
    byte[] bytes = new byte[all.readableBytes()];
    all.readBytes(bytes);
    all.release();
    out.finishAndReleaseAll();
    return bytes;
  }

  @Test
  void theFrameDecoderOnlyRefusesAndNeverBuffersBeyondItsBound() {
    Random r = new Random(SEED);
    byte[] key = new byte[32];
    r.nextBytes(key);
    for (int c = 0; c < CASES; c++) {
      int mode = c % 3; // untagged, tagged, before authentication
      FrameAuth send = mode == 1 ? keyed(key) : FrameAuth.none();
      FrameAuth receive = mode == 0 ? FrameAuth.none() : mode == 1 ? keyed(key) : new FrameAuth();
      byte[] input = r.nextInt(4) == 0 ? random(r, 2 * MAX) : mutate(frames(r, send), r);
      FrameCodec.Decoder decoder = new FrameCodec.Decoder(MAX, receive);
      EmbeddedChannel ch = new EmbeddedChannel(decoder);
      int limit = FrameCodec.HEADER + (mode == 2 ? FrameAuth.HANDSHAKE_FRAME : MAX) + FrameAuth.TAG;
      long start = System.nanoTime();
      try {
        for (int at = 0; at < input.length; ) {
          int n = Math.min(input.length - at, 1 + r.nextInt(700));
          ch.writeInbound(Unpooled.wrappedBuffer(input, at, n));
          at += n;
          if (decoder.buffered() > limit) {
            fail("case " + c + " (seed " + SEED + "): decoder holds " + decoder.buffered() + " bytes, bound " + limit);
          }
        }
      } catch (DecoderException e) {
        assertTrue(e instanceof CorruptSliceException, "case " + c + " (seed " + SEED + "): " + e);
      } catch (RuntimeException e) {
        fail("case " + c + " (seed " + SEED + "): " + e, e);
      } finally {
        for (Object o; (o = ch.readInbound()) != null; ) {
          ReferenceCountUtil.release(o);
        }
        try {
          ch.finishAndReleaseAll();
        } catch (DecoderException again) {
          // the decoder meets its bad bytes again as the input closes; what it buffered is released all the same
        }
      }
      assertTrue(System.nanoTime() - start < 1_000_000_000L, "case " + c + " (seed " + SEED + ") took over a second");
    }
  }

  private static FrameAuth keyed(byte[] key) {
    FrameAuth a = new FrameAuth();
    a.start(key, key);
    return a;
  }

  @Test
  void theHandshakeAcceptsOnlyWhatItsKeysProve() {
    Random r = new Random(SEED + 1);
    byte[] secret = "a cluster secret for fuzzing".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    byte[] tokenId = random(r, 40);
    byte[] password = random(r, 20);
    TokenKeys keys = id -> {
      if (!Arrays.equals(id, tokenId)) {
        throw new Handshake.AuthenticationException("unknown token");
      }
      return password.clone();
    };
    Handshake cluster = new Handshake(secret, keys);
    Handshake open = new Handshake(null, null);
    Credential[] credentials = {Credential.cluster(secret), Credential.token(tokenId.length == 0 ? new byte[] {1} : tokenId,
        password.length == 0 ? new byte[] {1} : password), Credential.anonymous()};
    for (int c = 0; c < CASES; c++) {
      byte[] serverNonce = random(r, 40);
      Credential cred = credentials[c % credentials.length];
      byte[] valid = Handshake.clientResponse(cred, serverNonce, Handshake.nonce());
      byte[] auth = r.nextInt(4) == 0 ? random(r, 200) : mutate(valid, r);
      for (Handshake h : new Handshake[] {cluster, open}) {
        try {
          h.verifyClient(serverNonce, auth);
          // Accepted: anonymous to an open server, or exactly a valid keyed response (a mutation that changed nothing).
          assertTrue(h == open && auth.length > 0 && auth[0] == 0 || Arrays.equals(auth, valid) && cred != credentials[2],
              "case " + c + " (seed " + SEED + "): accepted a forged AUTH");
        } catch (Handshake.AuthenticationException expected) {
          // refused, naming why
        } catch (RuntimeException e) {
          fail("case " + c + " (seed " + SEED + "): " + e, e);
        }
      }
    }
  }

  /** Raw connections send garbage and mutated frames before and after a handshake; the server keeps serving. */
  @Test
  void aServerRefusesGarbageAndKeepsServing() throws Exception {
    Random r = new Random(SEED + 2);
    ExecutorService workers = Executors.newCachedThreadPool();
    // Short handshake and idle timeouts: a connection that sends too little to refuse is dropped quickly.
    TransportConf conf = new TransportConf("127.0.0.1", 0, null, 4096, 2, 1 << 16, 2000, 2000, TrafficShaper.OFF, null,
        new PeerLimits(64, 2048, 512, 200, 200, 32));
    byte[] unit = random(r, 9000);
    try (SliceTransport server = new SliceTransport(conf, "server", TrafficCounters.NONE, workers)) {
      int port = server.start((id, body, d) -> {
        try {
          d.send(0, Unpooled.wrappedBuffer(unit.clone()));
          d.end();
        } catch (IOException | InterruptedException e) {
          d.fail(null, e.toString());
        }
      });
      for (int c = 0; c < 300; c++) {
        try (RawPeer p = new RawPeer(port, 3000)) {
          if (c % 2 == 1) {
            p.anonymousRequest(random(r, 100));
          }
          p.socket.getOutputStream().write(r.nextBoolean() ? random(r, 600) : mutate(frames(r, FrameAuth.none()), r));
          p.socket.getOutputStream().flush();
          for (RawPeer.Received got; (got = p.receive()) != null; ) {
            if (got.type() == FrameType.ERROR) {
              break; // refused
            }
          }
        } catch (IOException closed) {
          // the server dropped the connection: also a refusal
        }
      }
      try (SliceTransport client = new SliceTransport(conf, "client", TrafficCounters.NONE, workers);
           PeerStream s = client.open(new Endpoint("127.0.0.1", port, "server", "/r"), "client", "/r", 1, new byte[0])) {
        Frame f = s.next(0);
        try {
          assertArrayEquals(unit, f.payloadBytes(), "still serving after 300 hostile connections");
        } finally {
          f.release();
        }
        s.credit();
        s.awaitEnd();
      }
    } finally {
      workers.shutdownNow();
    }
  }
}
