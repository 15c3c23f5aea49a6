package org.wideec.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import org.apache.hadoop.hdfs.DistributedFileSystem;

/**
 * The line {@code fsck} and {@code status} print while the NameNode is in safe mode: that it is (both only read,
 * which HDFS allows there), how many archived blocks under the path are missing, and whether the NameNode's archive
 * repair monitor is rebuilding them, as its WideEc bean on the active NameNode's /jmx page says. Archived blocks hold
 * one replica each, so missing ones keep a restarted NameNode below dfs.namenode.safemode.threshold-pct until they
 * are rebuilt (docs/install.md, shipped as INSTALL.md, "A NameNode stuck in safe mode"; docs/archival.md, "Safe mode").
 */
final class SafeModeNotice {
  static final String BEAN = "Hadoop:service=NameNode,name=WideEc";

  private SafeModeNotice() {}

  /** Counts the archived blocks missing under the path (only asked in safe mode). */
  @FunctionalInterface
  interface MissingBlocks {
    long count() throws IOException;
  }

  /** The line, or null when the NameNode is not in safe mode. */
  static String of(DistributedFileSystem dfs, String command, String path, MissingBlocks missingBlocks)
      throws IOException {
    if (!dfs.isInSafeMode()) {
      return null;
    }
    long missing = missingBlocks.count();
    String head = "NameNode in safe mode (wide-ec " + command + " only reads): ";
    if (missing == 0) {
      return head + "no archived block under " + path + " is missing";
    }
    return head + missing + " archived block" + (missing == 1 ? "" : "s") + " under " + path + " missing; "
        + repairState(dfs);
  }

  /** What the NameNode's archive repair monitor does about them. */
  private static String repairState(DistributedFileSystem dfs) {
    try {
      JsonNode bean = DecommissionProgress.wideEcBean(dfs);
      if (bean == null || bean.path("ArchiveRepairRunning").asLong(0) == 0) {
        return "no archive repair monitor runs on the NameNode, so nothing rebuilds them"
            + " (INSTALL.md, \"A NameNode stuck in safe mode\")";
      }
      long waitMs = bean.path("ArchiveRepairSafeModeWaitMs").asLong(0);
      if (waitMs < 0) {
        return "the NameNode was put in safe mode by hand or for low resources, where the archive repair monitor"
            + " rebuilds nothing until it leaves";
      }
      if (waitMs > 0) {
        return "the archive repair monitor starts rebuilding them in " + (waitMs + 999) / 1000 + " s (once DataNodes"
            + " silent since the NameNode started count as dead, wide-ec.archive.repair.safemode.wait.ms), and the"
            + " NameNode leaves safe mode by itself once enough blocks are back";
      }
      return "the archive repair monitor is rebuilding them, and the NameNode leaves safe mode by itself once enough"
          + " blocks are back";
    } catch (IOException | RuntimeException e) {
      return "whether the NameNode's archive repair monitor is rebuilding them is unknown (" + e.getMessage() + ")";
    }
  }
}
