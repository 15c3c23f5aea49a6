package org.wideec.archive.hdfs;

import java.io.IOException;
import org.apache.hadoop.fs.Path;

/**
 * A run no longer holds its archive's lock ({@link ManifestStore#lock}): another run recovered the lock file's lease
 * (taking this one for dead) or replaced the file. The run stops before changing anything more: that other run now
 * owns the manifest, the parity and the replication of the archive's files.
 */
public final class LostArchiveLockException extends IOException {
  private final Path lock;

  public LostArchiveLockException(Path lock, String what, String why) {
    super("lost the archive lock " + lock + " (another run took it over: " + why + "); stopped before " + what
        + ", changing nothing more");
    this.lock = lock;
  }

  /** The lock file this run lost. */
  public Path lock() {
    return lock;
  }
}
