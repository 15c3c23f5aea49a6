package org.wideec.datanode;

import java.lang.reflect.Field;
import java.util.Comparator;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.PriorityBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.hdfs.server.datanode.erasurecode.ErasureCodingWorker;
import org.apache.hadoop.util.Daemon;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.wideec.repair.RepairUrgency;

/**
 * Routes the NameNode's reconstruction tasks for block groups of our codecs to our worker. HDFS's
 * ErasureCodingWorker is final and built inside the DataNode, but it hands every task, already parsed into a
 * StripedBlockReconstructor, to one executor field; we swap that executor for one that looks at each task
 * and runs ours instead for our codecs, and the stock task otherwise. If anything of that is missing on this
 * Hadoop version, nothing is replaced and the DataNode keeps the stock path, with one warning.
 *
 * <p>This is where our code meets a DataNode thread (the command processor submits here), so nothing of ours
 * throws out of it: a failure to read a task sends that task to HDFS's reconstructor, and a failure in our
 * worker is logged and counted ({@link RepairMetrics#unexpectedErrors()}).
 */
final class ReconstructionTakeover {
  private static final Logger LOG = LoggerFactory.getLogger(ReconstructionTakeover.class);

  /** Runs a task of ours; {@code stock} is HDFS's reconstructor for the same task, for fallback. */
  interface Worker {
    void run(ReconstructionTask task, Runnable stock);
  }

  /** An installed takeover. */
  interface Installed {
    /** From now on every task goes to HDFS's reconstructor (tasks already with our worker finish there). */
    void release();

    /** Tasks waiting for a thread now. */
    int queued();
  }

  private ReconstructionTakeover() {}

  /**
   * How long a task whose urgency cannot be known waits at the back of the queue before it ranks as urgent: a steady
   * stream of urgent repairs must not keep it waiting for ever.
   */
  static final long UNKNOWN_AGES_AFTER_NANOS = TimeUnit.MINUTES.toNanos(10);

  /** A queued task with its urgency (changed only while it is out of the queue) and when it was queued. */
  private static final class Urgent<T> extends FutureTask<T> {
    volatile RepairUrgency urgency;
    final long queuedNanos;

    Urgent(Runnable r, RepairUrgency urgency, long queuedNanos) {
      super(r, null);
      this.urgency = urgency;
      this.queuedNanos = queuedNanos;
    }
  }

  /** Most urgent first; anything not queued by submit (nothing HDFS does) after every task. */
  private static final Comparator<Runnable> URGENCY = Comparator.comparing(
      (Runnable r) -> r instanceof Urgent<?> u ? u.urgency : new RepairUrgency(Integer.MAX_VALUE, Long.MAX_VALUE),
      RepairUrgency.MOST_URGENT_FIRST);

  /** @return the installed takeover, or null when this DataNode keeps HDFS's reconstructor */
  static Installed install(DataNode dn, Predicate<ReconstructionTask> ours, Worker worker, RepairMetrics metrics) {
    return install(dn, ours, worker, metrics, System::nanoTime);
  }

