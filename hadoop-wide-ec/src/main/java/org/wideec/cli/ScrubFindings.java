package org.wideec.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.security.AccessControlException;
import org.wideec.archive.hdfs.ArchiveLayout;
import org.wideec.scrub.hdfs.ScrubStatus;

/**
 * The scrub half of {@code wide-ec fsck PATH}: the continuous scrubber's last verdicts that were bad for stripes and
 * block groups under PATH, read from its status file ({@link ScrubStatus}); rendered as JSON fields or as lines. The
 * file is the superuser's: anyone else is told it could not be read, and nothing else changes. Before the scrubber's
 * first pass the text says nothing.
 */
final class ScrubFindings {
  private final ScrubStatus status;
  private final List<ScrubStatus.Bad> under;
  private final String unreadable;

  private ScrubFindings(ScrubStatus status, List<ScrubStatus.Bad> under, String unreadable) {
    this.status = status;
    this.under = under;
    this.unreadable = unreadable;
  }

  static ScrubFindings of(DistributedFileSystem dfs, Path root) throws IOException {
    ArchiveLayout layout = ArchiveLayout.from(dfs.getConf());
    ScrubStatus s;
    try {
      s = ScrubStatus.read(dfs, layout);
    } catch (AccessControlException e) {
      return new ScrubFindings(null, List.of(), ScrubStatus.path(layout) + " is the superuser's: run fsck as the HDFS"
          + " superuser to see the scrubber's verdicts");
    } catch (IOException e) {
      // The rest of fsck stands on its own: a status it cannot read is said, not fatal.
      return new ScrubFindings(null, List.of(), "cannot read " + ScrubStatus.path(layout) + ": " + e.getMessage());
    }
    String prefix = dfs.makeQualified(root).toUri().getPath();
    String dir = prefix.endsWith("/") ? prefix : prefix + "/";
    return new ScrubFindings(s, s.bad().stream().filter(b -> b.path().equals(prefix) || b.path().startsWith(dir))
        .toList(), null);
  }

  /** Bad verdicts under the path (fsck exits 1). */
  boolean problems() {
    return !under.isEmpty();
  }

  Map<String, Object> toJson() {
    Map<String, Object> j = new LinkedHashMap<>();
    if (unreadable != null) {
      j.put("error", unreadable);
      return j;
    }
    j.put("pass", status.pass());
    j.put("lastPassEnded", status.lastPassEnded());
    j.put("passRunning", status.midPass());
    j.put("bad", under);
    return j;
  }

  void print(PrintStream out) {
    if (unreadable != null) {
      out.println("scrub: " + unreadable);
      return;
    }
    if (status.pass() == 0) {
      return; // the scrubber never ran (wide-ec.scrub.enabled): nothing to say
    }
    out.printf("scrub: pass %d%s; %d stripes or block groups here not what their code computes at their last check%n",
        status.pass(), status.lastPassEnded() < 0 ? " running" : ", last ended " + Instant.ofEpochMilli(
            status.lastPassEnded()), under.size());
    for (ScrubStatus.Bad b : under) {
      out.println("SCRUB: " + b.stripe() + ": " + b.result() + (b.node().isEmpty() ? "" : " on " + b.node())
          + (b.repairRequested() ? ", reported for repair" : ", not repaired") + " (pass " + b.pass() + ", "
          + Instant.ofEpochMilli(b.at()) + ")");
    }
  }
}
