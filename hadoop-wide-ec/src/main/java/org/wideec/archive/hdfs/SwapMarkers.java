package org.wideec.archive.hdfs;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The markers a seal or an unseal sets on a file's directory while its path may be empty between two renames
 * ({@code <prefix><archive>} = the path): a rerun finds the archive to finish from them. A marker a crash left after
 * the swap ended is stale: it is removed (best effort, a trusted xattr needs the superuser) and ignored, so it never
 * makes a later run resume an archive that is gone.
 */
final class SwapMarkers {
  private static final Logger LOG = LoggerFactory.getLogger(SwapMarkers.class);

  /** Whether the swap of {@code archive} is still under way (what the caller's state machine leaves behind). */
  interface Live {
    boolean test(long archive) throws IOException;
  }

  private SwapMarkers() {}

  /** The archive whose live marker names {@code name}, or null; stale markers naming it are removed. */
  static Long live(DistributedFileSystem dfs, String prefix, String name, Live live) throws IOException {
    Path parent = new Path(name).getParent();
    if (parent == null || dfs.getClient().getFileInfo(parent.toString()) == null) {
      return null;
    }
    for (Map.Entry<String, byte[]> e : dfs.getXAttrs(parent).entrySet()) {
      if (!e.getKey().startsWith(prefix) || !name.equals(new String(e.getValue(), StandardCharsets.UTF_8))) {
        continue;
      }
      long archive;
      try {
        archive = Long.parseLong(e.getKey().substring(prefix.length()));
      } catch (NumberFormatException bad) {
        continue; // not ours to interpret
      }
      if (live.test(archive)) {
        return archive;
      }
      try {
        dfs.removeXAttr(parent, e.getKey());
        LOG.info("removed the stale swap marker {} of {} (its swap had ended)", e.getKey(), name);
      } catch (IOException denied) {
        LOG.debug("cannot remove the stale swap marker {} on {}: {}", e.getKey(), parent, denied.toString());
      }
    }
    return null;
  }
}
