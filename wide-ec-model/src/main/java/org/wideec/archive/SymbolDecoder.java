package org.wideec.archive;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.ConcurrentHashMap;
import org.wideec.code.LinearCode;
import org.wideec.code.NotDecodableException;
import org.wideec.coder.CodingKernel;
import org.wideec.coder.CodingMatrix;
import org.wideec.gf.Matrix;

/**
 * Decodes chosen data symbols (source pieces) of a sealed stripe from k independent codewords: the wanted rows of the
 * inverse of those codewords' generator rows. Only the wanted pieces are computed, so a read of one piece costs k
 * codeword reads and one row of multiply-adds per byte, not a whole stripe's decode. Thread-safe; matrices cached.
 */
public final class SymbolDecoder {
  private static final int MAX_CACHED = 256;
  private final LinearCode code;
  private final CodingKernel kernel;
  private final ConcurrentHashMap<String, CodingMatrix> matrices = new ConcurrentHashMap<>();

  public SymbolDecoder(LinearCode code, CodingKernel kernel) {
    this.code = code;
    this.kernel = kernel;
  }

  public LinearCode code() {
    return code;
  }

  /**
   * @param units the k codewords read, in the order of {@code inputs}
   * @param symbols the data symbols wanted, in the order of {@code outputs}
   * @throws NotDecodableException naming the code and units when they are not independent
   */
  public void decode(int[] units, ByteBuffer[] inputs, int[] symbols, ByteBuffer[] outputs, int len) {
    if (units.length != code.k() || inputs.length != units.length || symbols.length != outputs.length) {
      throw new IllegalArgumentException(code.spec() + ": decode needs k = " + code.k() + " codewords and one output"
          + " per wanted symbol, got " + units.length + " units, " + inputs.length + " inputs, " + symbols.length
          + " symbols, " + outputs.length + " outputs");
    }
    String key = Arrays.toString(units) + Arrays.toString(symbols);
    CodingMatrix m = matrices.get(key);
    if (m == null) {
      Matrix rows = code.generator().selectRows(units);
      if (rows.rank() < code.k()) {
        throw new NotDecodableException(code.spec() + ": codewords " + Arrays.toString(units) + " are dependent"
            + " (rank " + rows.rank() + " < k = " + code.k() + ")");
      }
      m = new CodingMatrix(rows.inverse().selectRows(symbols));
      if (matrices.size() >= MAX_CACHED) {
        matrices.clear();
      }
      matrices.put(key, m);
    }
    if (len > 0) {
      kernel.multiply(m, inputs, outputs, len);
    }
  }
}
