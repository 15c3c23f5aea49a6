package org.wideec.client;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.hadoop.conf.Configuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.wideec.config.ConfigValues;
import org.wideec.engine.ChainWarmup;
import org.wideec.repair.RebuildValidation;
import org.wideec.transport.hdfs.TransportConfReader;

/**
 * A FileSystem's chain path run on loopback in a background thread when it starts ({@link ChainWarmup}, as a
 * DataNode's worker does), so a long-running reader (a query engine's executor, a region server) reads its first lost
 * ranges through compiled code. A fresh client JVM's chains of a 1 MiB range through warm DataNodes on the
 * real-process cluster took 0.29, 0.18 and 0.17 s, and settled at 0.14-0.15 s only some 50 reads later. Off by
 * default: a short-lived client would spend the CPU for nothing.
 */
final class DegradedReadWarmup {
  private static final Logger LOG = LoggerFactory.getLogger(DegradedReadWarmup.class);
  /** Slices the helper steps of the loopback chains handle; 0: none. */
  static final String SLICES = "wide-ec.client.degraded-read.warmup.slices";
  static final long SLICES_DEFAULT = 0;

  private final CompletableFuture<ChainWarmup.Result> done = new CompletableFuture<>();

  private DegradedReadWarmup() {}

  /** Starts the warm-up {@code conf} asks for; null when it asks for none. */
  static DegradedReadWarmup start(Configuration conf) {
    long slices = ConfigValues.longAtLeast(conf, SLICES, SLICES_DEFAULT, 0);
    if (slices == 0) {
      return null;
    }
    DegradedReadWarmup w = new DegradedReadWarmup();
    Thread t = new Thread(() -> w.run(conf, slices), "wide-ec-client-warmup");
    t.setDaemon(true);
    t.start();
    return w;
  }

  private void run(Configuration conf, long slices) {
    try {
      // The client's degraded reads check no second decode (RepairChains' engine): neither does its warm-up.
      ChainWarmup.Result r = ChainWarmup.run(TransportConfReader.forClient(conf), RebuildValidation.OFF, slices);
      if (r.rebuiltRight()) {
        LOG.info("degraded reads' chain path warmed up in {} ms: {} loopback chains, {} slices through helper steps",
            r.millis(), r.repairs(), r.hopSlices());
      } else {
        LOG.error("a loopback chain of the degraded-read warm-up ({}) rebuilt a unit wrong: this client's coding"
            + " kernel disagrees; start it with -Dwide-ec.coder.native=false (or -Dwide-ec.coder.vector=false)",
            SLICES);
      }
      done.complete(r);
    } catch (Throwable e) { // a warm-up that fails costs the first degraded reads time, nothing more
      LOG.warn("the degraded-read warm-up ({}) failed: {}", SLICES, e.toString());
      done.completeExceptionally(e);
    }
  }

  /** The result, waiting up to {@code timeoutMs}; null when it failed or is still running. */
  ChainWarmup.Result await(long timeoutMs) throws InterruptedException {
    try {
      return done.get(timeoutMs, TimeUnit.MILLISECONDS);
    } catch (ExecutionException | TimeoutException e) {
      return null;
    }
  }
}
