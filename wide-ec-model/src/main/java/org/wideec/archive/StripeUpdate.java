package org.wideec.archive;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.wideec.code.LinearCode;
import org.wideec.code.UnitRole;
import org.wideec.gf.Matrix;

/**
 * What one parity update does to one systematic stripe (seed "Optimal Rack-Coordinated Updates" §II-C, Eq. 3): each
 * changed data unit adds its delta to every parity whose generator row touches it, P' = P + sum_h gamma_h * (D'_h -
 * D_h). A unit that leaves (a deleted file's block) becomes a virtual zero, so its delta is its old bytes; a replaced
 * unit's is old XOR new; a virtual slot that a fill gives a new block, the block itself. A parity whose row then touches only virtual data becomes virtual itself; and when the unit
 * length (the longest data block) changes, every stored parity is rewritten at the new length (past the shorter
 * length every data unit is zero, so the parity is too). Pure: the HDFS side reads, computes and writes.
 */
public final class StripeUpdate {
  private final ArchivedStripe before;
  private final BitSet changed;
  private final List<StripeMember> after;
  private final long nextUnitLength;
  private final boolean fills;

  private StripeUpdate(ArchivedStripe before, Map<Integer, StripeMember> changes) {
    this(before, changes, Map.of());
  }

  /** {@code comingOn}: virtual parities the changes make non-zero, each with its planned member. */
  private StripeUpdate(ArchivedStripe before, Map<Integer, StripeMember> changes,
      Map<Integer, StripeMember> comingOn) {
    this.before = before;
    this.changed = new BitSet();
    this.fills = !comingOn.isEmpty() || changes.keySet().stream().anyMatch(u -> before.member(u).padding());
    List<StripeMember> next = new ArrayList<>(before.members());
    changes.forEach((u, m) -> {
      changed.set(u);
      next.set(u, m);
    });
    comingOn.forEach(next::set);
    long length = 0;
    for (StripeMember m : next) {
      if (m.role() == UnitRole.DATA && !m.padding()) {
        length = Math.max(length, m.length());
      }
    }
    this.nextUnitLength = length;
    LinearCode code = before.code();
    for (int u = code.k(); u < code.n(); u++) {
      if (!next.get(u).padding() && ArchivedStripe.zeroParity(code, u, d -> next.get(d).padding())) {
        next.set(u, StripeMember.padding(next.get(u).role()));
      }
    }
    this.after = next;
  }

  /**
   * The update of a stripe whose data blocks of the given inodes leave it.
   *
   * @throws IllegalArgumentException for a sealed stripe (its units are codewords, not the file's blocks), or when no
   *     data unit of the stripe belongs to those inodes
   */
  public static StripeUpdate removing(ArchivedStripe stripe, Set<Long> inodes) {
    return changing(stripe, inodes, Map.of());
  }

  /**
   * The update of a stripe whose data blocks of the {@code removed} inodes leave it, and whose blocks listed in {@code
   * replaced} (old block id → the new content's block, a data member on the old unit's planned node and rack) change.
   *
   * @throws IllegalArgumentException for a sealed stripe (its units are codewords, not the file's blocks), when no
   *     data unit of the stripe is changed, or a replacement is not a stored data member
   */
  public static StripeUpdate changing(ArchivedStripe stripe, Set<Long> removed, Map<Long, StripeMember> replaced) {
    if (stripe.sealed() || !stripe.code().isSystematic()) {
      throw new IllegalArgumentException("stripe " + stripe.stripeId() + " (" + stripe.codeSpec() + ") is sealed: only"
          + " a systematic stripe's data units are the files' own blocks, which an update can change");
    }
    Map<Integer, StripeMember> changes = new java.util.TreeMap<>();
    for (int u = 0; u < stripe.code().k(); u++) {
      StripeMember m = stripe.member(u);
      if (m.padding()) {
        continue;
      }
      StripeMember next = replaced.get(m.blockId());
      if (next != null) {
        if (next.role() != UnitRole.DATA || next.padding()) {
          throw new IllegalArgumentException("stripe " + stripe.stripeId() + " unit " + u + ": block " + m.blockId()
              + " is replaced by a " + (next.padding() ? "virtual " : "") + next.role() + " member, not a stored data"
              + " block");
        }
        changes.put(u, next);
      } else if (removed.contains(m.inodeId())) {
        changes.put(u, StripeMember.padding(UnitRole.DATA));
      }
    }
    if (changes.isEmpty()) {
      throw new IllegalArgumentException("stripe " + stripe.stripeId() + " holds no data block of inodes " + removed
          + " nor any of the replaced blocks " + replaced.keySet());
    }
    return new StripeUpdate(stripe, changes);
  }

