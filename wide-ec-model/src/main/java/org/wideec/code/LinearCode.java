package org.wideec.code;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Collections;
import java.util.List;
import org.wideec.gf.Gf256;
import org.wideec.gf.Matrix;

/**
 * A linear (n, k) code over GF(2^8): the generator matrix G (n x k, unit u = row u times the data), the
 * role of every unit and its local groups. Immutable and thread-safe; derived facts (parity-check matrix,
 * repair plans) are computed once on first use.
 *
 * <p>Unit order for systematic codes is data, global parities, local parities, so that Hadoop's striped
 * reader, which takes the lowest-index parities first, always uses the global ones (DESIGN.md §2).
 */
public final class LinearCode {
  public static final int MAX_UNITS = 255;

  private final String spec;
  private final int n;
  private final int k;
  private final Matrix generator;
  private final UnitRole[] roles;
  private final List<LocalGroup> localGroups;
  private final String notes;
  private final int guaranteedTolerance;
  private final int formatVersion;
  private volatile Matrix parityCheck;
  private volatile RepairPlan[] repairPlans;
  private volatile MinimumDistance distance;

  LinearCode(String spec, Matrix generator, UnitRole[] roles, List<LocalGroup> localGroups, String notes) {
    this(spec, generator, roles, localGroups, notes, -1);
  }

  /** @param guaranteedTolerance losses the construction provably (or by exhaustive check) survives, or -1 */
  LinearCode(String spec, Matrix generator, UnitRole[] roles, List<LocalGroup> localGroups, String notes,
      int guaranteedTolerance) {
    this.spec = spec;
    this.n = generator.rows();
    this.k = generator.cols();
    if (n > MAX_UNITS) {
      throw new InvalidCodeSpecException(spec + ": n = " + n + " exceeds the GF(2^8) limit of " + MAX_UNITS + " units");
    }
    if (k < 1 || k >= n) {
      // n = k stores no redundancy: nothing to repair or decode from, so no code of ours may be one.
      throw new InvalidCodeSpecException(spec + ": need 1 <= k < n (at least one parity unit), got k = " + k + ", n = " + n);
    }
    if (roles.length != n) {
      throw new IllegalArgumentException(spec + ": " + roles.length + " roles for " + n + " units");
    }
    if (generator.field() != Gf256.INSTANCE) {
      throw new IllegalArgumentException(spec + ": generator must be over GF(2^8)");
    }
    if (generator.rank() != k) {
      throw new InvalidCodeSpecException(spec + ": generator matrix has rank " + generator.rank() + " < k = " + k);
    }
    this.generator = generator;
    this.roles = roles.clone();
    this.localGroups = Collections.unmodifiableList(new ArrayList<>(localGroups));
    this.notes = notes == null ? "" : notes;
    this.guaranteedTolerance = guaranteedTolerance;
    this.formatVersion = 0;
  }

  private LinearCode(LinearCode c, int formatVersion) {
    this.spec = c.spec;
    this.n = c.n;
    this.k = c.k;
    this.generator = c.generator;
    this.roles = c.roles;
    this.localGroups = c.localGroups;
    this.notes = c.notes;
    this.guaranteedTolerance = c.guaranteedTolerance;
    this.formatVersion = formatVersion;
  }

  /** This code marked as built from the pinned coefficients of the given on-disk format (Codes only). */
  LinearCode asPinned(int version) {
    return new LinearCode(this, version);
  }

  /**
   * True when the generator comes from the pinned coefficients of an on-disk format ({@link CodeFormat}).
   * Only pinned codes may encode or decode stored data; an unpinned one (a spec outside the table, built by
   * its construction or a seeded search) is for analysis.
   */
  public boolean pinned() {
    return formatVersion > 0;
  }

  /** The on-disk format version whose table pins this code, or 0 when it is not pinned. */
  public int formatVersion() {
    return formatVersion;
  }

  /**
   * Number of arbitrary losses the construction is known to survive (proven, or checked on every pattern
   * when the code was built), or -1 when only enumeration can tell. Lets wide codes state a distance bound
   * that sampling alone could not.
   */
  public int guaranteedTolerance() {
    return guaranteedTolerance;
  }

  /** The canonical spec string, e.g. {@code azure-lrc:k=12,l=2,g=2}. */
  public String spec() {
    return spec;
  }

  public int n() {
    return n;
  }

  public int k() {
    return k;
  }

  /** Number of redundancy units, n - k. */
  public int m() {
    return n - k;
  }

  public Matrix generator() {
    return generator;
  }

  public UnitRole role(int unit) {
    checkUnit(unit);
    return roles[unit];
  }

  public List<LocalGroup> localGroups() {
    return localGroups;
  }

  /** Units of the given role, ascending. */
  public int[] unitsWithRole(UnitRole role) {
    return java.util.stream.IntStream.range(0, n).filter(u -> roles[u] == role).toArray();
  }

  /** Construction remarks (e.g. RapidRAID's natural dependencies, how coefficients were verified). */
  public String notes() {
    return notes;
  }

  /** Data units are units 0..k-1 and stored unchanged. */
  public boolean isSystematic() {
    for (int u = 0; u < k; u++) {
      if (roles[u] != UnitRole.DATA) {
        return false;
      }
      for (int c = 0; c < k; c++) {
        if (generator.get(u, c) != (u == c ? 1 : 0)) {
          return false;
        }
      }
    }
    return true;
  }

  public double redundancy() {
    return (double) n / k;
  }

