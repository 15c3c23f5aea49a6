package org.wideec.archive;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;
import org.wideec.code.LinearCode;
import org.wideec.code.RemainingTolerance;
import org.wideec.topology.Site;

/**
 * {@code wide-ec fsck} of one archived stripe: the manifest's record held against what HDFS reports for
 * each stored member now. Pure: the HDFS side only gathers a {@link Observed} per member. A member is
 * <ul>
 *   <li><b>stale</b> when its file is gone, no longer holds the block, or holds it with another generation stamp or
 *       length (append, truncate, overwrite): the parity no longer covers those bytes, so it counts as lost;</li>
 *   <li><b>missing</b> when its block has no live replica;</li>
 *   <li><b>off plan</b> when it is meant to sit on one node (a data block of a TRIMMED stripe, a written parity block)
 *       and no replica is there.</li>
 * </ul>
 * Stale and missing members are the stripe's erasures: whether the survivors still decode and how many more units
 * it can lose come from the code itself ({@link RemainingTolerance}; virtual padding is never lost). A stripe before
 * COMMITTED stopped mid-archive, and a stripe recorded STALE no longer protects its data; both are findings too.
 * A stripe with members changed for good is one more finding naming them and the replication its other units hold
 * against what restores its code's tolerance ({@link StripeProtection}, {@code f + 1} for units whose replicas share
 * DataNodes: {@link StripeReprotection}): below tolerance while the worst {@code f} losses of the DataNodes listed now
 * would take more than the code decodes, or re-protected.
 */
public final class StripeAudit {
  private StripeAudit() {}

  /** What HDFS holds now for one stored member. */
  public enum Presence {
    /** The member's file holds a block with the member's id. */
    PRESENT,
    /** The member's file (inode) no longer exists: deleted, or overwritten by a new file. */
    FILE_GONE,
    /** The file exists but holds no block with the member's id (truncated or rewritten). */
    BLOCK_GONE
  }

  /**
   * One stored member as HDFS reports it now.
   *
   * @param file the member's file by its current path (or "inode N" when it is gone)
   * @param generationStamp and {@code length}: the block's now (0 unless PRESENT)
   * @param replicas live replicas (none: the block is missing)
   * @param corrupt HDFS marks every listed replica corrupt
   */
  public record Observed(String file, Presence presence, long generationStamp, long length, List<Site> replicas,
      boolean corrupt) {
    public Observed {
      replicas = List.copyOf(replicas);
    }

    public static Observed present(String file, long generationStamp, long length, List<Site> replicas) {
      return new Observed(file, Presence.PRESENT, generationStamp, length, replicas, false);
    }

    public static Observed gone(String file, Presence why) {
      return new Observed(file, why, 0, 0, List.of(), false);
    }
  }

  /** What is wrong. */
  public enum Problem {
    MISSING, OFF_PLAN, STALE, STUCK, CORRUPT_MANIFEST, ORPHAN_MANIFEST, ORPHAN_PARITY, ORPHAN_POINTER, UNPROTECTED,
    /** A sealed archive's codeword directory (or a stripe's) that no manifest lists. */
    ORPHAN_CODEWORDS,
    /** A reader's index whose placeholder is gone (the sealed file was deleted or replaced). */
    ORPHAN_INDEX,
    /** A sealed placeholder whose manifest, pointer or reader's index is missing: its bytes cannot be read. */
    ORPHAN_PLACEHOLDER,
    /**
     * A stripe with members changed for good that some {@code f} losses of the DataNodes listed now would leave
     * undecodable ({@link StripeReprotection}), or whose changed files hold fewer than {@code f + 1} replicas.
     */
    BELOW_TOLERANCE,
    /**
     * A stripe with members changed for good that survives {@code f} losses of the DataNodes listed now at its raised
     * replication, until it is archived again.
     */
    REPROTECTED;

    /** The label in fsck's output. */
    public String label() {
      return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
    }
  }

  /**
   * One thing wrong, naming the stripe, unit, block and file where there are such.
   *
   * @param stripeId -1 for a finding outside any stripe (orphans)
   * @param unit -1 for a finding about the whole stripe or none
   * @param blockId 0 when no block is concerned
   */
  public record Finding(Problem problem, String file, long stripeId, int unit, long blockId, String message) {}