  /**
   * The update of a stripe whose virtual data slots take new blocks ({@code wide-ec archive --fill}): a slot's old
   * content is zero, so its delta is the new block (seed §II-C, Eq. 3 with the old unit zero). A virtual parity whose
   * row the new blocks touch comes on: its old content is zero as well, and it is written like a rewritten one.
   *
   * @param slots virtual data unit → the new data member (on the slot's planned node and rack)
   * @param comingOn virtual parity unit → its planned member, exactly the parities the slots make non-zero
   * @throws IllegalArgumentException for a sealed stripe, a slot that is not a virtual data unit or a member that is
   *     not a stored data block, or parities coming on that are not exactly those the slots make non-zero
   */
  public static StripeUpdate filling(ArchivedStripe stripe, Map<Integer, StripeMember> slots,
      Map<Integer, StripeMember> comingOn) {
    if (stripe.sealed() || !stripe.code().isSystematic()) {
      throw new IllegalArgumentException("stripe " + stripe.stripeId() + " (" + stripe.codeSpec() + ") is sealed: its"
          + " units are codewords, it has no virtual data slot to fill");
    }
    if (slots.isEmpty()) {
      throw new IllegalArgumentException("stripe " + stripe.stripeId() + ": a fill needs at least one slot");
    }
    LinearCode code = stripe.code();
    slots.forEach((u, m) -> {
      if (u < 0 || u >= code.k() || !stripe.member(u).padding() || m.role() != UnitRole.DATA || m.padding()) {
        throw new IllegalArgumentException("stripe " + stripe.stripeId() + " unit " + u + ": only a virtual data unit"
            + " takes a new stored data block, got " + (m.padding() ? "a virtual " : "a ") + m.role() + " member for a"
            + (u >= 0 && u < code.k() && stripe.member(u).padding() ? " virtual" : " stored or parity") + " unit");
      }
    });
    Set<Integer> expected = new java.util.TreeSet<>();
    for (int p = code.k(); p < code.n(); p++) {
      if (stripe.member(p).padding()
          && !ArchivedStripe.zeroParity(code, p, d -> !slots.containsKey(d) && stripe.member(d).padding())) {
        expected.add(p);
      }
    }
    if (!expected.equals(new java.util.TreeSet<>(comingOn.keySet()))) {
      throw new IllegalArgumentException("stripe " + stripe.stripeId() + ": the slots " + slots.keySet() + " make"
          + " virtual parities " + expected + " non-zero, planned members given for " + comingOn.keySet());
    }
    return new StripeUpdate(stripe, new java.util.TreeMap<>(slots), comingOn);
  }

  public ArchivedStripe before() {
    return before;
  }

  /** True for a fill: virtual units of the stripe become stored. */
  public boolean fills() {
    return fills;
  }

  /** The data units that leave the stripe (virtual after), ascending. */
  public int[] removedUnits() {
    return changed.stream().filter(u -> after.get(u).padding()).toArray();
  }

  /** Every data unit whose bytes change (removed or replaced), ascending: the units with a delta. */
  public int[] changedUnits() {
    return changed.stream().toArray();
  }

  /** The data member a changed unit has after the update (virtual when removed). */
  public StripeMember after(int unit) {
    return after.get(unit);
  }

  /**
   * The data units stored after the update, ascending, each with its member (kept, replaced or filled): what
   * re-encoding the stripe reads. A removed unit is not among them; it counts as zeros.
   */
  public Map<Integer, StripeMember> storedDataAfter() {
    Map<Integer, StripeMember> out = new java.util.TreeMap<>();
    for (int u = 0; u < before.code().k(); u++) {
      if (!after.get(u).padding()) {
        out.put(u, after.get(u));
      }
    }
    return out;
  }

