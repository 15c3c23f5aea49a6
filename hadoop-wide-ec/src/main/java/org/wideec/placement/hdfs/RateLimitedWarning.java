package org.wideec.placement.hdfs;

import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;

/**
 * A warning logged at most once per interval, with the number of occurrences suppressed since the last one: a
 * fallback taken on every block allocation must not flood a NameNode log, nor go unseen.
 */
public final class RateLimitedWarning {
  private final Logger log;
  private final long intervalNanos;
  private final AtomicLong next = new AtomicLong(Long.MIN_VALUE);
  private final AtomicLong suppressed = new AtomicLong();
  private final AtomicLong total = new AtomicLong();

  public RateLimitedWarning(Logger log, long intervalMillis) {
    this.log = log;
    this.intervalNanos = intervalMillis * 1_000_000L;
  }

  /** Logs the message (SLF4J format) unless one was logged within the interval. */
  public void warn(String format, Object... args) {
    total.incrementAndGet();
    long now = System.nanoTime();
    long due = next.get();
    if ((due == Long.MIN_VALUE || now - due >= 0) && next.compareAndSet(due, now + intervalNanos)) {
      long skipped = suppressed.getAndSet(0);
      log.warn(format + (skipped > 0 ? " (" + skipped + " similar warnings suppressed)" : ""), args);
    } else {
      suppressed.incrementAndGet();
    }
  }

  /** Occurrences so far, logged or not. */
  public long count() {
    return total.get();
  }
}