  /**
   * The verdict on one stripe.
   *
   * @param lost units counted as erasures (missing or stale), ascending
   * @param decodable whether the survivors still rebuild every unit; null when the stripe has no parity yet
   * @param remainingTolerance how many more units it can lose (-1: data lost; null without parity)
   * @param toleranceExact whether that margin was checked on every pattern (wide stripes: up to a budget)
   * @param toleranceWhole the margin of the stripe with nothing lost, for comparison
   */
  public record Verdict(String manifest, String archivedPath, long stripeId, String code, StripeState state,
      int[] lost, Boolean decodable, Integer remainingTolerance, boolean toleranceExact, Integer toleranceWhole,
      List<Finding> findings) {
    public boolean healthy() {
      return findings.isEmpty();
    }

    /** One line for people: state, what is lost, whether it decodes and its margin. */
    public String describe() {
      String head = "stripe " + stripeId + " of " + archivedPath + " (" + code + ", " + state + ")";
      if (decodable == null) {
        return head + (lost.length == 0 ? "" : ": units " + Arrays.toString(lost) + " lost") + "; no parity yet";
      }
      if (!decodable) {
        return head + ": units " + Arrays.toString(lost) + " lost, more than the code rebuilds: CANNOT DECODE"
            + (state == StripeState.TRIMMED ? " (data lost)" : " (data blocks may keep other replicas)");
      }
      return head + (lost.length == 0 ? ": whole" : ": decodable with units " + Arrays.toString(lost) + " lost")
          + "; tolerates " + (toleranceExact ? "" : "at least ") + remainingTolerance + " more loss"
          + (remainingTolerance == 1 ? "" : "es") + " (" + toleranceWhole + " when whole)";
    }
  }

  /**
   * Audits one stripe.
   *
   * @param observe what HDFS holds for each stored unit whose block is known (never called for virtual units or
   *     parity not yet written)
   * @param resume how to finish an archive stopped mid-way (the command to rerun), for the STUCK finding
   */
  public static Verdict audit(String manifest, String archivedPath, ArchivedStripe s, IntFunction<Observed> observe,
      String resume) {
    return audit(manifest, archivedPath, s, observe, resume, RaiseRefusal.NONE);
  }

  /**
   * Why HDFS would refuse to raise files to the replication a stripe below its tolerance needs: the added replicas are
   * charged to the space quota of every directory above each file.
   */
  @FunctionalInterface
  public interface RaiseRefusal {
    RaiseRefusal NONE = needed -> null;

    /**
     * @param needed each file of the stripe still there (its path) and the replication it needs
     * @return the directory whose quota leaves no room for the added replicas, with its numbers, or null
     */
    String refusal(Map<String, Integer> needed);
  }

  /**
   * Audits one stripe, asking {@code refusal} why the raise of a stripe below its tolerance would be refused.
   *
   * @see #audit(String, String, ArchivedStripe, IntFunction, String)
   */
  public static Verdict audit(String manifest, String archivedPath, ArchivedStripe s, IntFunction<Observed> observe,
      String resume, RaiseRefusal refusal) {
    LinearCode code = s.code();
    List<Finding> findings = new ArrayList<>();
    String where = "stripe " + s.stripeId() + " of " + archivedPath;
    BitSet lost = new BitSet();
    BitSet padding = new BitSet();
    Map<Integer, Observed> seen = observeAll(s, observe);
    Map<String, Integer> unitsOnNode = new HashMap<>();
    seen.values().forEach(o -> o.replicas().forEach(r -> unitsOnNode.merge(r.node(), 1, Integer::sum)));
    Map<Integer, String> changes = new java.util.TreeMap<>();
    boolean parityDiscarded = false;
    for (int u = 0; u < code.n(); u++) {
      StripeMember m = s.member(u);
      if (m.padding()) {
        padding.set(u);
        continue;
      }
      Observed o = seen.get(u);
      if (o == null) {
        continue;
      }
      if (s.state() == StripeState.STALE && m.isParity() && o.presence() == Presence.FILE_GONE) {
        parityDiscarded = true;
        continue; // a stripe found stale before COMMITTED has its parity deleted on purpose
      }
      String unit = where + " unit " + u + " (" + role(m) + " block blk_" + m.blockId() + " of " + o.file() + ")";
      String stale = staleness(m, o);
      if (stale != null) {
        lost.set(u);
        changes.put(u, o.file() + ", " + StripeProtection.change(m, o.presence() != Presence.FILE_GONE,
            o.presence() == Presence.PRESENT, o.length()));
        findings.add(new Finding(Problem.STALE, o.file(), s.stripeId(), u, m.blockId(), unit + ": " + stale));
        continue;
      }
      if (o.replicas().isEmpty() || o.corrupt()) {
        lost.set(u);
        findings.add(new Finding(Problem.MISSING, o.file(), s.stripeId(), u, m.blockId(), unit + ": "
            + (o.corrupt() ? "every replica is corrupt" : "no live replica")));
        continue;
      }
      Finding offPlan = offPlan(s, u, o, unit, unitsOnNode);
      if (offPlan != null) {
        findings.add(offPlan);
      }
    }
    if (!changes.isEmpty() && !parityDiscarded) {
      findings.add(protection(s, where, archivedPath, changes, seen, refusal));
    }
    Finding state = stateFinding(s, where, archivedPath, resume);
    if (state != null) {
      findings.add(state);
    }
    int[] erased = lost.stream().toArray();
    boolean hasParity = s.members().stream().anyMatch(m -> m.isParity() && m.blockId() != 0);
    if (!hasParity) {
      return new Verdict(manifest, archivedPath, s.stripeId(), s.codeSpec(), s.state(), erased, null, null, true, null,
          findings);
    }
    RemainingTolerance now = RemainingTolerance.of(code, padding, erased);
    RemainingTolerance whole = RemainingTolerance.of(code, padding);
    return new Verdict(manifest, archivedPath, s.stripeId(), s.codeSpec(), s.state(), erased, !now.dataLost(),
        now.value(), now.exact(), whole.value(), findings);
  }

