package org.wideec.demo;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.wideec.engine.RepairEngine;
import org.wideec.repair.SliceSink;
import org.wideec.repair.StripeRepair;
import org.wideec.repair.UnitLocation;

/**
 * Repairs run again and again, each on its own thread, until stopped; the rebuilt bytes are dropped. Each runs as a
 * DataNode's repair worker runs it: as background work ({@link RepairEngine#asBackground}), so its helpers send under
 * their background caps and grant it the configured window of slices per hop. An unmarked repair reads as a
 * user's stream, which gets up to {@link org.wideec.transport.SliceTransport#FOREGROUND_WINDOW_BYTES} of slices per
 * hop: a load no worker puts on the links, whose slices fill every queue a read beside it crosses.
 */
final class RepeatedRepairs {
  private final AtomicBoolean stopping = new AtomicBoolean();
  private final AtomicInteger completed = new AtomicInteger();
  private final AtomicReference<Exception> failure = new AtomicReference<>();
  private final List<Thread> threads = new ArrayList<>();

  /** One more repair to run again and again, asked by {@code requestor} of the embedded cluster as its worker asks. */
  RepeatedRepairs add(String name, MiniDFSCluster cluster, DataNode requestor, StripeRepair r, int slice)
      throws IOException {
    RepairEngine engine = new RepairEngine(EmbeddedGroups.plugin(requestor).transport(),
        EmbeddedGroups.resolver(cluster, requestor), EmbeddedGroups.plugin(requestor).metrics(), 1).asBackground();
    return add(name, engine, r, EmbeddedGroups.where(cluster, requestor), slice);
  }

  private RepeatedRepairs add(String name, RepairEngine engine, StripeRepair r, UnitLocation at, int slice) {
    Thread t = new Thread(() -> {
      try {
        while (!stopping.get()) {
          engine.repair(r, at, (u, len) -> SliceSink.DISCARD, slice);
          completed.incrementAndGet();
        }
      } catch (Exception e) {
        if (!stopping.get()) { // a repair interrupted by stop() is the stop, not a failure
          failure.compareAndSet(null, e);
        }
      }
    }, name);
    t.setDaemon(true);
    threads.add(t);
    return this;
  }

  void start() {
    threads.forEach(Thread::start);
  }

  /**
   * Stops now, abandoning the repairs in flight (their bytes are dropped anyway; under a background cap one of them
   * can take minutes); how many completed before.
   */
  int stop() throws IOException, InterruptedException {
    halt();
    if (failure.get() != null) {
      throw new IOException("a background repair failed: " + failure.get().getMessage(), failure.get());
    }
    return completed.get();
  }

  void halt() throws InterruptedException {
    stopping.set(true);
    threads.forEach(Thread::interrupt);
    for (Thread t : threads) {
      t.join();
    }
  }
}
