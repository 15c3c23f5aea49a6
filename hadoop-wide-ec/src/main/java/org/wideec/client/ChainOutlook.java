package org.wideec.client;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * Whether a degraded read asks a chain first, from how this client's last chain fared. A chain that direct decode
 * overtook (direct decode, started the hedge delay later, still answered first, so it was faster by more than that
 * delay) ran on helpers or rack uplinks that are busy, in practice with the repair of that very unit: the repair
 * worker reads the same local group over the same uplinks at the same time, and the chain's one range queues behind
 * it. So for {@link #DIRECT_AFTER_OVERTAKEN_MS} after an overtaken chain the FileSystem's degraded reads decode
 * directly at once instead of paying the hedge delay first; the first read after that asks a chain again (with the
 * hedge). The choice follows what was measured: unless direct decode is faster by more than the hedge delay, the chain
 * wins its race and nothing changes. A chain that fails is no sign of busy helpers (its fallback and the
 * unreachable-helper memory handle it) and changes nothing here, nor is the FileSystem's first chain: it pays what
 * only a first chain pays (the client's transport started, a first handshake with every helper it asks, the client's
 * chain path run for the first time), and on the real-process cluster it took 0.9-1.2 s where the next took 0.2 s.
 */
final class ChainOutlook {
  /** How long after a chain was overtaken by direct decode reads skip the chain; 0 never skips it. */
  static final String DIRECT_AFTER_OVERTAKEN_MS = "wide-ec.client.degraded-read.direct-after-overtaken.ms";
  /**
   * A node's recovery on the real-process cluster took 14 s after its units were listed lost (a rack's, longer), so
   * 30 s covers most of one recovery with one probing chain, and a chain is tried again soon after it ends.
   */
  static final long DIRECT_AFTER_OVERTAKEN_MS_DEFAULT = 30_000;

  private final long directAfterOvertakenNanos;
  private final LongSupplier nanoClock;
  /** nanoClock value until which reads decode directly; meaningful only while {@link #skipping} is set. */
  private final AtomicLong directUntil = new AtomicLong();
  private volatile boolean skipping;
  /** Whether a chain of this FileSystem was judged (served or overtaken) before. */
  private final AtomicBoolean judged = new AtomicBoolean();

  ChainOutlook(long directAfterOvertakenMs, LongSupplier nanoClock) {
    if (directAfterOvertakenMs < 0) {
      throw new IllegalArgumentException(DIRECT_AFTER_OVERTAKEN_MS + " must be >= 0, got " + directAfterOvertakenMs);
    }
    this.directAfterOvertakenNanos = directAfterOvertakenMs * 1_000_000;
    this.nanoClock = nanoClock;
  }

  /** Whether the next degraded read asks a chain (false: it decodes directly at once). */
  boolean chainFirst() {
    if (!skipping) {
      return true;
    }
    if (nanoClock.getAsLong() - directUntil.get() >= 0) {
      skipping = false;
      return true;
    }
    return false;
  }

  /** A chain was overtaken by direct decode: skip chains for a while, unless it was the FileSystem's first. */
  void overtaken() {
    if (!judged.getAndSet(true) || directAfterOvertakenNanos == 0) {
      return;
    }
    directUntil.set(nanoClock.getAsLong() + directAfterOvertakenNanos);
    skipping = true;
  }

  /** A chain served a read: its helpers answer in time again. */
  void served() {
    judged.set(true);
    skipping = false;
  }
}