  /** Every stored member as it is now (padding and a parity not written yet have nothing to find). */
  private static Map<Integer, Observed> observeAll(ArchivedStripe s, IntFunction<Observed> observe) {
    Map<Integer, Observed> seen = new HashMap<>();
    for (int u = 0; u < s.code().n(); u++) {
      StripeMember m = s.member(u);
      if (!m.padding() && m.blockId() != 0) {
        seen.put(u, observe.apply(u));
      }
    }
    return seen;
  }

  /** A placed unit with no replica on its planned node, unless it alone holds a node of its planned rack; or null. */
  private static Finding offPlan(ArchivedStripe s, int u, Observed o, String unit, Map<String, Integer> unitsOnNode) {
    StripeMember m = s.member(u);
    boolean placed = m.isParity() ? s.state().parityWritten() || s.state() == StripeState.STALE
        : s.state() == StripeState.TRIMMED;
    // What the plan guarantees is per rack (a rack loss costs the stripe what the plan allows) and per node (a node
    // loss costs it one unit). A unit rebuilt on another node of its planned rack, its planned node gone, keeps both:
    // it is on plan. The placement keeper moves it onto its planned node should that come back.
    if (!placed || o.replicas().stream().anyMatch(r -> r.node().equals(m.plannedNode()))) {
      return null;
    }
    boolean rackHolds = o.replicas().stream().anyMatch(r -> r.rack().equals(m.plannedRack()));
    boolean alone = o.replicas().stream()
        .anyMatch(r -> r.rack().equals(m.plannedRack()) && unitsOnNode.getOrDefault(r.node(), 0) == 1);
    if (alone) {
      return null;
    }
    return new Finding(Problem.OFF_PLAN, o.file(), s.stripeId(), u, m.blockId(), unit + ": on "
        + nodes(o.replicas()) + ", planned on " + m.plannedNode() + " in " + m.plannedRack()
        + (rackHolds ? " (right rack, on a node holding another unit of the stripe: a node loss costs it two)"
            : " (another rack: a rack loss may now cost the stripe more)"));
  }

  /** What the recorded state says by itself: STALE, or stopped mid-archive; null once COMMITTED or TRIMMED. */
  private static Finding stateFinding(ArchivedStripe s, String where, String archivedPath, String resume) {
    return switch (s.state()) {
      case STALE -> new Finding(Problem.STALE, "", s.stripeId(), -1, 0, where + " is recorded STALE: a"
          + " member changed after it was archived and the parity does not cover it; unarchive " + archivedPath
          + " (and archive it again) to protect the data");
      case PLANNED, ENCODING, PARITY_WRITTEN, VERIFIED -> new Finding(Problem.STUCK, "", s.stripeId(), -1,
          0, where + " is " + s.state() + ": stopped mid-archive before COMMITTED (every data block keeps its"
          + " replication); " + resume);
      case COMMITTED, TRIMMED -> null;
    };
  }

