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
   * Parity maintenance by delta (seed "Optimal Rack-Coordinated Updates" §II-C, Eq. 3): each parity unit gains the
   * changed data units' deltas times its coefficients, {@code parities[i] += sum_h g(parity i, changed[h]) *
   * deltas[h]}, in place, over the deltas' common length (over GF(2^8) adding is XOR, so a delta is old XOR new and a
   * deleted unit's delta is its old bytes). Direct buffers go to ISA-L's {@code ec_encode_data_update} when the native
   * library is loaded; otherwise the parity deltas are multiplied by the Java kernel and added.
   *
   * @param changed the changed data units (0..k-1), distinct
   * @param parities the n-k parity units in unit order (systematic codes only)
   */
  public void update(int[] changed, ByteBuffer[] deltas, ByteBuffer[] parities) {
    if (!code.isSystematic()) {
      throw new IllegalArgumentException(code.spec() + ": a delta update needs a systematic code");
    }
    if (changed == null || deltas == null || changed.length != deltas.length || changed.length == 0) {
      throw new IllegalArgumentException(code.spec() + ": update needs one delta per changed data unit, got "
          + (changed == null ? "null" : changed.length) + " units and " + (deltas == null ? "null" : deltas.length)
          + " deltas");
    }
    BitSet seen = new BitSet();
    for (int c : changed) {
      if (c < 0 || c >= code.k() || seen.get(c)) {
        throw new IllegalArgumentException(code.spec() + ": changed data unit " + c + " is outside 0.." + (code.k() - 1)
            + " or given twice");
      }
      seen.set(c);
    }
    int len = BufferChecks.check(code, "update", deltas, deltas.length, parities, parityUnits.length);
    if (len == 0) {
      return;
    }
    if (deltas[0].isDirect() && kernel instanceof Kernels.Dispatching && IsalNative.isAvailable()) {
      for (int h = 0; h < changed.length; h++) {
        IsalKernel.INSTANCE.update(parityMatrix, changed[h], deltas[h], parities, len);
      }
      return;
    }
    CodingMatrix columns = new CodingMatrix(code.generator().selectRows(parityUnits).selectColumns(changed));
    ByteBuffer[] parityDeltas = new ByteBuffer[parities.length];
    for (int i = 0; i < parityDeltas.length; i++) {
      parityDeltas[i] = ByteBuffer.allocate(len);
    }
    ByteBuffer[] heapDeltas = deltas;
    if (deltas[0].isDirect()) { // the Java kernels take heap buffers
      heapDeltas = new ByteBuffer[deltas.length];
      for (int h = 0; h < deltas.length; h++) {
        heapDeltas[h] = ByteBuffer.allocate(len).put(deltas[h].duplicate().limit(deltas[h].position() + len)).flip();
      }
    }
    Kernels.java().multiply(columns, heapDeltas, parityDeltas, len);
    for (int i = 0; i < parities.length; i++) {
      ByteBuffer p = parities[i];
      int at = p.position();
      for (int b = 0; b < len; b++) {
        p.put(at + b, (byte) (p.get(at + b) ^ parityDeltas[i].get(b)));
      }
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
