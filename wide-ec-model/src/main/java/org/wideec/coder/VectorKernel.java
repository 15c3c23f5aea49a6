package org.wideec.coder;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;
import org.wideec.gf.Gf256;

/**
 * Pure-Java SIMD kernel on the JDK Vector API: GF(2^8) multiplication by the split-nibble method
 * (c*x = LO_c[x & 15] ^ HI_c[x >> 4], each a 16-entry table lookup, i.e. one byte shuffle), the same
 * idea ISA-L's assembly uses. Only loaded when the {@code jdk.incubator.vector} module is present
 * ({@link Kernels}); otherwise {@link JavaKernel} runs. Works slice by slice so the outputs of a slice
 * stay in L1 while every source is added in.
 */
final class VectorKernel implements CodingKernel {
  private static final VectorSpecies<Byte> S = ByteVector.SPECIES_PREFERRED;
  private static final int SLICE = 4096;
  /** LO[c] / HI[c]: products of c with the low / high nibble, the 16 entries repeated to fill a vector. */
  private static final byte[][] LO = new byte[256][S.length()];
  private static final byte[][] HI = new byte[256][S.length()];

  static {
    for (int c = 0; c < 256; c++) {
      for (int i = 0; i < S.length(); i++) {
        LO[c][i] = (byte) Gf256.multiply(c, i & 15);
        HI[c][i] = (byte) Gf256.multiply(c, (i & 15) << 4);
      }
    }
  }

  static final VectorKernel INSTANCE = new VectorKernel();

  private VectorKernel() {}

  @Override
  public String name() {
    return "java-vector(" + S.vectorBitSize() + "bit)";
  }

  @Override
  public void multiply(CodingMatrix m, ByteBuffer[] inputs, ByteBuffer[] outputs, int len) {
    int rows = m.rows();
    int cols = m.cols();
    for (int off = 0; off < len; off += SLICE) {
      int n = Math.min(SLICE, len - off);
      int vecEnd = n - n % S.length();
      for (int r = 0; r < rows; r++) {
        ByteBuffer out = outputs[r];
        int outPos = out.position() + off;
        byte[] row = m.row(r);
        boolean first = true;
        for (int c = 0; c < cols; c++) {
          int coef = row[c] & 0xff;
          if (coef == 0) {
            continue;
          }
          ByteBuffer in = inputs[c];
          int inPos = in.position() + off;
          ByteVector lo = ByteVector.fromArray(S, LO[coef], 0);
          ByteVector hi = ByteVector.fromArray(S, HI[coef], 0);
          int i = 0;
          for (; i < vecEnd; i += S.length()) {
            ByteVector x = ByteVector.fromByteBuffer(S, in, inPos + i, ByteOrder.nativeOrder());
            ByteVector p;
            if (coef == 1) {
              p = x;
            } else {
              ByteVector l = lo.rearrange(x.and((byte) 0x0f).toShuffle());
              ByteVector h = hi.rearrange(x.lanewise(VectorOperators.LSHR, 4).and((byte) 0x0f).toShuffle());
              p = l.lanewise(VectorOperators.XOR, h);
            }
            if (!first) {
              p = p.lanewise(VectorOperators.XOR, ByteVector.fromByteBuffer(S, out, outPos + i, ByteOrder.nativeOrder()));
            }
            p.intoByteBuffer(out, outPos + i, ByteOrder.nativeOrder());
          }
          for (; i < n; i++) {
            int v = Gf256.multiply(coef, in.get(inPos + i) & 0xff);
            out.put(outPos + i, (byte) (first ? v : (out.get(outPos + i) ^ v)));
          }
          first = false;
        }
        if (first) {
          for (int i = 0; i < n; i++) {
            out.put(outPos + i, (byte) 0);
          }
        }
      }
    }
  }
}
