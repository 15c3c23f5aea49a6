package org.wideec.coder;

import java.nio.ByteBuffer;
import org.wideec.code.LinearCode;

/**
 * HDFS's striped layout of one block group: stripe s holds cells s*k .. s*k+k-1 of the group's data,
 * cell j going to data unit j; parity cells of a stripe are as long as its first (longest) data cell and
 * are computed over data cells zero-padded to that length. Used to tell, byte for byte, what an internal
 * block must contain.
 */
public final class CellLayout {
  private CellLayout() {}

  /** The bytes internal block {@code unit} must hold for a group whose data is {@code groupData}. */
  public static byte[] internalBlock(LinearCode code, int cellSize, byte[] groupData, int unit) {
    if (!code.isSystematic()) {
      throw new IllegalArgumentException(code.spec() + " is not systematic; HDFS striping needs data units as-is");
    }
    int k = code.k();
    long stripeBytes = (long) cellSize * k;
    int stripes = (int) ((groupData.length + stripeBytes - 1) / stripeBytes);
    ErasureCoder coder = ErasureCoder.java(code);
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    for (int s = 0; s < stripes; s++) {
      long base = s * stripeBytes;
      int first = (int) Math.min(cellSize, groupData.length - base);
      if (unit < k) {
        long start = base + (long) unit * cellSize;
        int len = (int) Math.max(0, Math.min(cellSize, groupData.length - start));
        if (len > 0) {
          out.write(groupData, (int) start, len);
        }
        continue;
      }
      ByteBuffer[] data = new ByteBuffer[k];
      for (int j = 0; j < k; j++) {
        byte[] cell = new byte[first];
        long start = base + (long) j * cellSize;
        int len = (int) Math.max(0, Math.min(first, groupData.length - start));
        if (len > 0) {
          System.arraycopy(groupData, (int) start, cell, 0, len);
        }
        data[j] = ByteBuffer.wrap(cell);
      }
      ByteBuffer[] parity = new ByteBuffer[code.n() - k];
      for (int i = 0; i < parity.length; i++) {
        parity[i] = ByteBuffer.allocate(first);
      }
      coder.encode(data, parity);
      out.write(parity[unit - k].array(), 0, first);
    }
    return out.toByteArray();
  }
}
