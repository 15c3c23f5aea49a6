package org.wideec.coder;

import java.nio.ByteBuffer;
import org.wideec.gf.RegionKernels;

/**
 * Pure-Java kernel: table-driven multiply-accumulate, eight-byte XOR for unit coefficients. Works in
 * slices so that, for wide stripes, one slice of every input and output stays in cache while all rows
 * are computed (ECWide §2.2 measures 43-70% losses without this).
 */
public final class JavaKernel implements CodingKernel {
  /** Bytes per slice; inputs + outputs of one slice fit comfortably in L2 for k up to ~128. */
  static final int SLICE = 8 * 1024;

  public static final JavaKernel INSTANCE = new JavaKernel();

  private JavaKernel() {}

  @Override
  public String name() {
    return "java";
  }

  @Override
  public void multiply(CodingMatrix m, ByteBuffer[] inputs, ByteBuffer[] outputs, int len) {
    for (int off = 0; off < len; off += SLICE) {
      int n = Math.min(SLICE, len - off);
      for (int r = 0; r < m.rows(); r++) {
        ByteBuffer out = outputs[r];
        int outPos = out.position() + off;
        byte[] row = m.row(r);
        boolean first = true;
        for (int c = 0; c < row.length; c++) {
          int coef = row[c] & 0xff;
          if (coef == 0) {
            continue;
          }
          ByteBuffer in = inputs[c];
          int inPos = in.position() + off;
          if (first) {
            RegionKernels.mul(coef, in, inPos, out, outPos, n);
            first = false;
          } else {
            RegionKernels.mulAdd(coef, in, inPos, out, outPos, n);
          }
        }
        if (first) {
          zero(out, outPos, n);
        }
      }
    }
  }

  private static void zero(ByteBuffer out, int pos, int n) {
    for (int i = 0; i < n; i++) {
      out.put(pos + i, (byte) 0);
    }
  }
}
