package org.wideec.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.DecoderException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A seeded fuzzer over the slice port's parsers, with a fixed budget: random bytes and mutations (bit flips,
 * truncation, length changes, splicing, random chunking) of valid frames and handshakes. Whatever arrives, only the
 * parser's own refusal comes out, nothing is buffered beyond the frame bound, every decoded frame is released and
 * each input finishes at once. A failure names the seed and case to replay. Live servers: {@link ServerFuzzTest}.
 */
@ExtendWith(NettyLeakCheck.class)
class ProtocolFuzzTest {
  static final long SEED = Long.getLong("wideec.fuzz.seed", 20261123L);
  static final int CASES = Integer.getInteger("wideec.fuzz.cases", 20_000);
  // Above FrameAuth.HANDSHAKE_FRAME, so that frames before authentication meet a tighter bound than after.
  static final int MAX = 12 * 1024;
  static final io.netty.buffer.ByteBufAllocator UNTRACKED = new io.netty.buffer.UnpooledByteBufAllocator(false, true);

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
    return encoded(r, send, 300).bytes();
  }

  /** Encoded frames, where each starts (for mutations that aim at a header field) and the longest payload. */
  record Encoded(byte[] bytes, int[] starts, int longest) {}

  /** Mostly small frames; now and then one of exactly {@code largest} bytes, the most a decoder may accept. */
  static Encoded encoded(Random r, FrameAuth send, int largest) {
    EmbeddedChannel out = new EmbeddedChannel(new FrameCodec.Encoder(send));
    out.config().setAllocator(UNTRACKED); // the encoder is not under test: no stack trace recorded per buffer
    int n = 1 + r.nextInt(3);
    int[] starts = new int[n];
    int longest = 0;
    ByteBuf all = Unpooled.buffer();
    for (int i = 0; i < n; i++) {
      FrameType t = FrameType.values()[r.nextInt(FrameType.values().length)];
      byte[] payload = new byte[r.nextInt(8) == 0 ? largest : r.nextInt(Math.min(largest, 300) + 1)];
      r.nextBytes(payload);
      longest = Math.max(longest, payload.length);
      out.writeOutbound(new Frame(t, r.nextLong(), r.nextInt(), Unpooled.wrappedBuffer(payload)));
      starts[i] = all.writerIndex();
      for (ByteBuf b; (b = out.readOutbound()) != null; ) {
        all.writeBytes(b);
        b.release();
      }
    }
    byte[] bytes = new byte[all.readableBytes()];
    all.readBytes(bytes);
    all.release();
    out.finishAndReleaseAll();
    return new Encoded(bytes, starts, longest);
  }

  /**
   * A mutation aimed at one frame's header: its length field (at, just past and far past the bound, negative, off by
   * one; followed by enough bytes to complete a frame of that length if the decoder were to wait for one), its type
   * or its magic; or a cut right at or near a frame boundary.
   */
  static byte[] mutateHeader(Encoded e, Random r, int limit) {
    byte[] b = e.bytes().clone();
    int at = e.starts()[r.nextInt(e.starts().length)];
    java.nio.ByteBuffer h = java.nio.ByteBuffer.wrap(b, at, FrameCodec.HEADER);
    switch (r.nextInt(4)) {
      case 0 -> {
        int len = h.getInt(at + 16);
        int tag = FrameMac.HMAC_SHA256.tagLength(); // the longer tag
        int[] lengths = {limit, limit + 1, limit + tag + 1, 2 * limit, -1, Integer.MAX_VALUE,
            Integer.MIN_VALUE, 0, len - 1, len + 1, len + tag, len + FrameMac.AES_GMAC.tagLength()};
        int claimed = lengths[r.nextInt(lengths.length)];
        h.putInt(at + 16, claimed);
        byte[] tail = random(r, 64);
        tail = Arrays.copyOf(tail, tail.length + Math.min(Math.max(claimed, 0), 3 * limit));
        b = Arrays.copyOf(b, b.length + tail.length);
        System.arraycopy(tail, 0, b, b.length - tail.length, tail.length);
      }
      case 1 -> b[at + 3] = (byte) r.nextInt(256);
      case 2 -> h.putShort(at, (short) r.nextInt(1 << 16));
      default -> b = Arrays.copyOf(b, Math.max(0, Math.min(b.length, at + r.nextInt(FrameCodec.HEADER + 2) - 1)));
    }
    return b;
  }

  /**
   * Allocates buffers that can never grow past a bound, counting exactly the memory still held: a decoder that
   * buffered beyond its frame bound fails inside Netty's cumulator, and one that leaked a frame leaves memory counted
   * once its channel is closed. An exact count per case, rather than the leak detector, which would record a stack
   * trace for each of the million buffers of a run.
   */
  static final class BoundedAllocator extends io.netty.buffer.AbstractByteBufAllocator {
    final int bound;
    private final io.netty.buffer.UnpooledByteBufAllocator inner = new io.netty.buffer.UnpooledByteBufAllocator(true, true);

    BoundedAllocator(int bound) {
      super(true);
      this.bound = bound;
    }

    long held() {
      return inner.metric().usedDirectMemory();
    }

    @Override
    protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
      return newDirectBuffer(initialCapacity, maxCapacity);
    }

    @Override
    protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
      if (initialCapacity > bound) {
        throw new IllegalStateException("asked for a buffer of " + initialCapacity + " bytes, beyond the bound " + bound);
      }
      return inner.directBuffer(initialCapacity, Math.min(maxCapacity, bound));
    }

    @Override
    public int calculateNewCapacity(int minNewCapacity, int maxCapacity) {
      if (minNewCapacity > bound) {
        throw new IllegalStateException("asked to grow to " + minNewCapacity + " bytes, beyond the bound " + bound);
      }
      return Math.min(super.calculateNewCapacity(minNewCapacity, maxCapacity), bound);
    }

    @Override
    public boolean isDirectBufferPooled() {
      return false;
    }
  }

  @Test
  void theFrameDecoderOnlyRefusesAndNeverBuffersBeyondItsBound() {
    Random r = new Random(SEED);
    byte[] key = new byte[32];
    r.nextBytes(key);
    int intact = 0;
    for (int c = 0; c < CASES; c++) {
      String where = "case " + c + " (seed " + SEED + ")";
      int mode = c % 3; // untagged, tagged, before authentication
      FrameMac mac = FrameMac.values()[(c / 3) % FrameMac.values().length]; // the tagged cases take turns
      FrameAuth send = mode == 1 ? keyed(mac, key) : FrameAuth.none();
      FrameAuth receive = mode == 0 ? FrameAuth.none() : mode == 1 ? keyed(mac, key) : new FrameAuth();
      int payloadLimit = mode == 2 ? Math.min(MAX, FrameAuth.HANDSHAKE_FRAME) : MAX;
      // Now and then a well-formed frame one byte too long: it must be refused, not taken.
      Encoded valid = encoded(r, send, payloadLimit + (r.nextInt(8) == 0 ? 1 : 0));
      int kind = r.nextInt(10); // 0: unchanged, 1-2: random bytes, 3-5: header aimed, 6-9: anywhere
      byte[] input = kind == 0 ? valid.bytes() : kind < 3 ? random(r, 4096)
          : kind < 6 ? mutateHeader(valid, r, payloadLimit) : mutate(valid.bytes(), r);
      // A read is what one socket read delivers; sometimes byte by byte, so headers split everywhere.
      int maxChunk = r.nextInt(4) == 0 ? 16 : 700;
      int limit = FrameCodec.HEADER + payloadLimit + send.tagLength();
      BoundedAllocator alloc = new BoundedAllocator(limit + maxChunk);
      FrameCodec.Decoder decoder = new FrameCodec.Decoder(MAX, receive);
      EmbeddedChannel ch = new EmbeddedChannel(decoder);
      ch.config().setAllocator(alloc);
      List<Frame> decoded = new ArrayList<>();
      boolean refused = false;
      int longestTaken = 0;
      long start = System.nanoTime();
      try {
        for (int at = 0; at < input.length; ) {
          int n = Math.min(input.length - at, 1 + r.nextInt(maxChunk));
          ch.writeInbound(alloc.buffer(n).writeBytes(input, at, n));
          at += n;
          if (decoder.buffered() > limit) {
            fail(where + ": decoder holds " + decoder.buffered() + " bytes, bound " + limit);
          }
          for (Object o; (o = ch.readInbound()) != null; ) {
            decoded.add((Frame) o);
          }
        }
      } catch (DecoderException e) {
        assertTrue(e instanceof CorruptSliceException, where + ": " + e + " caused by " + e.getCause());
        refused = true;
      } catch (RuntimeException e) {
        fail(where + ": " + e, e);
      } finally {
        for (Object o; (o = ch.readInbound()) != null; ) {
          decoded.add((Frame) o);
        }
        for (Frame f : decoded) {
          longestTaken = Math.max(longestTaken, f.payload().readableBytes());
          f.release();
        }
        try {
          ch.finishAndReleaseAll();
        } catch (DecoderException again) {
          // the decoder meets its bad bytes again as the input closes; what it buffered is released all the same
          assertTrue(again instanceof CorruptSliceException, where + ": " + again + " caused by " + again.getCause());
        }
      }
      assertTrue(System.nanoTime() - start < 1_000_000_000L, where + " took over a second");
      assertEquals(0, alloc.held(), where + ": bytes still held once its frames are released and its channel closed");
      assertTrue(longestTaken <= payloadLimit, where + ": took a frame of " + longestTaken + " bytes, bound " + payloadLimit);
      if (kind == 0 && valid.longest() <= payloadLimit) { // well-formed within the bound: all decode, nothing else
        assertTrue(!refused && decoded.size() == valid.starts().length, where + ": an intact stream of "
            + valid.starts().length + " frames gave " + decoded.size() + (refused ? " and a refusal" : ""));
        intact++;
      } else if (kind == 0) {
        assertTrue(refused, where + ": a frame of " + valid.longest() + " bytes was not refused, bound " + payloadLimit);
      }
    }
    assertTrue(intact > CASES / 20, "intact inputs were checked too: " + intact);
  }

  private static FrameAuth keyed(FrameMac mac, byte[] key) {
    FrameAuth a = new FrameAuth();
    a.start(mac, key, key);
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
      int picked = r.nextInt(3) == 0 ? r.nextInt() : r.nextInt(2); // the AUTH frame's index: the frame MAC picked
      for (Handshake h : new Handshake[] {cluster, open}) {
        try {
          h.verifyClient(serverNonce, auth, picked);
          // Accepted: anonymous to an open server, or exactly a valid keyed response (a mutation that changed nothing).
          assertTrue((h == open && auth.length > 0 && auth[0] == 0 || Arrays.equals(auth, valid) && cred != credentials[2])
              && (picked == 0 || picked == 1),
              "case " + c + " (seed " + SEED + "): accepted a forged AUTH");
        } catch (Handshake.AuthenticationException expected) {
          // refused, naming why
        } catch (RuntimeException e) {
          fail("case " + c + " (seed " + SEED + "): " + e, e);
        }
      }
    }
  }
}
