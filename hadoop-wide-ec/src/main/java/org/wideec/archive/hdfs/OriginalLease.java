package org.wideec.archive.hdfs;

import java.io.IOException;
import java.util.EnumSet;
import org.apache.hadoop.fs.CreateFlag;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HDFS lease on an original a swap is about to delete: the file opened for append with a new block, which writes
 * nothing and leaves the last block (its generation stamp, its length) untouched (the NameNode converts no block when
 * asked for a new one), yet makes every other writer's append fail while it is held. The stream is kept open so the
 * client's lease renewer keeps the lease past the soft limit. A writer already holding the file open makes the take
 * fail: the file is being written, so the swap must not go on.
 */
final class OriginalLease {
  private static final Logger LOG = LoggerFactory.getLogger(OriginalLease.class);
  private final FSDataOutputStream held;
  private final Path file;

  private OriginalLease(FSDataOutputStream held, Path file) {
    this.held = held;
    this.file = file;
  }

  /**
   * Takes the lease on {@code file}.
   *
   * @throws StaleStripeException when another client holds it (a writer has the file open), or HDFS refuses
   */
  static OriginalLease take(DistributedFileSystem dfs, Path file, long stripeId) throws StaleStripeException {
    try {
      return new OriginalLease(dfs.append(file, EnumSet.of(CreateFlag.APPEND, CreateFlag.NEW_BLOCK), 4096, null), file);
    } catch (IOException e) {
      throw new StaleStripeException(stripeId, "stripe " + stripeId + ": " + file + " could not be held against writers"
          + " (" + String.valueOf(e.getMessage()).lines().findFirst().orElse("") + "); it may be open for writing");
    }
  }

  /** Closes the file unchanged (nothing was written), giving the lease back. */
  void release() {
    try {
      held.close();
    } catch (IOException e) {
      LOG.warn("{}: giving its lease back failed ({}); HDFS recovers it after the lease limit", file, e.toString());
    }
  }

  /** After the file was deleted under the lease: the stream has nothing left to close. */
  void abandon() {
    try {
      held.close();
    } catch (IOException e) {
      LOG.debug("{} was deleted under its lease; closing its stream: {}", file, e.toString());
    }
  }
}