  /** As {@link #install(DataNode, Predicate, Worker, RepairMetrics)}, with the clock tasks age by. */
  static Installed install(DataNode dn, Predicate<ReconstructionTask> ours, Worker worker, RepairMetrics metrics,
      LongSupplier clock) {
    try {
      ReconstructionTask.Access access = new ReconstructionTask.Access();
      ErasureCodingWorker ecw = dn.getErasureCodingWorker();
      if (ecw == null) {
        throw new IllegalStateException("the DataNode has no ErasureCodingWorker");
      }
      Field poolField = ErasureCodingWorker.class.getDeclaredField("stripedReconstructionPool");
      poolField.setAccessible(true);
      ThreadPoolExecutor stock = (ThreadPoolExecutor) poolField.get(ecw);
      RoutingPool routing = new RoutingPool(stock.getMaximumPoolSize(), access, ours, worker, metrics, clock);
      poolField.set(ecw, routing);
      stock.shutdown();
      LOG.info("wide-ec repair worker takes over reconstruction of wide-ec block groups on {}",
          WideEcDataNodePlugin.nameOf(dn));
      return routing;
    } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
      LOG.warn("wide-ec repair worker cannot take over striped reconstruction on this Hadoop version ({}); "
          + "block groups keep HDFS's stock reconstructor", e.toString());
      return null;
    }
  }

  /**
   * The replacement executor: same size as HDFS's, deciding per task. Tasks wait for a thread most urgent first
   * ({@link TaskUrgency}): when more groups need repair than threads run, a group that can lose nothing more is
   * repaired before one queued earlier with margin left (HDFS's queue here is first come, first served). A task whose
   * urgency cannot be known waits behind every repair, but once queued {@link #UNKNOWN_AGES_AFTER_NANOS} it ranks as
   * urgent (checked as each task ends, before the next is taken).
   */
  private static final class RoutingPool extends ThreadPoolExecutor implements Installed {
    private final ReconstructionTask.Access access;
    private final Predicate<ReconstructionTask> ours;
    private final Worker worker;
    private final RepairMetrics metrics;
    private final TaskUrgency urgency = new TaskUrgency();
    private final LongSupplier clock;
    private volatile boolean released;

    RoutingPool(int threads, ReconstructionTask.Access access, Predicate<ReconstructionTask> ours, Worker worker,
        RepairMetrics metrics, LongSupplier clock) {
      super(threads, threads, 60, TimeUnit.SECONDS, new PriorityBlockingQueue<>(11, URGENCY), r -> {
        Thread t = new Daemon(r);
        t.setName("wide-ec-reconstruction-" + t.getId());
        return t;
      });
      allowCoreThreadTimeOut(true);
      this.access = access;
      this.ours = ours;
      this.worker = worker;
      this.metrics = metrics;
      this.clock = clock;
    }

    @Override
    protected void afterExecute(Runnable r, Throwable t) {
      try {
        ageUnknown();
      } catch (Throwable e) { // never out of a reconstruction thread
        LOG.warn("wide-ec cannot age the reconstruction queue: {}", e.toString());
      }
    }

    /** Tasks of unknown urgency queued long enough rank as urgent, in the order they were queued. */
    private void ageUnknown() {
      long now = clock.getAsLong();
      for (Runnable r : getQueue().toArray(new Runnable[0])) {
        if (r instanceof Urgent<?> u && u.urgency.tolerance() == Integer.MAX_VALUE
            && now - u.queuedNanos >= UNKNOWN_AGES_AFTER_NANOS && getQueue().remove(u)) {
          u.urgency = new RepairUrgency(0, u.urgency.sequence());
          getQueue().add(u);
        }
      }
    }

    @Override
    public void release() {
      released = true;
    }

    @Override
    public int queued() {
      return getQueue().size();
    }

    @Override
    public Future<?> submit(Runnable task) {
      ReconstructionTask t = released ? null : oursOrNull(task);
      if (t == null) {
        return queue(task, urgencyOf(task));
      }
      return queue(() -> {
        try {
          worker.run(t, task);
        } catch (Throwable e) { // the Future is dropped by HDFS: without this the failure would vanish
          metrics.unexpectedError();
          LOG.error("wide-ec repair worker failed on block group {}", t.blockGroup(), e);
        }
      }, urgencyOf(t));
    }

    private Future<?> queue(Runnable r, RepairUrgency u) {
      Urgent<?> f = new Urgent<>(r, u, clock.getAsLong());
      execute(f);
      return f;
    }

    /** A task's place in the queue; one that cannot be read waits behind every repair, never fails here. */
    private RepairUrgency urgencyOf(Runnable task) {
      try {
        return access.isReconstructor(task) ? urgencyOf(access.read(task)) : urgency.unknown();
      } catch (Throwable e) { // never into the DataNode's command thread
        LOG.warn("wide-ec cannot rank a reconstruction task; it waits behind the others: {}", e.toString());
        return urgency.unknown();
      }
    }

    private RepairUrgency urgencyOf(ReconstructionTask t) {
      try {
        return urgency.of(t);
      } catch (Throwable e) { // never into the DataNode's command thread
        LOG.warn("wide-ec cannot rank the reconstruction of block group {}; it waits behind the others: {}",
            t.blockGroup(), e.toString());
        return urgency.unknown();
      }
    }

    /** The task, when it is a reconstruction for our worker; null when HDFS's reconstructor runs it. */
    private ReconstructionTask oursOrNull(Runnable task) {
      try {
        if (access.isReconstructor(task)) {
          ReconstructionTask t = access.read(task);
          return ours.test(t) ? t : null;
        }
      } catch (Throwable e) { // never into the DataNode's command thread
        metrics.unexpectedError();
        LOG.error("wide-ec cannot read a reconstruction task; HDFS's reconstructor runs it", e);
      }
      return null;
    }
  }
}
