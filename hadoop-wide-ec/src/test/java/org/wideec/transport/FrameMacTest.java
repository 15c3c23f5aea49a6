package org.wideec.transport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.io.DataInputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.wideec.coder.NativeRequirement;
import org.wideec.topology.Endpoint;
import org.wideec.topology.Site;
import org.wideec.transport.hdfs.TransportConfReader;

/**
 * Frame MACs: AES-256-GMAC through OpenSSL computes the same tags as the JDK's AES-GCM (and the GCM known answer), over
 * heap and direct regions split anywhere; the handshake negotiates GMAC between new peers and HMAC-SHA256 with a peer
 * that prefers it or predates the choice; a relay that rewrites the choice breaks the session instead of downgrading
 * it.
 */
@ExtendWith(NettyLeakCheck.class)
class FrameMacTest {
  static final byte[] SECRET = "a cluster secret for frame MACs".getBytes(StandardCharsets.UTF_8);
  static final int SLICE = 8192;
  static final int SLICES = 5;
  /** Where Debian and others keep OpenSSL 3's libcrypto, as dlopen would find it. */
  static final List<File> LIBCRYPTO = List.of(new File("/usr/lib/x86_64-linux-gnu/libcrypto.so.3"),
      new File("/usr/lib64/libcrypto.so.3"), new File("/usr/lib/libcrypto.so.3"));

  private final ExecutorService workers = Executors.newCachedThreadPool();
  private final List<SliceTransport> transports = new ArrayList<>();

  @AfterEach
  void tearDown() {
    transports.forEach(SliceTransport::close);
    workers.shutdownNow();
  }

  /** Call first in a test of the native GMAC: it must run wherever the native library loads and OpenSSL is installed. */
  private static void nativeGmac() {
    NativeRequirement.nativeCoder();
    boolean installed = LIBCRYPTO.stream().anyMatch(File::exists);
    Assumptions.assumeTrue(installed || NativeGmac.unavailableReason() == null, "no libcrypto.so.3 in " + LIBCRYPTO);
    assertNull(NativeGmac.unavailableReason(), "native GMAC must run with the native library and libcrypto.so.3");
  }

  @Test
  void gmacGivesTheAesGcmKnownAnswerNativelyAndInTheJdk() {
    nativeGmac();
    // AES-256-GCM, key and nonce all zero, no plaintext, no additional data (the GCM specification's test case 13).
    byte[] expected = HexFormat.of().parseHex("530f8afbc74536b9a963b4f1c4cb738b");
    for (FrameTagger t : new FrameTagger[] {NativeGmac.tagger(new byte[32]), new FrameMac.JdkGmac(new byte[32])}) {
      byte[] tag = new byte[16];
      t.tag(0, FrameMac.NONE, 0, 0, FrameMac.NONE, 0, 0, tag);
      assertArrayEquals(expected, tag, t.getClass().getSimpleName());
    }
  }

  @Test
  void nativeAndJdkGmacAgreeOnEveryFrameOverHeapAndDirectRegions() {
    nativeGmac();
    Random r = new Random(14);
    byte[] key = new byte[32];
    r.nextBytes(key);
    FrameTagger fast = NativeGmac.tagger(key);
    FrameTagger jdk = new FrameMac.JdkGmac(key);
    for (int c = 0; c < 300; c++) {
      int len = r.nextInt(4) == 0 ? r.nextInt(64) : r.nextInt(300_000);
      byte[] frame = new byte[len];
      r.nextBytes(frame);
      int split = len == 0 ? 0 : r.nextInt(len + 1);
      ByteBuf a = region(r, frame, 0, split);
      ByteBuf b = region(r, frame, split, len - split);
      long seq = r.nextInt(3) == 0 ? r.nextLong() : c;
      byte[] t1 = new byte[16];
      byte[] t2 = new byte[16];
      try {
        fast.tag(seq, a, a.readerIndex(), split, b, b.readerIndex(), len - split, t1);
        jdk.tag(seq, a, a.readerIndex(), split, b, b.readerIndex(), len - split, t2);
        assertArrayEquals(t2, t1, "case " + c + ": " + len + " bytes split at " + split + ", frame " + seq);
        byte[] other = new byte[16];
        fast.tag(seq + 1, a, a.readerIndex(), split, b, b.readerIndex(), len - split, other);
        assertFalse(java.util.Arrays.equals(t1, other), "case " + c + ": the next frame number gives another tag");
      } finally {
        a.release();
        b.release();
      }
    }
  }

