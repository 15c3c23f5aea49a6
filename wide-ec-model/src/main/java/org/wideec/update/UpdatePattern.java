package org.wideec.update;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Collections;
import java.util.List;
import java.util.stream.IntStream;
import org.wideec.code.LinearCode;
import org.wideec.code.LocalGroup;
import org.wideec.code.UnitRole;
import org.wideec.placement.PlacementPlan;

/**
 * A stripe's update as the planners see it (RackCU §III-B): its placement (which rack holds each unit), the data
 * units that change, and which parities each rack holds. Parities are split in two: <em>local</em> parities (a
 * local group's parity over data only) are renewed from their own group (RackCU §III-D, "Extension"; ECWide §4.3),
 * every other parity unit is <em>global</em> and is renewed by the update scheme. A changed unit may be
 * <em>cleared</em>: its new content is all zero (a deleted file's slot), so re-encoding need not read it. A parity
 * may be <em>dropped</em>: every data unit it covers is zero after the update (an LRC local group whose files all
 * left), so its new value is a known zero block that is freed, never written; no scheme renews it.
 * Immutable.
 */
public final class UpdatePattern {
  private final PlacementPlan placement;
  private final List<String> rackNames;
  private final int[] changed;
  private final BitSet cleared;
  private final BitSet dropped;
  private final int[] globalParities;
  private final int[] localParities;
  /** Per local parity, its group equation over the stripe's units; null for other units. */
  private final int[][] equations;

  private UpdatePattern(PlacementPlan placement, List<String> rackNames, int[] changed, BitSet cleared) {
    this(placement, rackNames, changed, cleared, new BitSet(), null);
  }

  /** @param same a pattern of the same placement whose parity split and group equations are reused, or null */
  private UpdatePattern(PlacementPlan placement, List<String> rackNames, int[] changed, BitSet cleared,
      BitSet dropped, UpdatePattern same) {
    LinearCode code = placement.code();
    if (!code.isSystematic()) {
      throw new IllegalArgumentException(code.spec() + " is not systematic: a delta update needs data units stored as they are");
    }
    if (rackNames.size() != placement.racks()) {
      throw new IllegalArgumentException(rackNames.size() + " rack names for the " + placement.racks() + " racks of "
          + placement);
    }
    if (rackNames.stream().distinct().count() != rackNames.size()) {
      throw new IllegalArgumentException("rack names " + rackNames + " repeat a name");
    }
    int[] c = changed.clone();
    Arrays.sort(c);
    for (int i = 0; i < c.length; i++) {
      if (c[i] < 0 || c[i] >= code.k()) {
        throw new IllegalArgumentException(code.spec() + ": changed unit " + c[i] + " is not a data unit (0.." + (code.k() - 1) + ")");
      }
      if (i > 0 && c[i] == c[i - 1]) {
        throw new IllegalArgumentException(code.spec() + ": changed unit " + c[i] + " listed twice");
      }
    }
    for (int u = cleared.nextSetBit(0); u >= 0; u = cleared.nextSetBit(u + 1)) {
      if (Arrays.binarySearch(c, u) < 0) {
        throw new IllegalArgumentException(code.spec() + ": cleared unit " + u + " is not among the changed units " + Arrays.toString(c));
      }
    }
    this.placement = placement;
    this.dropped = (BitSet) dropped.clone();
    this.rackNames = List.copyOf(rackNames);
    this.changed = c;
    this.cleared = (BitSet) cleared.clone();
    if (same != null) {
      this.localParities = same.localParities;
      this.globalParities = same.globalParities;
      this.equations = same.equations;
      return;
    }
    this.localParities = IntStream.range(code.k(), code.n()).filter(u -> isLocalParity(code, u)).toArray();
    this.globalParities = IntStream.range(code.k(), code.n()).filter(u -> !isLocalParity(code, u)).toArray();
    this.equations = new int[code.n()][];
    for (int lp : localParities) {
      equations[lp] = groupEquation(code, lp);
    }
  }

  /** The pattern with the given changed data units, racks named R1, R2, ... as in the seed's figures. */
  public static UpdatePattern of(PlacementPlan placement, int... changed) {
    List<String> names = new ArrayList<>();
    for (int r = 0; r < placement.racks(); r++) {
      names.add("R" + (r + 1));
    }
    return new UpdatePattern(placement, names, changed, new BitSet());
  }

  /** The same pattern with racks named (in plan rack order), e.g. by the command line or HDFS rack paths. */
  public UpdatePattern withRackNames(List<String> names) {
    return new UpdatePattern(placement, names, changed, cleared, dropped, this);
  }

  /** The same pattern where the given changed units become all zero (deleted), so re-encoding skips them. */
  public UpdatePattern clearing(int... units) {
    BitSet c = (BitSet) cleared.clone();
    for (int u : units) {
      c.set(u);
    }
    return new UpdatePattern(placement, rackNames, changed, c, dropped, this);
  }

  /**
   * The same pattern where the given parities are dropped: stored before the update and virtual after (every data
   * unit they cover is zero then), so their new value is a known zero block, freed rather than written. No scheme
   * sends anything for them.
   */
  public UpdatePattern dropping(int... parities) {
    BitSet d = (BitSet) dropped.clone();
    for (int p : parities) {
      if (p < code().k() || p >= code().n()) {
        throw new IllegalArgumentException(code().spec() + ": dropped unit " + p + " is not a parity unit ("
            + code().k() + ".." + (code().n() - 1) + ")");
      }
      d.set(p);
    }
    return new UpdatePattern(placement, rackNames, changed, cleared, d, this);
  }

