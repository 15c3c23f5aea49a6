package org.wideec.archive.hdfs;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.QuotaUsage;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.wideec.archive.StripeAudit;

/**
 * Whether a directory's space quota leaves room to raise files' replication. HDFS charges each added replica of a
 * closed file (its length once more) to the space quota of every directory above it and refuses the whole raise
 * when one would pass its quota, so a stripe whose owner is near quota cannot be reprotected by the NameNode. Asked
 * only for stripes below their tolerance; each directory's usage is read once per audit.
 */
final class QuotaRoom implements StripeAudit.RaiseRefusal {
  private final DistributedFileSystem dfs;
  private final Map<String, QuotaUsage> usage = new HashMap<>();

  QuotaRoom(DistributedFileSystem dfs) {
    this.dfs = dfs;
  }

  @Override
  public String refusal(Map<String, Integer> needed) {
    // Deepest first: a longer path sorts after its prefix, so the reverse order meets a directory before its parents.
    Map<String, Long> added = new TreeMap<>(java.util.Comparator.reverseOrder());
    needed.forEach((file, r) -> {
      FileStatus st = status(file);
      if (st != null && st.isFile() && st.getReplication() < r) {
        long bytes = st.getLen() * (r - st.getReplication());
        for (Path d = new Path(file).getParent(); d != null; d = d.getParent()) {
          added.merge(d.toUri().getPath(), bytes, Long::sum);
        }
      }
    });
    for (Map.Entry<String, Long> e : added.entrySet()) {
      QuotaUsage q = usage(e.getKey());
      if (q != null && q.getSpaceQuota() >= 0 && q.getSpaceConsumed() + e.getValue() > q.getSpaceQuota()) {
        return "the space quota of " + e.getKey() + " (" + q.getSpaceQuota() + " bytes, " + q.getSpaceConsumed()
            + " used) leaves no room for the " + e.getValue() + " bytes of replicas the raise adds below it";
      }
    }
    return null;
  }

  /** The file's status, or null when it cannot be seen (gone, reached by inode only, not ours to read). */
  private FileStatus status(String file) {
    if (file.startsWith("/.reserved/")) {
      return null; // a file no name of the walk reached: its directories are not known
    }
    try {
      return dfs.getFileStatus(new Path(file));
    } catch (IOException e) {
      return null;
    }
  }

  /** The directory's quota and usage, or null when it cannot be read (the caller may not read it). */
  private QuotaUsage usage(String dir) {
    return usage.computeIfAbsent(dir, d -> {
      try {
        return dfs.getQuotaUsage(new Path(d));
      } catch (IOException e) {
        return null;
      }
    });
  }
}
