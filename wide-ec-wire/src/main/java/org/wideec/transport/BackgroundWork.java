package org.wideec.transport;

import java.util.concurrent.ThreadLocalRandom;

/**
 * Which streams carry background work (repairs, rebuild orders, decommission rebuilds, archival encodes) and so are
 * sent under a node's background caps, and which serve users (degraded reads) and are never capped. The requestor
 * knows which it runs, so it says so in the one thing every hop of a plan passes on unchanged: the stream's id. Ids
 * were always random with the top bit clear; background work sets it. A helper cannot tell a relayed read from a
 * repair any other way when block tokens are off (every hop then dials as a cluster peer), and an older requestor's
 * ids read as foreground, so nothing it asks is capped: the wire bytes are the same as before. A peer that marks a
 * user's read only slows that read; one that leaves a repair unmarked gets what every repair got before caps existed.
 */
public final class BackgroundWork {
  private BackgroundWork() {}

  /** A new stream id, marked as background work or not. */
  public static long id(boolean background) {
    long id = ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE;
    return background ? id | Long.MIN_VALUE : id;
  }

  public static boolean isBackground(long streamId) {
    return streamId < 0;
  }
}