  /** len bytes of frame from off: heap, pooled direct, pooled heap, a slice of a larger one, or a composite of two. */
  private static ByteBuf region(Random r, byte[] frame, int off, int len) {
    int pad = r.nextInt(100);
    return switch (r.nextInt(5)) {
      case 0 -> Unpooled.buffer(pad + len).writeZero(pad).writeBytes(frame, off, len).readerIndex(pad);
      case 1 -> PooledByteBufAllocator.DEFAULT.directBuffer(pad + len).writeZero(pad).writeBytes(frame, off, len)
          .readerIndex(pad);
      case 2 -> PooledByteBufAllocator.DEFAULT.heapBuffer(pad + len).writeZero(pad).writeBytes(frame, off, len)
          .readerIndex(pad);
      case 3 -> {
        ByteBuf whole = PooledByteBufAllocator.DEFAULT.directBuffer(pad + len + 7).writeZero(pad)
            .writeBytes(frame, off, len).writeZero(7);
        ByteBuf slice = whole.retainedSlice(pad, len);
        whole.release();
        yield slice;
      }
      default -> {
        int cut = len / 2;
        ByteBuf first = PooledByteBufAllocator.DEFAULT.directBuffer(cut).writeBytes(frame, off, cut);
        ByteBuf second = Unpooled.buffer(len - cut).writeBytes(frame, off + cut, len - cut);
        yield Unpooled.wrappedBuffer(first, second);
      }
    };
  }

  @Test
  void hmacFramesAreTaggedExactlyAsBeforeTheChoice() throws Exception {
    // Peers that predate the choice compute HMAC-SHA256 over the frame number (8 bytes, big-endian), header, payload.
    byte[] key = new byte[32];
    new Random(3).nextBytes(key);
    FrameAuth auth = new FrameAuth();
    auth.start(key, key);
    for (long seq = 0; seq < 3; seq++) {
      byte[] header = new byte[FrameCodec.HEADER];
      byte[] payload = new byte[5000 + (int) seq];
      new Random(seq).nextBytes(header);
      new Random(seq + 10).nextBytes(payload);
      ByteBuf tag = Unpooled.buffer(32);
      auth.sign(Unpooled.wrappedBuffer(header), 0, header.length, Unpooled.wrappedBuffer(payload), 0, payload.length, tag);
      javax.crypto.Mac mac = javax.crypto.Mac.getInstance("HmacSHA256");
      mac.init(new javax.crypto.spec.SecretKeySpec(key, "HmacSHA256"));
      mac.update(ByteBuffer.allocate(8).putLong(seq).array());
      mac.update(header);
      mac.update(payload);
      assertArrayEquals(mac.doFinal(), ByteBufUtilBytes.of(tag), "frame " + seq);
    }
  }

  /** The readable bytes of a buffer. */
  static final class ByteBufUtilBytes {
    static byte[] of(ByteBuf b) {
      return io.netty.buffer.ByteBufUtil.getBytes(b);
    }
  }

  @Test
  void aHeaderClaimingALargeFrameBuysAtMostTwiceWhatArrived() {
    int max = 4 << 20;
    ProtocolFuzzTest.BoundedAllocator alloc = new ProtocolFuzzTest.BoundedAllocator(max + 64);
    io.netty.channel.embedded.EmbeddedChannel ch = new io.netty.channel.embedded.EmbeddedChannel(
        new FrameCodec.Decoder(max));
    ch.config().setAllocator(alloc);
    ByteBuf header = Unpooled.buffer(FrameCodec.HEADER).writeShort(FrameCodec.MAGIC).writeByte(FrameCodec.VERSION)
        .writeByte(FrameType.SLICE.ordinal()).writeLong(1).writeInt(0).writeInt(max).writeInt(0);
    ch.writeInbound(header);
    long sent = FrameCodec.HEADER;
    for (int i = 0; i < 3; i++) {
      ch.writeInbound(Unpooled.wrappedBuffer(new byte[1000]));
      sent += 1000;
      assertTrue(alloc.held() <= 2 * sent, "after " + sent + " bytes of a frame claiming " + max + ": "
          + alloc.held() + " bytes held");
    }
    ch.finishAndReleaseAll();
  }

