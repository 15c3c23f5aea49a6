package org.wideec.transport;

import java.util.concurrent.DelayQueue;
import java.util.concurrent.Delayed;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Wakes emulated links when a slice has crossed them ({@link TrafficShaper}), to within tens of microseconds. An
 * event loop's own timer cannot: NIO selects in whole milliseconds, rounded up, so each slice would leave up to a
 * millisecond late at every hop. Throughput would not suffer (due times are absolute), but a chain's first slice
 * would arrive a millisecond late per hop, which no NIC does. One daemon thread per JVM, started on first use and
 * only when shaping is on.
 */
final class LinkTimer {
  private static final Logger LOG = LoggerFactory.getLogger(LinkTimer.class);
  private static final DelayQueue<Wake> QUEUE = new DelayQueue<>();
  private static Thread thread;

  private LinkTimer() {}

  /** Runs {@code action} at {@code dueNanos} (System.nanoTime), on the timer thread: it must only hand work on. */
  static void at(long dueNanos, Runnable action) {
    start();
    QUEUE.add(new Wake(dueNanos, action));
  }

  private static synchronized void start() {
    if (thread == null) {
      thread = new Thread(LinkTimer::run, "wide-ec-emulated-links");
      thread.setDaemon(true);
      thread.start();
    }
  }

  private static void run() {
    while (true) {
      try {
        QUEUE.take().action.run();
      } catch (InterruptedException e) {
        return;
      } catch (RuntimeException e) {
        LOG.warn("emulated link timer: {}", e.toString());
      }
    }
  }

  private record Wake(long due, Runnable action) implements Delayed {
    @Override
    public long getDelay(TimeUnit unit) {
      return unit.convert(due - System.nanoTime(), TimeUnit.NANOSECONDS);
    }

    @Override
    public int compareTo(Delayed o) {
      return Long.compare(due, ((Wake) o).due);
    }
  }
}