  /** A parity-check matrix H ((n-k) x n) with H G = 0. */
  public Matrix parityCheck() {
    Matrix h = parityCheck;
    if (h == null) {
      h = generator.leftNullSpace();
      parityCheck = h;
    }
    return h;
  }

  /**
   * True when the data can be rebuilt after losing exactly the given units: the columns of H indexed by
   * the erasures are linearly independent (equivalently, the surviving rows of G have rank k).
   */
  public boolean isDecodable(int... erased) {
    BitSet seen = new BitSet(n);
    for (int u : erased) {
      checkUnit(u);
      if (seen.get(u)) {
        throw new IllegalArgumentException(spec + ": unit " + u + " listed twice in erasure set " + Arrays.toString(erased));
      }
      seen.set(u);
    }
    if (erased.length > n - k) {
      return false;
    }
    Matrix h = parityCheck();
    return h.selectColumns(erased).rank() == erased.length;
  }

  /**
   * The matrix D with wanted[i] = sum_j D[i][j] * inputs[j]. Inputs may be fewer than k (local repair)
   * or more than k (dependent inputs are given coefficient 0).
   *
   * @throws NotDecodableException when some wanted unit is not a combination of the inputs
   */
  public Matrix decodingMatrix(int[] inputs, int[] wanted) {
    for (int u : inputs) {
      checkUnit(u);
    }
    Matrix rows = generator.selectRows(inputs);
    int[][] d = new int[wanted.length][];
    for (int i = 0; i < wanted.length; i++) {
      checkUnit(wanted[i]);
      int[] x = rows.solveLeft(generator.row(wanted[i]));
      if (x == null) {
        throw new NotDecodableException(spec + ": unit " + wanted[i] + " cannot be rebuilt from units "
            + Arrays.toString(inputs) + " (rank " + rows.rank() + ")");
      }
      d[i] = x;
    }
    return Matrix.of(Gf256.INSTANCE, d);
  }

  /**
   * Picks a sufficient subset of the available units for rebuilding the wanted ones: the cheapest repair
   * plan when one unit is wanted and its helpers are all available, otherwise a greedy basis taken in
   * unit order (data first), stopping as soon as every wanted unit is in its span.
   *
   * @throws NotDecodableException when the available units do not suffice
   */
  public int[] chooseInputs(BitSet available, int[] wanted) {
    if (wanted.length == 1) {
      RepairPlan p = repairPlan(wanted[0]);
      boolean all = true;
      for (int h : p.helpers()) {
        all &= available.get(h);
      }
      if (all) {
        return p.helpers();
      }
    }
    RowSpan span = new RowSpan(k);
    List<Integer> chosen = new ArrayList<>();
    for (int u = available.nextSetBit(0); u >= 0; u = available.nextSetBit(u + 1)) {
      if (allInSpan(span, wanted)) {
        break;
      }
      if (span.add(generator.row(u))) {
        chosen.add(u);
      }
    }
    if (!allInSpan(span, wanted)) {
      throw new NotDecodableException(spec + ": cannot rebuild units " + Arrays.toString(wanted)
          + " from available units " + available + " (erasure set not decodable)");
    }
    return chosen.stream().mapToInt(Integer::intValue).toArray();
  }

  private boolean allInSpan(RowSpan span, int[] wanted) {
    for (int w : wanted) {
      if (!span.contains(generator.row(w))) {
        return false;
      }
    }
    return true;
  }

  /** The cheapest way to rebuild one lost unit (fewest helpers; XOR-only preferred among equals). */
  public RepairPlan repairPlan(int lostUnit) {
    checkUnit(lostUnit);
    return plans(Progress.NONE)[lostUnit];
  }

  /** Every unit's repair plan, computed once, reporting units planned (a wide code takes seconds). */
  public RepairPlan[] repairPlans(Progress progress) {
    return plans(progress).clone();
  }

  private RepairPlan[] plans(Progress progress) {
    RepairPlan[] plans = repairPlans;
    if (plans == null) {
      plans = new RepairPlanner(this).planAll(progress);
      repairPlans = plans;
    }
    return plans;
  }

  /** The code's minimum distance (exact or proven bounds), computed once: enumeration can take seconds. */
  public MinimumDistance minimumDistance() {
    return minimumDistance(Progress.NONE);
  }

  /** The same, reporting the patterns examined of the size being examined. */
  public MinimumDistance minimumDistance(Progress progress) {
    MinimumDistance d = distance;
    if (d == null) {
      d = MinimumDistance.compute(this, progress);
      distance = d;
    }
    return d;
  }

  /** Local groups that contain the unit. */
  public List<LocalGroup> groupsOf(int unit) {
    checkUnit(unit);
    List<LocalGroup> out = new ArrayList<>();
    for (LocalGroup g : localGroups) {
      if (g.contains(unit)) {
        out.add(g);
      }
    }
    return out;
  }

  void checkUnit(int unit) {
    if (unit < 0 || unit >= n) {
      throw new IndexOutOfBoundsException(spec + ": unit " + unit + " is outside 0.." + (n - 1));
    }
  }

  /** {@code units} as a set; a unit outside this code fails naming it and the list it came in. */
  BitSet unitSet(int[] units) {
    BitSet s = new BitSet(n);
    for (int u : units) {
      if (u < 0 || u >= n) {
        throw new IllegalArgumentException(spec + ": unit " + u + " out of range 0.." + (n - 1) + " in "
            + Arrays.toString(units));
      }
      s.set(u);
    }
    return s;
  }

  @Override
  public String toString() {
    return spec;
  }
}