  /**
   * A local parity renewed inside its group: the parity of a local group whose other members are data units or
   * global parities (UniLRC's groups hold both; Azure-LRC+1's extra group only global parities). It is renewed from
   * the deltas of those members, after the global parities.
   */
  private static boolean isLocalParity(LinearCode code, int unit) {
    LocalGroup g = groupOf(code, unit);
    return g != null && Arrays.stream(g.members()).allMatch(m -> m == unit || code.role(m) != UnitRole.LOCAL_PARITY);
  }

  private static LocalGroup groupOf(LinearCode code, int localParity) {
    if (code.role(localParity) != UnitRole.LOCAL_PARITY) {
      return null;
    }
    return code.localGroups().stream().filter(g -> g.localParity() == localParity).findFirst().orElse(null);
  }

  /** The solved group equation of a local parity: coefficient of every unit (0 outside the group). */
  private static int[] groupEquation(LinearCode code, int localParity) {
    int[] members = Arrays.stream(groupOf(code, localParity).members()).filter(m -> m != localParity).toArray();
    int[] row = code.decodingMatrix(members, new int[] {localParity}).row(0);
    int[] eq = new int[code.n()];
    for (int i = 0; i < members.length; i++) {
      eq[members[i]] = row[i];
    }
    return eq;
  }

  public PlacementPlan placement() {
    return placement;
  }

  public LinearCode code() {
    return placement.code();
  }

  public int racks() {
    return placement.racks();
  }

  public int rackOf(int unit) {
    return placement.rackOf(unit);
  }

  public List<String> rackNames() {
    return rackNames;
  }

  public String rackName(int rack) {
    return rackNames.get(rack);
  }

  /** Changed data units, ascending. */
  public int[] changed() {
    return changed.clone();
  }

  public boolean isChanged(int unit) {
    return Arrays.binarySearch(changed, unit) >= 0;
  }

  public boolean isCleared(int unit) {
    return cleared.get(unit);
  }

  /** Data units whose new content is not all zero (what re-encoding reads), ascending. */
  public int[] liveDataUnits() {
    return IntStream.range(0, code().k()).filter(u -> !cleared.get(u)).toArray();
  }

  /** Parities the update scheme renews (dropped ones excepted), ascending. */
  public int[] globalParities() {
    return Arrays.stream(globalParities).filter(p -> !dropped.get(p)).toArray();
  }

  /** Parities renewed inside their local group (dropped ones excepted), ascending. */
  public int[] localParities() {
    return Arrays.stream(localParities).filter(p -> !dropped.get(p)).toArray();
  }

  /** Whether the update drops this parity (its new value a known zero block), so no scheme renews it. */
  public boolean isDropped(int unit) {
    return dropped.get(unit);
  }

  /** Parities the update drops (virtual after it, never renewed), ascending. */
  public int[] droppedParities() {
    return dropped.stream().toArray();
  }

  /** Changed data units in the rack (u_x of RackCU §III-C), ascending. */
  public int[] changedIn(int rack) {
    return Arrays.stream(changed).filter(u -> placement.rackOf(u) == rack).toArray();
  }

  /** Global parities in the rack that the update renews (t_y of RackCU §III-C), ascending. */
  public int[] globalParitiesIn(int rack) {
    return Arrays.stream(globalParities()).filter(u -> placement.rackOf(u) == rack).toArray();
  }

  /**
   * gamma(p, s), the coefficient with which unit s's delta enters parity p's delta (RackCU Eq. 2): for a global
   * parity its generator row over the data units, for a local parity its group equation over the group's members.
   */
  public int coefficient(int parity, int unit) {
    if (parity < code().k()) {
      throw new IllegalArgumentException(code().spec() + ": unit " + unitName(parity) + " is not a parity");
    }
    if (equations[parity] != null) {
      return equations[parity][unit];
    }
    return unit < code().k() ? code().generator().get(parity, unit) : 0;
  }

  /** The units whose deltas enter a parity's delta directly: data units, or a local group's other members. */
  public int[] inputsOf(int parity) {
    return IntStream.range(0, code().n()).filter(u -> u != parity && coefficient(parity, u) != 0).toArray();
  }

  /** How units are named in plans and on the command line: d0.. for data, p0.. for the n-k parities. */
  public String unitName(int unit) {
    return unitName(code(), unit);
  }

  static String unitName(LinearCode code, int unit) {
    return unit < code.k() ? "d" + unit : "p" + (unit - code.k());
  }

  /** The same pattern with other changed units (and none cleared; the same parities dropped). */
  public UpdatePattern withChanged(int... units) {
    return new UpdatePattern(placement, rackNames, units, new BitSet(), dropped, this);
  }

  List<String> unitNames(int[] units) {
    List<String> names = new ArrayList<>();
    for (int u : units) {
      names.add(unitName(u));
    }
    return Collections.unmodifiableList(names);
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder(code().spec()).append(" changed ").append(unitNames(changed)).append(" over");
    for (int r = 0; r < racks(); r++) {
      sb.append(' ').append(rackName(r)).append(unitNames(placement.units(r)));
    }
    if (!dropped.isEmpty()) {
      sb.append(" dropping ").append(unitNames(droppedParities()));
    }
    return sb.toString();
  }
}