  /** True when no stored data unit remains: the stripe protects nothing and leaves the manifest at the commit. */
  public boolean dropsStripe() {
    for (int u = 0; u < before.code().k(); u++) {
      if (!after.get(u).padding()) {
        return false;
      }
    }
    return true;
  }

  /** The length of every stored parity after the update: the longest remaining data block. */
  public long nextUnitLength() {
    return nextUnitLength;
  }

  /**
   * The parity units stored after the update that need a new block: those whose generator row touches a changed
   * unit, and every one when the unit length changes. Ascending.
   */
  public int[] rewrittenParities() {
    LinearCode code = before.code();
    boolean resized = nextUnitLength != before.unitLength();
    List<Integer> out = new ArrayList<>();
    for (int u = code.k(); u < code.n(); u++) {
      if (after.get(u).padding()) {
        continue;
      }
      int[] row = code.generator().row(u);
      boolean touched = changed.stream().anyMatch(d -> row[d] != 0);
      if (touched || resized) {
        out.add(u);
      }
    }
    return out.stream().mapToInt(Integer::intValue).toArray();
  }

  /** The parity units stored before and virtual after (every data unit they cover left): their blocks are freed. */
  public int[] vanishingParities() {
    LinearCode code = before.code();
    List<Integer> out = new ArrayList<>();
    for (int u = code.k(); u < code.n(); u++) {
      if (!before.member(u).padding() && after.get(u).padding()) {
        out.add(u);
      }
    }
    return out.stream().mapToInt(Integer::intValue).toArray();
  }

  /**
   * The stripe after the update, in the state it had (a filled trimmed stripe: COMMITTED): the removed units
   * virtual, each rewritten parity and each replaced or filled data unit the block given for it (a parity's new inode,
   * id, generation stamp, length and CRC32C; a replacement with the CRC32C of its bytes; planned node and rack as
   * planned).
   *
   * @throws IllegalArgumentException when a rewritten parity or replaced unit has no block, or one is given for
   *     another unit
   */
  public ArchivedStripe next(Map<Integer, StripeMember> written) {
    Set<Integer> wanted = new java.util.TreeSet<>();
    for (int u : rewrittenParities()) {
      wanted.add(u);
    }
    changed.stream().filter(u -> !after.get(u).padding()).forEach(wanted::add);
    if (!wanted.equals(new java.util.TreeSet<>(written.keySet()))) {
      throw new IllegalArgumentException("stripe " + before.stripeId() + ": new blocks for units "
          + new java.util.TreeSet<>(written.keySet()) + ", the update rewrites units " + wanted);
    }
    List<StripeMember> next = new ArrayList<>(after);
    written.forEach(next::set);
    ArchivedStripe out = before.withMembers(next);
    if (fills && out.state() == StripeState.TRIMMED) {
      // A filled block still has every replica: the stripe is committed again, and the archival trim lowers the new
      // files (COMMITTED -> TRIMMED) only now that the parity protecting them is committed.
      out = new ArchivedStripe(out.stripeId(), out.codeSpec(), out.codeFormatVersion(), StripeState.COMMITTED,
          out.parityFilePath(), out.parityFileInode(), out.members(), out.sources());
    }
    return out;
  }

  /**
   * The update as the update planners see it ({@link org.wideec.update.UpdatePattern}): each stored unit in its
   * planned rack, racks named as HDFS names them, the changed units, the removed ones cleared (their new content is
   * zero), and the vanishing parities dropped (their new value is a known zero block, freed: no plan renews them, so
   * the plan's renewed parities are exactly {@link #rewrittenParities} when the unit length stays). Virtual units hold
   * no bytes and take no transfer; they are placed in the rack of the first stored data unit so the placement names
   * every unit.
   */
  public org.wideec.update.UpdatePattern pattern() {
    return pattern(Map.of());
  }

