package org.wideec.archive;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.wideec.code.LinearCode;
import org.wideec.code.LocalGroup;
import org.wideec.repair.LinkWeights;
import org.wideec.repair.MultiUnitStreams;
import org.wideec.repair.RepairGraph;
import org.wideec.repair.RepairScheme;
import org.wideec.repair.RepairStep;
import org.wideec.repair.SingleUnitRepairPlanner;
import org.wideec.repair.UnitLocation;

/**
 * Groups the lost units of one archived stripe into rebuild jobs and costs them in cross-rack bytes (the repair
 * traffic of a rack loss). A unit its own local group rebuilds alone stays a job of its own: that repair reads a
 * few units, mostly in-rack. The others (a global decode each, say because a rack took several units of one group)
 * are one joint job (all of them, or the longest of them) when that moves fewer bytes across racks than rebuilding
 * them one by one: one decode reads one input set once ({@link MultiUnitStreams}) and outputs every unit, which the
 * job's requestor (the target of one of its units) writes to each unit's own target.
 *
 * <p>The cost model counts what crosses racks: each stream a helper (or a rack's partial sum) sends to a requestor
 * in another rack, the length of the longest unit it rebuilds; for a joint job also each unit written to a target
 * outside the requestor's rack (a DataTransferProtocol write) and the 8-byte CRC that target sends back. A single
 * unit's repair is costed as the scheme runs it (a chain, rack by rack for the rack-aggregated scheme), with the
 * requestor in the target's rack.
 */
public final class RebuildJobs {
  /** A digest (the CRC32C a target reads back) is one 8-byte frame. */
  static final int DIGEST_BYTES = Long.BYTES;

  /**
   * One rebuild order.
   *
   * @param units the lost units it rebuilds, ascending
   * @param requestor the unit whose target decodes (index into units)
   * @param sliceBytes bytes the job's slice streams send across racks (helpers and confirmations)
   * @param writeBytes bytes of rebuilt units written to targets outside the requestor's rack
   * @param perUnitBytes what rebuilding the same units one by one would send across racks
   */
  public record Job(int[] units, int requestor, long sliceBytes, long writeBytes, long perUnitBytes) {
    public Job {
      units = units.clone();
    }

    public boolean joint() {
      return units.length > 1;
    }

    public int requestorUnit() {
      return units[requestor];
    }

    /** All this job sends across racks. */
    public long crossRackBytes() {
      return sliceBytes + writeBytes;
    }
  }

  private RebuildJobs() {}

  /**
   * @param units lost units to rebuild now (a subset of {@code p.lost()}), each with a target
   * @param targetRack the rack of each unit's target
   * @param scheme how the requestor will repair (the DataNodes' {@code wide-ec.repair.scheme})
   * @param preference the helper order the rebuild orders carry
   */
  public static List<Job> plan(ArchivedStripeRepair p, int[] units, Map<Integer, String> targetRack, RepairScheme scheme,
      Comparator<Integer> preference) {
    List<Job> jobs = new ArrayList<>();
    List<Integer> global = new ArrayList<>();
    Map<Integer, Long> single = new HashMap<>();
    for (int u : units) {
      long cost = perUnitBytes(p, u, targetRack.get(u), scheme, preference);
      single.put(u, cost);
      if (localAlone(p, u)) {
        jobs.add(new Job(new int[] {u}, 0, cost, 0, cost));
      } else {
        global.add(u);
      }
    }
    if (global.size() == 1) {
      int u = global.get(0);
      jobs.add(new Job(new int[] {u}, 0, single.get(u), 0, single.get(u)));
    } else if (global.size() > 1) {
      // One decode streams every input as long as its longest output, so units of one stripe with very different
      // lengths (a directory's short last blocks) may be cheaper apart: the joint job is the longest j units for the
      // j that saves the most, the others alone, and none when no j saves anything.
      List<Integer> byLength = new ArrayList<>(global);
      byLength.sort(Comparator.comparingLong((Integer u) -> -p.stripe().member(u).length())
          .thenComparingInt(u -> u));
      Job best = null;
      for (int j = 2; j <= byLength.size(); j++) {
        int[] together = byLength.subList(0, j).stream().mapToInt(Integer::intValue).sorted().toArray();
        long separately = byLength.subList(0, j).stream().mapToLong(single::get).sum();
        for (int r = 0; r < together.length; r++) {
          long[] c = jointBytes(p, together, r, targetRack, scheme);
          Job candidate = new Job(together, r, c[0], c[1], separately);
          if (saving(candidate) > 0 && (best == null || saving(candidate) > saving(best))) {
            best = candidate;
          }
        }
      }
      List<Integer> alone = new ArrayList<>(global);
      if (best != null) {
        jobs.add(best);
        for (int u : best.units()) {
          alone.remove(Integer.valueOf(u));
        }
      }
      for (int u : alone) {
        jobs.add(new Job(new int[] {u}, 0, single.get(u), 0, single.get(u)));
      }
    }
    jobs.sort(Comparator.comparingInt(j -> j.units()[0]));
    return jobs;
  }

