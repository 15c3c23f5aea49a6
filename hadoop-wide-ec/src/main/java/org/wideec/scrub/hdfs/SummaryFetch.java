package org.wideec.scrub.hdfs;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.wideec.archive.hdfs.SlicePortClient;
import org.wideec.code.LinearCode;
import org.wideec.scrub.RackSummingPlan;
import org.wideec.scrub.ScrubChecks;
import org.wideec.scrub.ScrubVerdict;
import org.wideec.scrub.SummaryCheck;
import org.wideec.scrub.UnitSummary;

/**
 * A scrub's requests for units' summaries, one fold (page size and multiplier from the seed) for every unit, and
 * the bytes they brought: what crossed racks is the cost a scrub pass is measured by. A stripe is first checked on
 * its racks' sums ({@link RackSummingPlan}: a rack holding more units than there are check rows sends one page per
 * row); only a stripe that fails is asked again unit by unit, so the full syndrome names the unit at fault.
 */
final class SummaryFetch {
  /**
   * What the check of one stripe found.
   *
   * @param summaries every unit's summary, in unit order, when the stripe was asked unit by unit (it failed its check
   *     rows); null when its racks' sums were consistent
   */
  record Checked(ScrubVerdict verdict, byte[][] summaries) {}

  private final SlicePortClient port;
  private final int pageSize;
  private final long seed;
  private final int multiplier;
  private final Map<String, ScrubChecks> checks = new HashMap<>();
  private long bytes;
  private long crossRackBytes;

  SummaryFetch(SlicePortClient port, int pageSize, long seed) {
    this.port = port;
    this.pageSize = pageSize;
    this.seed = seed;
    this.multiplier = UnitSummary.multiplier(seed);
  }

  int pageSize() {
    return pageSize;
  }

  /**
   * Checks one stripe: on its racks' sums first, then, when a check row does not sum to zero, on every unit's own
   * summary.
   *
   * @param units each unit's located block, folded by its first listed holder; null for a unit known to be zeros
   *     (past a short group's end, or virtual padding)
   * @param name names the stripe in errors
   */
  Checked check(LinearCode code, LocatedBlock[] units, String name) throws IOException {
    String[] racks = new String[units.length];
    for (int u = 0; u < units.length; u++) {
      racks[u] = units[u] == null ? null : units[u].getLocations()[0].getNetworkLocation();
    }
    RackSummingPlan plan = RackSummingPlan.plan(checks.computeIfAbsent(code.spec(),
        s -> ScrubChecks.of(code, ScrubChecks.DEFAULT_CHECKS, seed)), racks, port.rack());
    byte[][] summaries = new byte[units.length][];
    for (int u : plan.alone()) {
      summaries[u] = of(units[u], name + " unit " + u);
    }
    List<byte[][]> rackRows = new ArrayList<>();
    for (RackSummingPlan.RackSum sum : plan.sums()) {
      List<SlicePortClient.SummedUnit> summed = new ArrayList<>();
      for (int u : sum.units()) {
        summed.add(new SlicePortClient.SummedUnit(units[u], units[u].getLocations()[0],
            plan.checks().coefficientsOf(u), name + " unit " + u));
      }
      rackRows.add(port.rackSumOf(summed, pageSize, multiplier, name + " rack " + sum.rack()));
      int answer = plan.checks().count() * pageSize;
      bytes += answer;
      crossRackBytes += answer; // a rack sums only outside the checker's rack
    }
    if (plan.consistent(rackRows, summaries, pageSize)) {
      return new Checked(ScrubVerdict.CONSISTENT, null);
    }
    for (int u = 0; u < units.length; u++) {
      if (summaries[u] == null) { // the units of a rack that summed are asked on their own now
        summaries[u] = units[u] == null ? new byte[pageSize] : of(units[u], name + " unit " + u);
      }
    }
    return new Checked(SummaryCheck.check(code, summaries), summaries);
  }

  /** The summary of a located block, folded by its first listed holder. */
  byte[] of(LocatedBlock lb, String where) throws IOException {
    return of(lb, lb.getLocations()[0], where);
  }

  /** The summary of one replica of a located block, folded by its holder. */
  byte[] of(LocatedBlock lb, DatanodeInfo holder, String where) throws IOException {
    byte[] s = port.summaryOf(lb, holder, pageSize, multiplier, where);
    bytes += pageSize;
    if (!holder.getNetworkLocation().equals(port.rack())) {
      crossRackBytes += pageSize;
    }
    return s;
  }

  long bytes() {
    return bytes;
  }

  long crossRackBytes() {
    return crossRackBytes;
  }
}
