package org.wideec.archive;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.IntFunction;
import org.wideec.code.LinearCode;
import org.wideec.code.UnitSpan;
import org.wideec.repair.BlockRef;
import org.wideec.repair.RepairScheme;
import org.wideec.repair.StripeRepair;
import org.wideec.repair.UnitLocation;
import org.wideec.topology.Site;

/**
 * What an archived stripe needs after losses, from its manifest and what the NameNode sees now.
 * Every stored member falls in one class:
 * <ul>
 *   <li><b>helper</b>: its block still has the manifest's generation stamp and length and a live replica;</li>
 *   <li><b>lost</b>: unchanged but with no live replica, so it is rebuilt under its original id from the helpers and
 *       checked against the manifest's CRC; a lost unit the helpers (with virtual padding as zeros) cannot decode is
 *       <b>unrecoverable</b> and named as such, never guessed;</li>
 *   <li><b>stale</b>: its generation stamp or length differs from the manifest (an append or truncate after archival):
 *       the parity describes bytes it no longer holds, so it is never a helper and never rebuilt, and the stripe is
 *       reported stale;</li>
 *   <li><b>gone</b>: the namesystem no longer has its block (the file was deleted): neither helper nor target.</li>
 * </ul>
 * The repair of one lost unit is handed to the existing repair planning as a {@link StripeRepair}: the code's
 * cheapest plan (local group first) when its helpers are all here, otherwise a rebuilding set in the caller's order
 * of preference (least recently selected first); the scheme decides who sends what (in-rack partial sums).
 */
public final class ArchivedStripeRepair {
  /**
   * A member's block as the NameNode holds it now.
   *
   * @param live replicas the NameNode counts live (not on a dead, decommissioned or corrupt storage)
   */
  public record BlockNow(long generationStamp, long length, List<Site> live) {
    public BlockNow {
      live = List.copyOf(live);
    }
  }

  private final ArchivedStripe stripe;
  private final int[] lost;
  private final int[] unrecoverable;
  private final int[] stale;
  private final int[] gone;
  private final Map<Integer, UnitLocation> helpers;
  private final Set<Integer> zeros;

  private ArchivedStripeRepair(ArchivedStripe stripe, int[] lost, int[] unrecoverable, int[] stale, int[] gone,
      Map<Integer, UnitLocation> helpers, Set<Integer> zeros) {
    this.stripe = stripe;
    this.lost = lost;
    this.unrecoverable = unrecoverable;
    this.stale = stale;
    this.gone = gone;
    this.helpers = Collections.unmodifiableMap(helpers);
    this.zeros = Collections.unmodifiableSet(zeros);
  }

  /**
   * Whether the stripe's parity protects its members: COMMITTED or TRIMMED, or STALE with every stored member's
   * block and CRC recorded (a stripe gone stale after its parity was verified keeps protecting its unchanged members).
   */
  public static boolean protects(ArchivedStripe s) {
    if (s.state() == StripeState.COMMITTED || s.state() == StripeState.TRIMMED) {
      return true;
    }
    if (s.state() != StripeState.STALE) {
      return false;
    }
    for (int u : s.storedUnits()) {
      StripeMember m = s.member(u);
      if (m.blockId() == 0 || !m.hasCrc()) {
        return false;
      }
    }
    return true;
  }

  /**
   * @param now each stored unit's block as the NameNode holds it; a stored unit absent from the map is gone
   * @throws IllegalArgumentException when the stripe's parity does not protect it ({@link #protects})
   */
  public static ArchivedStripeRepair of(ArchivedStripe s, Map<Integer, BlockNow> now) {
    if (!protects(s)) {
      throw new IllegalArgumentException("stripe " + s.stripeId() + " (" + s.codeSpec() + ") is " + s.state()
          + ": its parity protects nothing yet, so nothing is repaired from it");
    }
    LinearCode code = s.code();
    List<Integer> lost = new ArrayList<>();
    List<Integer> stale = new ArrayList<>();
    List<Integer> gone = new ArrayList<>();
    Map<Integer, UnitLocation> helpers = new LinkedHashMap<>();
    Set<Integer> zeros = new TreeSet<>();
    for (int u = 0; u < code.n(); u++) {
      StripeMember m = s.member(u);
      if (m.padding()) {
        zeros.add(u);
        continue;
      }
      BlockNow b = now.get(u);
      if (b == null) {
        gone.add(u);
      } else if (b.generationStamp() != m.generationStamp() || b.length() != m.length()) {
        stale.add(u);
      } else if (b.live().isEmpty()) {
        lost.add(u);
      } else {
        Site r = b.live().stream().filter(x -> x.rack().equals(m.plannedRack())).findFirst().orElse(b.live().get(0));
        helpers.put(u, new UnitLocation(u, r));
      }
    }
    UnitSpan span = new UnitSpan(code);
    helpers.keySet().forEach(span::add);
    zeros.forEach(span::add);
    List<Integer> decodable = new ArrayList<>();
    List<Integer> unrecoverable = new ArrayList<>();
    for (int u : lost) {
      (span.canRebuild(u) ? decodable : unrecoverable).add(u);
    }
    return new ArchivedStripeRepair(s, ints(decodable), ints(unrecoverable), ints(stale), ints(gone), helpers, zeros);
  }

