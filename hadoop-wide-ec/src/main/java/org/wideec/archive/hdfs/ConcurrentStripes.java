package org.wideec.archive.hdfs;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.wideec.archive.ArchivedStripe;

/**
 * The stripes of one archive stepped several at a time ({@link Archiver#drive}): each on a thread of its own, a
 * failure leaving those not yet started as recorded while the running ones finish, the first failure in stripe order
 * thrown once all have ended.
 */
final class ConcurrentStripes {
  private ConcurrentStripes() {}

  /** One stripe stepped as far as it goes, what it did added to {@code run}. */
  @FunctionalInterface
  interface Step {
    void step(ArchivedStripe planned, Archiver.Run run) throws IOException;
  }

  /** The stripes stepped {@code threads} at a time by {@code step}; what they did, merged in stripe order. */
  static Archiver.Run step(List<ArchivedStripe> stripes, int threads, Step step) throws IOException {
    java.util.concurrent.atomic.AtomicInteger named = new java.util.concurrent.atomic.AtomicInteger();
    java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(threads, r -> {
      Thread t = new Thread(r, "wide-ec-archive-stripe-" + named.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
    java.util.concurrent.atomic.AtomicBoolean failed = new java.util.concurrent.atomic.AtomicBoolean();
    List<java.util.concurrent.Future<Archiver.Run>> runs = new ArrayList<>();
    try {
      for (ArchivedStripe planned : stripes) {
        runs.add(pool.submit(() -> {
          if (failed.get()) {
            return null; // left as recorded for the rerun
          }
          try {
            Archiver.Run mine = new Archiver.Run();
            step.step(planned, mine);
            return mine;
          } catch (IOException | RuntimeException | Error e) {
            failed.set(true);
            throw e;
          }
        }));
      }
      Archiver.Run all = new Archiver.Run();
      Throwable first = null;
      for (java.util.concurrent.Future<Archiver.Run> f : runs) {
        try {
          Archiver.Run r = f.get();
          if (r != null) {
            all.add(r);
          }
        } catch (java.util.concurrent.ExecutionException e) {
          if (first == null) {
            first = e.getCause();
          } else {
            first.addSuppressed(e.getCause());
          }
        }
      }
      if (first instanceof IOException io) {
        throw io;
      } else if (first instanceof RuntimeException re) {
        throw re;
      } else if (first instanceof Error err) {
        throw err;
      } else if (first != null) {
        throw new IOException(first);
      }
      return all;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new java.io.InterruptedIOException("interrupted while " + threads + " stripes were being archived");
    } finally {
      pool.shutdownNow(); // every stripe has ended by now, unless this thread was interrupted
    }
  }

}
