package org.wideec.gf;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * GF(2^8) operations over byte regions: XOR, multiply and multiply-accumulate, on byte arrays and on
 * ByteBuffers (heap or direct), all with absolute offsets so no buffer position is touched. XOR runs
 * eight bytes at a time; multiplication is a 256-entry table lookup per byte.
 */
public final class RegionKernels {
  private static final VarHandle LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.nativeOrder());

  /** Per-thread chunk through which a direct source is XORed into a heap destination. */
  private static final ThreadLocal<byte[]> SCRATCH = ThreadLocal.withInitial(() -> new byte[64 * 1024]);

  private RegionKernels() {}

  /** dst[dstOff..+len) ^= src[srcOff..+len). */
  public static void xor(byte[] src, int srcOff, byte[] dst, int dstOff, int len) {
    int i = 0;
    for (; i + 8 <= len; i += 8) {
      long v = (long) LONGS.get(src, srcOff + i) ^ (long) LONGS.get(dst, dstOff + i);
      LONGS.set(dst, dstOff + i, v);
    }
    for (; i < len; i++) {
      dst[dstOff + i] ^= src[srcOff + i];
    }
  }

  /** dst = c * src. */
  public static void mul(int c, byte[] src, int srcOff, byte[] dst, int dstOff, int len) {
    if (c == 1) {
      System.arraycopy(src, srcOff, dst, dstOff, len);
      return;
    }
    if (c == 0) {
      java.util.Arrays.fill(dst, dstOff, dstOff + len, (byte) 0);
      return;
    }
    byte[] t = Gf256.mulTable(c);
    for (int i = 0; i < len; i++) {
      dst[dstOff + i] = t[src[srcOff + i] & 0xff];
    }
  }

  /** dst ^= c * src. */
  public static void mulAdd(int c, byte[] src, int srcOff, byte[] dst, int dstOff, int len) {
    if (c == 0) {
      return;
    }
    if (c == 1) {
      xor(src, srcOff, dst, dstOff, len);
      return;
    }
    byte[] t = Gf256.mulTable(c);
    for (int i = 0; i < len; i++) {
      dst[dstOff + i] ^= t[src[srcOff + i] & 0xff];
    }
  }

  /** dst[dstOff..+len) ^= src[srcOff..+len), absolute offsets, positions untouched. */
  public static void xor(ByteBuffer src, int srcOff, ByteBuffer dst, int dstOff, int len) {
    if (src.hasArray() && dst.hasArray()) {
      xor(src.array(), src.arrayOffset() + srcOff, dst.array(), dst.arrayOffset() + dstOff, len);
      return;
    }
    if (dst.hasArray()) {
      // A received slice (direct) into a sum on the heap: copied a chunk at a time (a memory copy) and XORed array to
      // array, which runs about twice as fast as reading the direct buffer eight bytes at a time.
      byte[] chunk = SCRATCH.get();
      int at = dst.arrayOffset() + dstOff;
      for (int done = 0; done < len; ) {
        int n = Math.min(chunk.length, len - done);
        src.get(srcOff + done, chunk, 0, n);
        xor(chunk, 0, dst.array(), at + done, n);
        done += n;
      }
      return;
    }
    // XOR is bitwise, so the buffers' byte order does not matter as long as get and put agree.
    int i = 0;
    for (; i + 8 <= len; i += 8) {
      dst.putLong(dstOff + i, dst.getLong(dstOff + i) ^ src.getLong(srcOff + i));
    }
    for (; i < len; i++) {
      dst.put(dstOff + i, (byte) (dst.get(dstOff + i) ^ src.get(srcOff + i)));
    }
  }

  /** dst = c * src on buffers. */
  public static void mul(int c, ByteBuffer src, int srcOff, ByteBuffer dst, int dstOff, int len) {
    if (src.hasArray() && dst.hasArray()) {
      mul(c, src.array(), src.arrayOffset() + srcOff, dst.array(), dst.arrayOffset() + dstOff, len);
      return;
    }
    byte[] t = Gf256.mulTable(c);
    for (int i = 0; i < len; i++) {
      dst.put(dstOff + i, t[src.get(srcOff + i) & 0xff]);
    }
  }

  /** dst ^= c * src on buffers. */
  public static void mulAdd(int c, ByteBuffer src, int srcOff, ByteBuffer dst, int dstOff, int len) {
    if (c == 0) {
      return;
    }
    if (c == 1) {
      xor(src, srcOff, dst, dstOff, len);
      return;
    }
    if (src.hasArray() && dst.hasArray()) {
      mulAdd(c, src.array(), src.arrayOffset() + srcOff, dst.array(), dst.arrayOffset() + dstOff, len);
      return;
    }
    byte[] t = Gf256.mulTable(c);
    for (int i = 0; i < len; i++) {
      dst.put(dstOff + i, (byte) (dst.get(dstOff + i) ^ t[src.get(srcOff + i) & 0xff]));
    }
  }
}
