package org.wideec.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.lang.ref.Cleaner;
import java.lang.ref.Reference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.wideec.coder.IsalNative;

/**
 * AES-256-GMAC frame tags through OpenSSL's libcrypto, opened at run time by the project's native library
 * ({@code native/src/wideec_gmac.c}). The tags are standard AES-GCM tags, the same bytes as {@link FrameMac.JdkGmac}
 * computes, so peers with and without the library interoperate. Where the library or libcrypto is missing,
 * {@link #tagger} returns null and the JDK's GCM runs instead (one log line says why). A tagger's OpenSSL context is
 * freed when its connection's pipeline goes ({@link #close}), or by a cleaner if it never does.
 */
final class NativeGmac implements FrameTagger {
  private static final Logger LOG = LoggerFactory.getLogger(NativeGmac.class);
  private static final Cleaner CLEANER = Cleaner.create();
  private static final String UNAVAILABLE = probeOnce();

  private final long ctx;
  private final Cleaner.Cleanable freeing;
  private boolean closed;

  private NativeGmac(long ctx) {
    this.ctx = ctx;
    this.freeing = CLEANER.register(this, () -> free(ctx)); // captures the address only, never this
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
    return new NativeGmac(ctx);
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
    if (closed) {
      throw new IllegalStateException("frame tags of a closed connection");
    }
    Region ra = Region.of(a, aFrom, aLen);
    Region rb = Region.of(b, bFrom, bLen);
    try {
      if (!tag(ctx, seq, ra.array, ra.address, ra.offset, aLen, rb.array, rb.address, rb.offset, bLen, out)) {
        throw new IllegalStateException("OpenSSL failed to compute the AES-GMAC tag of frame " + seq);
      }
    } finally {
      Reference.reachabilityFence(this); // the cleaner must not free the context during the call
    }
  }

  @Override
  public void close() {
    closed = true;
    freeing.clean(); // runs free at most once, whoever calls first
  }

  /** Where the C side reads a region: a heap array and offset, or a native address and offset. */
  private record Region(byte[] array, long address, int offset) {
    static Region of(ByteBuf b, int from, int len) {
      if (from < 0 || len < 0 || from > b.capacity() - len) {
        throw new IndexOutOfBoundsException("region [" + from + ", " + from + " + " + len + ") of a buffer of "
            + b.capacity());
      }
      if (b.hasArray()) {
        return new Region(b.array(), 0, b.arrayOffset() + from);
      }
      if (b.hasMemoryAddress()) {
        return new Region(null, b.memoryAddress(), from);
      }
      // A composite, or direct memory without Unsafe: one heap copy, which the codec never needs.
      return new Region(ByteBufUtil.getBytes(b, from, len), 0, 0);
    }
  }

  private static native String probe();

  private static native long create(byte[] key);

  private static native void free(long ctx);

  private static native boolean tag(long ctx, long seq, byte[] aArray, long aAddress, int aOffset, int aLen,
      byte[] bArray, long bAddress, int bOffset, int bLen, byte[] tag);
}
