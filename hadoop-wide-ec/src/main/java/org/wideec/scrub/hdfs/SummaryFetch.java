package org.wideec.scrub.hdfs;

import java.io.IOException;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.wideec.archive.hdfs.SlicePortClient;
import org.wideec.scrub.UnitSummary;

/**
 * A scrub's requests for units' summaries, one fold (page size and multiplier from the seed) for every unit, and
 * the bytes they brought: what crossed racks is the cost a scrub pass is measured by.
 */
final class SummaryFetch {
  private final SlicePortClient port;
  private final int pageSize;
  private final int multiplier;
  private long bytes;
  private long crossRackBytes;

  SummaryFetch(SlicePortClient port, int pageSize, long seed) {
    this.port = port;
    this.pageSize = pageSize;
    this.multiplier = UnitSummary.multiplier(seed);
  }

  int pageSize() {
    return pageSize;
  }

  /** The summary of a unit absent because it is zeros (past a short group's end, or virtual padding). */
  byte[] zeros() {
    return new byte[pageSize];
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
