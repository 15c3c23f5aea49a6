package org.wideec.engine;

import java.io.IOException;
import org.wideec.repair.BlockRef;

/** Paces the reads of a scrub's summaries, per disk on a DataNode: a scrub must not take the disks from users. */
public interface ScrubThrottle {
  ScrubThrottle NONE = (unit, bytes) -> {};

  /** Waits until {@code bytes} more of {@code unit}'s replica may be read. */
  void acquire(BlockRef unit, int bytes) throws IOException, InterruptedException;
}
