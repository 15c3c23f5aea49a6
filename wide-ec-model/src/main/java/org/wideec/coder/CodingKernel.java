package org.wideec.coder;

import java.nio.ByteBuffer;

/**
 * The hot loop behind every encoder and decoder: outputs[r] = sum_c m(r, c) * inputs[c] over {@code len}
 * bytes starting at each buffer's position. Positions and limits are not changed. Arguments arrive
 * validated (counts, lengths, all heap or all direct) by {@link ErasureCoder}. Implementations are
 * stateless and thread-safe; they differ only in speed (STYLE.md: speed work never tangles the algebra).
 */
public interface CodingKernel {
  String name();

  void multiply(CodingMatrix m, ByteBuffer[] inputs, ByteBuffer[] outputs, int len);
}