  @Test
  void theChoiceFollowsWhatBothSidesRun() {
    assertSame(FrameMac.AES_GMAC, FrameMac.AES_GMAC.pick(FrameMac.AES_GMAC.offer()));
    assertSame(FrameMac.HMAC_SHA256, FrameMac.AES_GMAC.pick(0), "a server of before the choice offers nothing");
    assertSame(FrameMac.HMAC_SHA256, FrameMac.AES_GMAC.pick(FrameMac.HMAC_SHA256.offer()));
    assertSame(FrameMac.HMAC_SHA256, FrameMac.HMAC_SHA256.pick(FrameMac.AES_GMAC.offer()));
    assertSame(FrameMac.HMAC_SHA256, FrameMac.AES_GMAC.accept(0), "a client of before the choice picks nothing");
    assertNull(FrameMac.HMAC_SHA256.accept(FrameMac.AES_GMAC.id), "not offered");
    assertNull(FrameMac.AES_GMAC.accept(7));
    assertEquals(FrameMac.AES_GMAC, FrameMac.parse(" GMAC "));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> FrameMac.parse("md5"));
    assertTrue(e.getMessage().contains(FrameMac.KEY) && e.getMessage().contains("gmac, hmac"), e.getMessage());
  }

  @Test
  void aServerRefusesAnAlgorithmItDidNotOfferAndTheChoiceIsBoundIntoTheKeys() throws Exception {
    Handshake hmacOnly = new Handshake(SECRET, null, FrameMac.HMAC_SHA256);
    Handshake both = new Handshake(SECRET, null, FrameMac.AES_GMAC);
    byte[] serverNonce = Handshake.nonce();
    byte[] clientNonce = Handshake.nonce();
    Credential c = Credential.cluster(SECRET);
    byte[] auth = Handshake.clientResponse(c, serverNonce, clientNonce);
    Handshake.AuthenticationException e = assertThrows(Handshake.AuthenticationException.class,
        () -> hmacOnly.verifyClient(serverNonce, auth, FrameMac.AES_GMAC.id));
    assertTrue(e.getMessage().contains("did not offer") && e.getMessage().contains(FrameMac.KEY), e.getMessage());
    Handshake.Accepted gmac = both.verifyClient(serverNonce, auth, FrameMac.AES_GMAC.id);
    Handshake.Accepted hmac = both.verifyClient(serverNonce, auth, FrameMac.HMAC_SHA256.id);
    assertSame(FrameMac.AES_GMAC, gmac.frameMac());
    assertFalse(java.util.Arrays.equals(gmac.sendKey(), hmac.sendKey()), "each algorithm has keys of its own");
    byte[][] client = Handshake.verifyServer(c, serverNonce, clientNonce, gmac.proof(), FrameMac.AES_GMAC);
    assertArrayEquals(gmac.receiveKey(), client[0]);
    assertArrayEquals(gmac.sendKey(), client[1]);
  }

  private SliceTransport transport(String node, FrameMac mac) throws IOException {
    Configuration conf = new Configuration(false);
    conf.set(TransportConf.SECRET, new String(SECRET, StandardCharsets.UTF_8));
    conf.set(TransportConf.BIND_HOST, "127.0.0.1");
    conf.setInt(TransportConf.PORT, 0);
    conf.setInt(TransportConf.SLICE_BYTES, SLICE);
    conf.set(FrameMac.KEY, mac == FrameMac.AES_GMAC ? "gmac" : "hmac");
    conf.setInt(TransportConf.STALL_TIMEOUT, 5000);
    SliceTransport t = new SliceTransport(TransportConfReader.from(conf), node, TrafficCounters.NONE, workers);
    transports.add(t);
    return t;
  }

  /** Serves SLICES slices of SLICE bytes, slice s all of byte s + 1 (large enough to go out uncopied). */
  private static int serve(SliceTransport t) throws IOException {
    return t.start((id, body, d) -> Producers.sendAll(d, SLICES, s -> {
      ByteBuf b = d.alloc().directBuffer(SLICE);
      b.writeBytes(new byte[SLICE]);
      for (int i = 0; i < SLICE; i++) {
        b.setByte(i, s + 1);
      }
      return b;
    }));
  }

  private static void readWhole(SliceTransport client, Endpoint at) throws Exception {
    try (PeerStream s = client.open(at, "client", "/r2", 1, new byte[] {1})) {
      for (int i = 0; i < SLICES; i++) {
        Frame f = s.next(i, SLICE);
        try {
          for (int b = 0; b < SLICE; b++) {
            assertEquals((byte) (i + 1), f.payload().getByte(f.payload().readerIndex() + b), "slice " + i);
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
  void peersNegotiateGmacAndFallBackToHmacWithAPeerThatPrefersIt() throws Exception {
    FrameMac[][] pairs = {{FrameMac.AES_GMAC, FrameMac.AES_GMAC}, {FrameMac.HMAC_SHA256, FrameMac.AES_GMAC},
        {FrameMac.AES_GMAC, FrameMac.HMAC_SHA256}};
    for (FrameMac[] pair : pairs) {
      SliceTransport server = transport("server", pair[0]);
      int port = serve(server);
      try (ChoiceRelay relay = new ChoiceRelay(port, -1)) {
        SliceTransport client = transport("client", pair[1]);
        readWhole(client, new Endpoint("127.0.0.1", relay.port(), new Site("server", "/r1")));
        FrameMac expected = pair[0] == FrameMac.AES_GMAC && pair[1] == FrameMac.AES_GMAC ? FrameMac.AES_GMAC
            : FrameMac.HMAC_SHA256;
        assertEquals(expected.id, relay.picked.get(), "server " + pair[0] + ", client " + pair[1]);
      }
    }
  }

  @Test
  void aRelayThatRewritesTheChoiceBreaksTheSessionInsteadOfDowngradingIt() throws Exception {
    SliceTransport server = transport("server", FrameMac.AES_GMAC);
    int port = serve(server);
    try (ChoiceRelay relay = new ChoiceRelay(port, FrameMac.HMAC_SHA256.id)) {
      SliceTransport client = transport("client", FrameMac.AES_GMAC);
      long start = System.nanoTime();
      PeerFailure f = assertThrows(PeerFailure.class,
          () -> readWhole(client, new Endpoint("127.0.0.1", relay.port(), new Site("server", "/r1"))));
      assertEquals(FrameMac.AES_GMAC.id, relay.seen.get(), "the client picked GMAC");
      assertEquals(FrameMac.HMAC_SHA256.id, relay.picked.get(), "the server was told HMAC");
      assertTrue((System.nanoTime() - start) / 1_000_000 < 4000, "refused at once, not after the 5 s stall: " + f);
      assertTrue(f.getMessage().contains("failed authentication") || f.getMessage().contains("closed"), f.getMessage());
    }
  }

  /**
   * Relays one connection, recording the frame MAC the client's AUTH picked (its index field) and, when
   * {@code rewriteTo} >= 0, rewriting it, as an attacker on the wire could (the AUTH is not tagged).
   */
  static final class ChoiceRelay implements AutoCloseable {
    final AtomicInteger seen = new AtomicInteger(-1);
    final AtomicInteger picked = new AtomicInteger(-1);
    private final ServerSocket server;
    private final int rewriteTo;

    ChoiceRelay(int target, int rewriteTo) throws IOException {
      this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
      this.rewriteTo = rewriteTo;
      TamperingRelay.relayAll(server, target, "choice-relay", this::up, TamperingRelay.COPY);
    }

    int port() {
      return server.getLocalPort();
    }

    private void up(InputStream from, OutputStream to) throws IOException {
      DataInputStream in = new DataInputStream(from);
      byte[] header = new byte[FrameCodec.HEADER];
      in.readFully(header);
      byte[] payload = new byte[ByteBuffer.wrap(header, 16, 4).getInt()];
      in.readFully(payload);
      seen.set(ByteBuffer.wrap(header, 12, 4).getInt());
      if (rewriteTo >= 0) {
        ByteBuffer.wrap(header, 12, 4).putInt(rewriteTo);
      }
      picked.set(ByteBuffer.wrap(header, 12, 4).getInt());
      to.write(header);
      to.write(payload);
      to.flush();
      from.transferTo(to);
    }

    @Override
    public void close() throws IOException {
      server.close();
    }
  }
}
