package org.wideec.coder;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.BitSet;
import java.util.concurrent.ConcurrentHashMap;
import org.wideec.code.LinearCode;
import org.wideec.code.NotDecodableException;
import org.wideec.gf.Gf256;
import org.wideec.gf.Matrix;

/**
 * Encoder and decoder for one {@link LinearCode} over ByteBuffers (all heap or all direct). Verbs after
 * klauspost/reedsolomon: {@link #encode}, {@link #reconstruct}, {@link #reconstructData}, {@link #verify}.
 * Every buffer is read or written over [position, limit); positions are never moved.
 *
 * <p>Thread-safe. Decode matrices are cached per (available units, wanted units); a cache hit, like an
 * encode, allocates nothing.
 */
public final class ErasureCoder {
  static final int MAX_CACHED_PLANS = 4096;

  private final LinearCode code;
  private final CodingKernel kernel;
  private final CodingMatrix parityMatrix;
  private final int[] parityUnits;
  private final int[] dataUnits;
  private final ConcurrentHashMap<PatternKey, DecodePlan> plans = new ConcurrentHashMap<>();
  private final ThreadLocal<PatternKey> lookupKey = ThreadLocal.withInitial(PatternKey::new);
  /** Per-thread input arrays by length, so gathering a plan's inputs allocates nothing. */
  private final ThreadLocal<ByteBuffer[][]> gatherScratch = ThreadLocal.withInitial(() -> {
    ByteBuffer[][] s = new ByteBuffer[LinearCode.MAX_UNITS + 1][];
    for (int i = 0; i < s.length; i++) {
      s[i] = new ByteBuffer[i];
    }
    return s;
  });

  public ErasureCoder(LinearCode code, CodingKernel kernel) {
    this.code = code;
    this.kernel = kernel;
    // Systematic codes compute only the parity units; others compute every unit from the data.
    this.parityUnits = code.isSystematic()
        ? java.util.stream.IntStream.range(code.k(), code.n()).toArray()
        : java.util.stream.IntStream.range(0, code.n()).toArray();
    this.dataUnits = java.util.stream.IntStream.range(0, code.k()).toArray();
    this.parityMatrix = new CodingMatrix(code.generator().selectRows(parityUnits));
  }

  /** A coder on the fastest pure-Java kernel (Vector API when enabled, else table-driven). */
  public static ErasureCoder java(LinearCode code) {
    return new ErasureCoder(code, Kernels.java());
  }

  /** A coder on the fastest kernel available: ISA-L for direct buffers when loaded. */
  public static ErasureCoder best(LinearCode code) {
    return new ErasureCoder(code, Kernels.best());
  }

  public LinearCode code() {
    return code;
  }

  public CodingKernel kernel() {
    return kernel;
  }

  /** Units that {@link #encode} writes: n-k parities for systematic codes, all n units otherwise. */
  public int[] encodedUnits() {
    return parityUnits.clone();
  }

  /**
   * Computes the encoded units from k data buffers. For a systematic code {@code outputs} are the n-k
   * parity units in unit order; for a non-systematic one (RapidRAID) all n units.
   */
  public void encode(ByteBuffer[] data, ByteBuffer[] outputs) {
    int len = BufferChecks.check(code, "encode", data, code.k(), outputs, parityUnits.length);
    if (len > 0) {
      kernel.multiply(parityMatrix, data, outputs, len);
    }
  }

  /**
   * Rebuilds the wanted units from the available ones. {@code units} has one entry per unit of the code,
   * null where a unit is missing or not to be read; {@code outputs[i]} receives unit {@code wanted[i]}.
   * Reads the fewest units it can: a local group when one suffices, fewer than k inputs then.
   *
   * @throws NotDecodableException naming the code and the erasure set when the inputs do not suffice
   */
  public void reconstruct(ByteBuffer[] units, int[] wanted, ByteBuffer[] outputs) {
    decode(units, wanted, outputs, false);
  }

  /** Rebuilds the k data symbols (for a systematic code, the data units) from the available units. */
  public void reconstructData(ByteBuffer[] units, ByteBuffer[] dataOut) {
    decode(units, dataUnits, dataOut, !code.isSystematic());
  }