  private static long saving(Job j) {
    return j.perUnitBytes() - j.crossRackBytes();
  }

  /** Whether a local group of the unit has every other member available (a helper or virtual padding). */
  public static boolean localAlone(ArchivedStripeRepair p, int unit) {
    for (LocalGroup g : p.stripe().code().groupsOf(unit)) {
      boolean all = true;
      for (int m : g.members()) {
        all &= m == unit || p.helpers().containsKey(m) || p.zeros().contains(m);
      }
      if (all) {
        return true;
      }
    }
    return false;
  }

  /**
   * Cross-rack bytes of rebuilding one unit alone with the requestor in its target's rack, as the repair engine runs
   * it: the scheme's graph, with zero units skipped (whatever feeds one sends where it would have sent). The cyclic
   * scheme is costed as its chain (its rotations carry the same bytes between other pairs of nodes).
   */
  public static long perUnitBytes(ArchivedStripeRepair p, int unit, String targetRack, RepairScheme scheme,
      Comparator<Integer> preference) {
    LinearCode code = p.stripe().code();
    Map<Integer, UnitLocation> available = new HashMap<>(p.helpers());
    p.zeros().forEach(z -> available.put(z, UnitLocation.zero(z, targetRack)));
    Comparator<Integer> order = Comparator.comparing((Integer u) -> !p.zeros().contains(u)).thenComparing(preference);
    RepairGraph g = SingleUnitRepairPlanner.plan(scheme == RepairScheme.CYCLIC ? RepairScheme.PIPELINED : scheme, code,
        unit, available, "", targetRack, LinkWeights.UNIFORM, order);
    int cross = 0;
    List<RepairStep> steps = g.steps();
    for (RepairStep s : steps) {
      if (p.zeros().contains(s.helper().unit())) {
        continue;
      }
      int next = s.next();
      while (next != RepairStep.REQUESTOR && p.zeros().contains(steps.get(next).helper().unit())) {
        next = steps.get(next).next();
      }
      String to = next == RepairStep.REQUESTOR ? targetRack : steps.get(next).helper().rack();
      cross += s.helper().rack().equals(to) ? 0 : 1;
    }
    return cross * p.stripe().member(unit).length();
  }

  /**
   * Cross-rack bytes of one joint decode at the target of {@code units[requestor]}: {slice streams and confirmations,
   * writes to targets in other racks}.
   */
  public static long[] jointBytes(ArchivedStripeRepair p, int[] units, int requestor, Map<Integer, String> targetRack,
      RepairScheme scheme) {
    String rack = targetRack.get(units[requestor]);
    MultiUnitStreams m = MultiUnitStreams.plan(p.stripe().code(), units, p.helpers(), p.zeros(), rack,
        scheme.aggregatesInRacks());
    long longest = 0;
    long writes = 0;
    int remote = 0;
    for (int u : units) {
      long len = p.stripe().member(u).length();
      longest = Math.max(longest, len);
      if (!targetRack.get(u).equals(rack)) {
        writes += len;
        remote++;
      }
    }
    return new long[] {m.crossRackStreams(rack) * longest + (long) remote * DIGEST_BYTES, writes};
  }
}
