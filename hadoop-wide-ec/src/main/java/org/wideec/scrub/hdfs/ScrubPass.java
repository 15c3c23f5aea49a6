package org.wideec.scrub.hdfs;

import java.io.IOException;
import java.util.List;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.slf4j.Logger;
import org.wideec.archive.ArchivedStripeRepair;
import org.wideec.archive.StripeManifest;
import org.wideec.archive.hdfs.ManifestStore;
import org.wideec.archive.hdfs.SlicePortClient;
import org.wideec.code.Progress;
import org.wideec.scrub.ScrubVerdict;
import org.wideec.scrub.UnitSummary;

/**
 * One pass of the continuous scrubber over what it is handed (an archive's manifest, a striped file): each stripe or
 * block group checked from its units' summaries ({@link ArchivedStripeScrub}, {@link StripedGroupScrub}), every
 * verdict counted, each mismatch logged (WARN naming the path, stripe, unit and node) and recorded in the {@link
 * ScrubStatus}, and with repair on the unit at fault reported so it is rebuilt from the units that agree. A stripe that
 * cannot be checked (a unit missing, a holder refusing) is handed to {@link Counters#failed}, and the pass goes on.
 * One summary is asked at a time: what a pass costs a disk is bounded by the DataNodes' own pace per volume.
 */
public final class ScrubPass {
  /** What a pass counts (the NameNode's metrics2 counters); each count ignored unless overridden. */
  public interface Counters {
    /** One stripe or group checked. */
    default void checked() {}

    /** Summary bytes the holders sent for one archive or file. */
    default void summaryBytes(long bytes) {}

    /** A check named one unit at fault ({@code true}) or found a mismatch no single unit explains. */
    default void mismatch(boolean unitAtFault) {}

    /** The unit at fault was reported corrupt so it is rebuilt. */
    default void repairRequested() {}

    /** A stripe or group could not be checked, and why (the NameNode logs it rate-limited). */
    default void failed(String stripe, String error) {}
  }

  private final Logger log;
  private final boolean repair;
  private final Counters counters;
  private final ScrubStatus status;
  private final StripedGroupScrub striped;
  private final ArchivedStripeScrub archived;

  /**
   * @param seed the fold's multiplier for this pass (drawn anew per pass, so no corruption can be shaped to fold to
   *     zero)
   */
  public ScrubPass(DistributedFileSystem fs, ManifestStore store, SlicePortClient port, boolean repair,
      Counters counters, ScrubStatus status, long seed, Logger log) {
    this.log = log;
    this.repair = repair;
    this.counters = counters;
    this.status = status;
    this.striped = new StripedGroupScrub(fs, port, UnitSummary.DEFAULT_PAGE_SIZE, seed);
    this.archived = new ArchivedStripeScrub(fs, store, port, UnitSummary.DEFAULT_PAGE_SIZE, seed);
  }

  /** Checks every stripe of one archive's manifest. */
  public void archive(StripeManifest m) throws IOException {
    long before = archived.summaryBytes();
    List<ArchivedStripeScrub.StripeResult> results = archived.verify(m, Progress.NONE);
    counters.summaryBytes(archived.summaryBytes() - before);
    for (int i = 0; i < results.size(); i++) {
      if (!ArchivedStripeRepair.protects(m.stripes().get(i))) {
        continue; // mid-archive: its parity protects nothing yet, so there is nothing to check (verify says so)
      }
      ArchivedStripeScrub.StripeResult r = results.get(i);
      judge(m.archivedPath(), r.stripe(), r.verdict(), r.error(), r.atFault() == null ? null : r.atFault().block(),
          () -> archived.repair(r).toString());
    }
  }

  /**
   * Checks every block group of one file under a striped policy of ours.
   *
   * @param file a path that reaches it ({@code /.reserved/.inodes/<id>} from the NameNode)
   * @param shown the path the log and status name
   */
  public void stripedFile(Path file, String shown) throws IOException {
    long before = striped.summaryBytes();
    List<StripedGroupScrub.GroupResult> results = striped.verify(file);
    counters.summaryBytes(striped.summaryBytes() - before);
    for (StripedGroupScrub.GroupResult r : results) {
      judge(shown, shown + " " + r.group().substring(r.group().lastIndexOf(' ') + 1), r.verdict(), r.error(),
          r.atFault(), () -> {
            striped.repair(r);
            return "reported corrupt on " + r.atFault().getLocations()[0].getXferAddr()
                + ": the repair worker rebuilds it from the units that agree";
          });
    }
  }

  /** How one layout repairs its unit at fault; says what it did. */
  private interface Repair {
    String run() throws IOException;
  }

  /** Counts and records one stripe's or group's result; a unit at fault is repaired when repair is on. */
  private void judge(String path, String stripe, ScrubVerdict v, String error, LocatedBlock atFault, Repair how) {
    if (v == null) {
      counters.failed(stripe, error);
      status.unchecked(stripe);
      return;
    }
    counters.checked();
    if (v.consistent()) {
      status.consistent(stripe);
      return;
    }
    String repaired = null;
    if (repair && atFault != null) {
      try {
        repaired = how.run();
      } catch (IOException e) {
        repaired = "not repaired: " + e.getMessage();
      }
    }
    found(path, stripe, v, atFault, repaired);
  }

  private void found(String path, String stripe, ScrubVerdict v, LocatedBlock atFault, String repaired) {
    boolean named = v.outcome() == ScrubVerdict.Outcome.UNIT_AT_FAULT;
    counters.mismatch(named);
    boolean requested = repaired != null && !repaired.startsWith("not repaired");
    if (requested) {
      counters.repairRequested();
    }
    String node = atFault == null ? "" : atFault.getLocations()[0].getXferAddr();
    String verdict = v.toString().toLowerCase(java.util.Locale.ROOT);
    log.warn("wide-ec scrub: {} is not what its code computes: {}{}{}", stripe, named ? "unit " + v.unitAtFault()
        + " (blk_" + atFault.getBlock().getBlockId() + " on " + node + ") is corrupt" : verdict + " (no single unit"
        + " explains it; nothing is repaired)", repaired == null ? "" : "; ", repaired == null ? "" : repaired);
    status.found(new ScrubStatus.Bad(path, stripe, verdict, node, requested, status.pass(),
        System.currentTimeMillis()));
  }
}