  /**
   * As {@link #pattern()}, with the stored units of {@code readRacks} in the racks their roles read them from rather
   * than their planned ones: a unit whose replicas left its planned rack (an excess replica dropped after a move, the
   * Balancer) has its delta computed where it is, and the plan must count the racks that delta really crosses.
   */
  public org.wideec.update.UpdatePattern pattern(Map<Integer, String> readRacks) {
    LinearCode code = before.code();
    List<String> racks = new ArrayList<>();
    int[] rackOf = new int[code.n()];
    String home = null;
    for (int u = 0; u < code.n(); u++) {
      StripeMember m = before.member(u);
      if (!m.padding()) {
        String rack = readRacks.getOrDefault(u, m.plannedRack());
        home = home == null ? rack : home;
        if (!racks.contains(rack)) {
          racks.add(rack);
        }
      }
    }
    for (int u = 0; u < code.n(); u++) {
      boolean filled = before.member(u).padding();
      StripeMember m = filled ? after.get(u) : before.member(u); // a filled slot: its new rack
      String rack = filled ? m.plannedRack() : readRacks.getOrDefault(u, m.plannedRack());
      if (!m.padding() && !racks.contains(rack)) {
        racks.add(rack);
      }
      rackOf[u] = racks.indexOf(m.padding() ? home : rack);
    }
    org.wideec.placement.PlacementPlan placement = new org.wideec.placement.PlacementPlan("manifest", code, rackOf);
    return org.wideec.update.UpdatePattern.of(placement, changedUnits()).withRackNames(racks)
        .clearing(removedUnits()).dropping(vanishingParities());
  }

  /**
   * The unit sets a verification decodes from (DESIGN.md §3.3: a random k-subset holding every changed slot): each
   * set, with the stripe's virtual data units as known zeros, is exactly k independent units, so every unit in it
   * contributes to the decode (the inverse of an invertible matrix has no zero column) and a wrong rewritten parity
   * in it changes some decoded data unit. Rewritten parities go in first, then the other stored units in random
   * order; when rewritten parities are dependent on each other (no k-subset holds them all), further sets cover the
   * rest. Each returned set lists the stored units only, ascending.
   *
   * @param next the stripe after the update ({@link #next})
   * @throws IllegalStateException when the stored units of {@code next} do not decode the stripe
   */
  public List<int[]> verificationSets(ArchivedStripe next, Random rnd) {
    LinearCode code = next.code();
    Matrix g = code.generator();
    List<Integer> virtualData = new ArrayList<>();
    List<Integer> others = new ArrayList<>();
    Set<Integer> uncovered = new LinkedHashSet<>();
    for (int u : rewrittenParities()) {
      uncovered.add(u);
    }
    for (int u = 0; u < code.n(); u++) {
      if (next.member(u).padding()) {
        if (u < code.k()) {
          virtualData.add(u);
        }
      } else if (!uncovered.contains(u)) {
        others.add(u);
      }
    }
    List<int[]> sets = new ArrayList<>();
    do {
      List<Integer> order = new ArrayList<>(uncovered);
      Collections.shuffle(order, rnd);
      List<Integer> rest = new ArrayList<>(others);
      Collections.shuffle(rest, rnd);
      order.addAll(rest);
      List<Integer> rows = new ArrayList<>(virtualData);
      List<Integer> chosen = new ArrayList<>();
      for (int u : order) {
        if (rows.size() == code.k()) {
          break;
        }
        rows.add(u);
        if (rank(g, rows) == rows.size()) {
          chosen.add(u);
        } else {
          rows.remove(rows.size() - 1);
        }
      }
      if (rows.size() < code.k()) {
        throw new IllegalStateException("stripe " + next.stripeId() + " (" + next.codeSpec() + "): its stored units"
            + " reach rank " + rows.size() + " of k = " + code.k() + "; they do not decode the stripe");
      }
      if (!uncovered.removeAll(chosen) && !uncovered.isEmpty()) {
        throw new IllegalStateException("stripe " + next.stripeId() + ": no decodable k-subset holds parity units "
            + uncovered);
      }
      sets.add(chosen.stream().mapToInt(Integer::intValue).sorted().toArray());
    } while (!uncovered.isEmpty());
    return sets;
  }

  private static int rank(Matrix g, List<Integer> rows) {
    return g.selectRows(rows.stream().mapToInt(Integer::intValue).toArray()).rank();
  }
}
