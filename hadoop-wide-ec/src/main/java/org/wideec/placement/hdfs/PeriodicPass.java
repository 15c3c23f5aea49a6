package org.wideec.placement.hdfs;

import java.io.IOException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.apache.hadoop.hdfs.server.namenode.FSNamesystem;
import org.slf4j.Logger;

/**
 * One of the NameNode's periodic loops (the scanner, the trimmer, the repair monitor, the placement keeper, the
 * reprotector): a daemon thread of its own that runs a pass every interval, never in a NameNode handler. A
 * RuntimeException out of code the NameNode calls can end the NameNode, so nothing a pass throws leaves this loop:
 * a failed pass is one rate-limited warning, and the next one starts afresh. A pass runs only when {@link #mayRun}
 * says the NameNode is in a state for it (running and active by default; each loop narrows it, for safe mode or
 * block reports). {@link #wake} runs a pass early; {@link #stop} interrupts the thread and waits for it, bounded.
 */
abstract class PeriodicPass {
  final FSNamesystem fsn;
  /** Every warning of this loop, rate-limited together: a broken cluster must not flood the NameNode's log. */
  final RateLimitedWarning failed;
  private final Logger log;
  private final String threadName;
  private final long interval;
  private final boolean firstAtStart;
  private volatile boolean woken;
  private volatile Thread thread;

  /**
   * @param threadName the thread's name, as operators see it in a stack dump
   * @param interval ms between the end of one pass and the start of the next
   * @param firstAtStart whether the first pass runs at once; otherwise it waits one interval (DataNodes' first block
   *     reports after a start make storages fresh)
   */
  PeriodicPass(FSNamesystem fsn, String threadName, long interval, boolean firstAtStart, Logger log) {
    this.fsn = fsn;
    this.threadName = threadName;
    this.interval = interval;
    this.firstAtStart = firstAtStart;
    this.log = log;
    this.failed = new RateLimitedWarning(log, 10 * 60_000L);
  }

  /** Starts the thread; {@code what} (null: nothing) is the log line saying what the loop does and how often. */
  final void start(String what) {
    Thread t = new Thread(this::loop, threadName);
    t.setDaemon(true);
    thread = t;
    t.start();
    if (what != null) {
      log.info(what);
    }
  }

  /** Runs a pass soon. Only sets a flag and unparks, so it may be called under the namesystem lock. */
  final void wake() {
    woken = true;
    Thread t = thread;
    if (t != null) {
      LockSupport.unpark(t);
    }
  }

  /** Stops the loop: interrupts its thread and waits (bounded) for it, so a NameNode stops promptly. */
  void stop() {
    Thread t = thread;
    thread = null;
    if (t != null) {
      t.interrupt();
      try {
        t.join(10_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private void loop() {
    long next = System.nanoTime() + (firstAtStart ? 0 : TimeUnit.MILLISECONDS.toNanos(interval));
    try {
      while (thread == Thread.currentThread() && !Thread.currentThread().isInterrupted()) {
        long wait = next - System.nanoTime();
        if (wait > 0 && !woken) {
          LockSupport.parkNanos(this, wait);
          continue;
        }
        boolean wasWoken = woken;
        woken = false;
        try {
          if (wasWoken) {
            woken();
          }
          if (mayRun()) {
            runPass();
          }
        } catch (IOException | RuntimeException | LinkageError e) {
          passFailed(e);
        }
        next = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(interval);
      }
    } finally {
      afterLastPass();
    }
  }

  /** Whether the NameNode is in a state for a pass now: by default running and active (a standby writes nothing). */
  boolean mayRun() {
    return fsn.isRunning() && !fsn.isInStandbyState();
  }

  /** One pass. What it throws is {@link #passFailed}'s. */
  abstract void runPass() throws IOException;

  /** {@link #wake} asked for this pass (called whether or not the pass may run). */
  void woken() {}

  /** A pass failed: one rate-limited warning (loops that count failures add their metric). */
  abstract void passFailed(Throwable e);

  /** On the loop's thread once it ends: closes what the passes used. */
  void afterLastPass() {}
}