  public ArchivedStripe stripe() {
    return stripe;
  }

  /** Lost units the helpers rebuild, ascending. */
  public int[] lost() {
    return lost.clone();
  }

  /** Lost units the helpers cannot decode, ascending. */
  public int[] unrecoverable() {
    return unrecoverable.clone();
  }

  /** Units changed since archival (never helpers, never rebuilt), ascending. */
  public int[] stale() {
    return stale.clone();
  }

  /** Units whose block the namesystem no longer has, ascending. */
  public int[] gone() {
    return gone.clone();
  }

  /** Units that may help, with the replica each is read from. */
  public Map<Integer, UnitLocation> helpers() {
    return helpers;
  }

  /** Virtual padding units (zeros). */
  public Set<Integer> zeros() {
    return zeros;
  }

  /** Nothing to rebuild and nothing beyond repair. */
  public boolean healthy() {
    return lost.length == 0 && unrecoverable.length == 0;
  }

  /**
   * The repair of one lost unit, for the existing planning and engine.
   *
   * @param refs the replica (with its read token) of each helper unit
   * @param preference order in which to try helpers when the code's cheapest plan is not available
   */
  public StripeRepair repairOf(int unit, String name, IntFunction<BlockRef> refs, RepairScheme scheme,
      Comparator<Integer> preference) {
    return repairOf(new int[] {unit}, name, refs, scheme, preference);
  }

  /** The repair of several lost units by one decode ({@link RebuildJobs}), as {@link #repairOf(int, String,
   *  IntFunction, RepairScheme, Comparator)} for one. */
  public StripeRepair repairOf(int[] units, String name, IntFunction<BlockRef> refs, RepairScheme scheme,
      Comparator<Integer> preference) {
    long[] lengths = new long[units.length];
    for (int i = 0; i < units.length; i++) {
      int unit = units[i];
      if (Arrays.stream(lost).noneMatch(u -> u == unit)) {
        throw new IllegalArgumentException(name + ": unit " + unit + " is not among the rebuildable lost units "
            + Arrays.toString(lost) + (Arrays.stream(unrecoverable).anyMatch(u -> u == unit)
                ? " (it is unrecoverable from the units left)" : ""));
      }
      lengths[i] = stripe.member(unit).length();
    }
    Map<Integer, BlockRef> blocks = new HashMap<>();
    helpers.keySet().forEach(u -> blocks.put(u, refs.apply(u)));
    return new StripeRepair(name, stripe.code(), units, lengths, helpers, blocks, zeros, scheme,
        org.wideec.repair.LinkWeights.UNIFORM, preference);
  }

  /** One line for logs: what was found, by unit and block. */
  public String describe() {
    StringBuilder b = new StringBuilder("stripe " + stripe.stripeId() + " (" + stripe.codeSpec() + ", " + stripe.state()
        + "): ");
    b.append(units("lost", lost)).append(units("unrecoverable", unrecoverable)).append(units("stale", stale))
        .append(units("gone", gone)).append(helpers.size()).append(" helpers");
    return b.toString();
  }

  private String units(String what, int[] us) {
    if (us.length == 0) {
      return "";
    }
    StringBuilder b = new StringBuilder(what + " ");
    for (int i = 0; i < us.length; i++) {
      b.append(i == 0 ? "" : ", ").append("unit ").append(us[i]).append(" (blk_").append(stripe.member(us[i]).blockId())
          .append(')');
    }
    return b.append("; ").toString();
  }

  private static int[] ints(List<Integer> l) {
    return l.stream().mapToInt(Integer::intValue).toArray();
  }
}