  /**
   * True when every unit equals what the code computes from the data: for a systematic code the data
   * units re-encoded; otherwise the data rebuilt from the first k independent units, re-encoded.
   */
  public boolean verify(ByteBuffer[] units) {
    int len = BufferChecks.check(code, "verify", units, code.n(), new ByteBuffer[0], 0);
    boolean direct = units[0].isDirect();
    ByteBuffer[] data;
    if (code.isSystematic()) {
      data = Arrays.copyOf(units, code.k());
    } else {
      data = new ByteBuffer[code.k()];
      for (int i = 0; i < data.length; i++) {
        data[i] = direct ? ByteBuffer.allocateDirect(len) : ByteBuffer.allocate(len);
      }
      reconstructData(units, data);
    }
    ByteBuffer[] expected = new ByteBuffer[parityUnits.length];
    for (int i = 0; i < expected.length; i++) {
      expected[i] = direct ? ByteBuffer.allocateDirect(len) : ByteBuffer.allocate(len);
    }
    encode(data, expected);
    for (int i = 0; i < expected.length; i++) {
      ByteBuffer actual = units[parityUnits[i]];
      if (actual.slice().limit(len).compareTo(expected[i]) != 0) {
        return false;
      }
    }
    return true;
  }

  private void decode(ByteBuffer[] units, int[] wanted, ByteBuffer[] outputs, boolean dataSymbols) {
    if (units == null || units.length != code.n()) {
      throw new IllegalArgumentException(code.spec() + ": decode needs " + code.n() + " unit slots (null for missing), got "
          + (units == null ? "null" : units.length));
    }
    if (wanted.length != outputs.length) {
      throw new IllegalArgumentException(code.spec() + ": " + wanted.length + " wanted units but " + outputs.length + " outputs");
    }
    PatternKey key = lookupKey.get();
    key.clear();
    key.dataSymbols = dataSymbols;
    for (int u = 0; u < units.length; u++) {
      if (units[u] != null) {
        PatternKey.set(key.available, u);
      }
    }
    for (int w : wanted) {
      if (w < 0 || w >= (dataSymbols ? code.k() : code.n())) {
        throw new IllegalArgumentException(code.spec() + ": wanted unit " + w + " is out of range");
      }
      PatternKey.set(key.wanted, w);
    }
    DecodePlan plan = plans.get(key);
    if (plan == null || !Arrays.equals(plan.wanted(), wanted)) {
      plan = plan(units, wanted, dataSymbols);
      if (plans.size() >= MAX_CACHED_PLANS) {
        plans.clear();
      }
      plans.put(key.copy(), plan);
    }
    ByteBuffer[] inputs = gatherScratch.get()[plan.inputs().length];
    for (int i = 0; i < inputs.length; i++) {
      inputs[i] = units[plan.inputs()[i]];
    }
    int len = BufferChecks.check(code, "decode", inputs, inputs.length, outputs, outputs.length);
    if (len > 0) {
      kernel.multiply(plan.matrix(), inputs, outputs, len);
    }
  }

  private DecodePlan plan(ByteBuffer[] units, int[] wanted, boolean dataSymbols) {
    BitSet available = new BitSet(code.n());
    for (int u = 0; u < units.length; u++) {
      if (units[u] != null) {
        available.set(u);
      }
    }
    Matrix m;
    int[] inputs;
    if (dataSymbols) {
      inputs = chooseBasis(available);
      m = code.generator().selectRows(inputs).inverse();
      m = m.selectRows(wanted);
    } else {
      inputs = code.chooseInputs(available, wanted);
      m = code.decodingMatrix(inputs, wanted);
    }
    return new DecodePlan(inputs, wanted.clone(), new CodingMatrix(m));
  }

  /** k available units with independent generator rows, or NotDecodableException. */
  private int[] chooseBasis(BitSet available) {
    int[] chosen = new int[code.k()];
    int found = 0;
    Matrix g = code.generator();
    int[][] rows = new int[code.k()][];
    for (int u = available.nextSetBit(0); u >= 0 && found < code.k(); u = available.nextSetBit(u + 1)) {
      rows[found] = g.row(u);
      if (Matrix.of(Gf256.INSTANCE, Arrays.copyOf(rows, found + 1)).rank() == found + 1) {
        chosen[found++] = u;
      }
    }
    if (found < code.k()) {
      BitSet lost = new BitSet(code.n());
      lost.set(0, code.n());
      lost.andNot(available);
      throw new NotDecodableException(code.spec() + ": data cannot be rebuilt, erasure set " + lost + " is not decodable");
    }
    return chosen;
  }
}
