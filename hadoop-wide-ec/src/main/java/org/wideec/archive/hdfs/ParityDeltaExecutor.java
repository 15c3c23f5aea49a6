package org.wideec.archive.hdfs;

import java.io.Closeable;
import java.io.IOException;
import java.util.Map;
import java.util.Set;
import org.wideec.archive.StripeMember;
import org.wideec.archive.StripeUpdate;

/**
 * Who computes and writes the new parity of a stripe update (the lifecycle's WRITE_PARITY step): the updater's own
 * process reading through HDFS ({@link ParityDeltaWriter}, "client"), or the DataNodes carrying out the scheme's plan
 * over their slice ports ({@link DataNodeParityDeltaExecutor}, "datanode"). Chosen by
 * {@link ParityUpdater#EXECUTOR_KEY}.
 */
interface ParityDeltaExecutor extends Closeable {
  /** What ran, for the command's output: client, datanode, or datanode+client when some stripes fell back. */
  String name();

  /**
   * The new blocks of the update to {@code version}, by unit: each rewritten parity written and closed, and each
   * replaced data unit's new block with the CRC32C of its bytes.
   *
   * @param gone inodes of members a stock client deleted behind wide-ec's back (their old bytes are decoded)
   */
  Map<Integer, StripeMember> write(StripeUpdate up, long version, Set<Long> gone) throws IOException;

  /** Bytes read from disk for the updates written so far. */
  long bytesRead();

  /** Parity bytes written so far. */
  long bytesWritten();

  @Override
  default void close() {}
}