  /**
   * The stripe's protection once members changed for good: the replication its other units and the changed members'
   * files need ({@link StripeProtection}) against the live replicas they hold, and the operator's remedy.
   */
  private static Finding protection(ArchivedStripe s, String where, String archivedPath, Map<Integer, String> changes,
      Map<Integer, Observed> seen, RaiseRefusal refusal) {
    StripeProtection need = StripeProtection.of(s.code(), changes.size());
    int held = Integer.MAX_VALUE;
    int changedHeld = Integer.MAX_VALUE;
    Map<Integer, List<String>> remaining = new java.util.TreeMap<>();
    for (Map.Entry<Integer, Observed> e : seen.entrySet()) {
      List<Site> live = e.getValue().corrupt() ? List.of() : e.getValue().replicas();
      if (!changes.containsKey(e.getKey())) {
        held = Math.min(held, live.size());
        remaining.put(e.getKey(), live.stream().map(Site::node).toList());
      } else if (e.getValue().presence() != Presence.FILE_GONE) {
        changedHeld = Math.min(changedHeld, live.size());
      }
    }
    StripeReprotection now = StripeReprotection.of(need, remaining);
    List<String> named = new ArrayList<>();
    changes.forEach((u, what) -> named.add("unit " + u + " (" + what + ")"));
    boolean restored = now.holds() && (changedHeld == Integer.MAX_VALUE
        || changedHeld >= need.changedMemberReplication());
    String shared = now.sharedNodeUnits().isEmpty() ? "" : " (units " + now.sharedNodeUnits() + " " + (need.tolerance()
        + 1) + ", as their replicas share DataNodes with other units')";
    String holds = "the other units hold " + (held == Integer.MAX_VALUE ? "none" : "at least " + held)
        + (changedHeld == Integer.MAX_VALUE ? "" : ", the changed files at least " + changedHeld);
    String remedy = "unarchive " + archivedPath + " and archive it again to re-encode it without those members and"
        + " free the space";
    String blocked = restored ? null : refusal.refusal(needed(seen, changes.keySet(), now, need));
    return new Finding(restored ? Problem.REPROTECTED : Problem.BELOW_TOLERANCE, archivedPath, s.stripeId(), -1, 0,
        where + ": members changed since archival: " + String.join(", ", named) + "; its code claims "
            + need.tolerance() + " losses, so each other unit needs " + need.replication() + " replicas" + shared
            + " and each changed file " + need.changedMemberReplication() + ": " + holds + (restored
                ? ", so it survives " + need.tolerance() + " losses again at that cost; " + remedy
                : ", so it survives fewer losses than its code claims" + (now.holds() ? "" : " (" + now.shortfall()
                    + ")") + (blocked != null
                        ? "; HDFS refuses to raise them for a quota: " + blocked + "; raise that quota or " + remedy
                        : " until the NameNode's wide-ec plugin raises them; then " + remedy)));
  }

  /** Each file of the stripe still there and the replication it needs (the most any of its units needs). */
  private static Map<String, Integer> needed(Map<Integer, Observed> seen, java.util.Set<Integer> changed,
      StripeReprotection now, StripeProtection need) {
    Map<String, Integer> out = new java.util.TreeMap<>();
    seen.forEach((u, o) -> {
      if (o.presence() != Presence.FILE_GONE) {
        out.merge(o.file(), changed.contains(u) ? need.changedMemberReplication() : now.replicationOf(u), Math::max);
      }
    });
    return out;
  }

  /**
   * Blocks a data file holds now that no stripe of its archive records (appended, or concatenated, since it was
   * archived): no parity covers them, so at one replica they are one loss from gone.
   *
   * @param recorded the file's block ids the manifest records
   * @param now the file's block ids in file order
   */
  public static List<Finding> unprotected(String file, java.util.Set<Long> recorded, long[] now, short replication) {
    List<Finding> out = new ArrayList<>();
    for (int i = 0; i < now.length; i++) {
      if (!recorded.contains(now[i])) {
        out.add(new Finding(Problem.UNPROTECTED, file, -1, -1, now[i], file + " block blk_" + now[i] + " (block " + i
            + " of the file) is in no stripe (appended since the file was archived): no parity covers it, and it has "
            + "replication " + replication + "; unarchive and archive again to protect it"));
      }
    }
    return out;
  }

  /** Why the member's block is not the one the manifest records, or null when it is. */
  static String staleness(StripeMember m, Observed o) {
    return switch (o.presence()) {
      case FILE_GONE -> "its file is gone (deleted or overwritten)";
      case BLOCK_GONE -> "its file no longer holds the block (truncated or rewritten)";
      case PRESENT -> o.generationStamp() != m.generationStamp() || o.length() != m.length()
          ? "generation stamp " + o.generationStamp() + " and length " + o.length() + " now, the manifest records "
              + m.generationStamp() + " and " + m.length() + " (appended, truncated or rewritten since it was archived)"
          : null;
    };
  }

  private static String role(StripeMember m) {
    return switch (m.role()) {
      case DATA -> "data";
      case GLOBAL_PARITY -> "global parity";
      case LOCAL_PARITY -> "local parity";
      case CODED -> "coded";
    };
  }

  private static String nodes(List<Site> replicas) {
    List<String> out = new ArrayList<>();
    replicas.forEach(r -> out.add(r.node() + " (" + r.rack() + ")"));
    return String.join(", ", out);
  }
}
