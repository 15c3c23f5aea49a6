package org.wideec.transport;

import io.netty.buffer.ByteBuf;
import java.lang.ref.Cleaner;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.wideec.coder.IsalNative;

/**
 * AES-256-GMAC frame tags through OpenSSL's libcrypto, opened at run time by the project's native library
 * ({@code native/src/wideec_gmac.c}). The tags are standard AES-GCM tags, the same bytes as {@link FrameMac.JdkGmac}
 * computes, so peers with and without the library interoperate. Where the library or libcrypto is missing,
 * {@link #tagger} returns null and the JDK's GCM runs instead (one log line says why).
 */
final class NativeGmac implements FrameTagger {
  private static final Logger LOG = LoggerFactory.getLogger(NativeGmac.class);
  private static final Cleaner CLEANER = Cleaner.create();
  private static final String UNAVAILABLE = probeOnce();

  private final long ctx;

  private NativeGmac(long ctx) {
    this.ctx = ctx;
  }

  /** Why native GMAC does not run here, or null when it does. */
  static String unavailableReason() {
    return UNAVAILABLE;
  }

  /** A native tagger under the key, or null when native GMAC is unavailable. */
  static FrameTagger tagger(byte[] key) {
    if (UNAVAILABLE != null) {
      return null;
    }
    long ctx = create(key);
    if (ctx == 0) {
      LOG.warn("OpenSSL could not key an AES-256-GCM context; this connection's frame tags use the JDK's GCM");
      return null;
    }
    NativeGmac g = new NativeGmac(ctx);
    CLEANER.register(g, () -> free(ctx)); // the context lives as long as its connection's FrameAuth
    return g;
  }

  private static String probeOnce() {
    String why;
    if (!IsalNative.isAvailable()) {
      why = "the native library is not loaded: " + IsalNative.unavailableReason();
    } else {
      try {
        why = probe();
      } catch (UnsatisfiedLinkError e) {
        why = "the native library predates AES-GMAC frame tags";
      }
    }
    if (why == null) {
      LOG.info("frame tags: AES-256-GMAC through OpenSSL");
    } else {
      LOG.info("frame tags: AES-256-GMAC through the JDK ({})", why);
    }
    return why;
  }

  @Override
  public void tag(long seq, ByteBuf a, int aFrom, int aLen, ByteBuf b, int bFrom, int bLen, byte[] out) {
    // A region neither on the heap nor at a native address (a composite) is copied once; the codec never makes one.
    if (!reachable(a)) {
      a = a.copy(aFrom, aLen);
      aFrom = 0;
    }
    if (!reachable(b)) {
      b = b.copy(bFrom, bLen);
      bFrom = 0;
    }
    boolean ok = tag(ctx, seq, array(a), address(a), offset(a, aFrom), aLen, array(b), address(b), offset(b, bFrom),
        bLen, out);
    if (!ok) {
      throw new IllegalStateException("OpenSSL failed to compute the AES-GMAC tag of frame " + seq);
    }
  }

  private static boolean reachable(ByteBuf b) {
    return b.hasArray() || b.hasMemoryAddress();
  }

  private byte[] array(ByteBuf b) {
    return b.hasArray() ? b.array() : null;
  }

  private static long address(ByteBuf b) {
    return b.hasArray() ? 0 : b.memoryAddress();
  }

  private static int offset(ByteBuf b, int from) {
    return b.hasArray() ? b.arrayOffset() + from : from;
  }

  private static native String probe();

  private static native long create(byte[] key);

  private static native void free(long ctx);

  private static native boolean tag(long ctx, long seq, byte[] aArray, long aAddress, int aOffset, int aLen,
      byte[] bArray, long bAddress, int bOffset, int bLen, byte[] tag);
}
