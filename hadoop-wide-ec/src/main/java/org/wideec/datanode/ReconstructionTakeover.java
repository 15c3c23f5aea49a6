package org.wideec.datanode;

import java.lang.reflect.Field;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.hdfs.server.datanode.erasurecode.ErasureCodingWorker;
import org.apache.hadoop.util.Daemon;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Routes the NameNode's reconstruction tasks for block groups of our codecs to our worker. HDFS's
 * ErasureCodingWorker is final and built inside the DataNode, but it hands every task, already parsed into a
 * StripedBlockReconstructor, to one executor field; we swap that executor for one that looks at each task
 * and runs ours instead for our codecs, and the stock task otherwise. If anything of that is missing on this
 * Hadoop version, nothing is replaced and the DataNode keeps the stock path, with one warning.
 */
final class ReconstructionTakeover {
  private static final Logger LOG = LoggerFactory.getLogger(ReconstructionTakeover.class);

  /** Runs a task of ours; {@code stock} is HDFS's reconstructor for the same task, for fallback. */
  interface Worker {
    void run(ReconstructionTask task, Runnable stock);
  }

  private ReconstructionTakeover() {}

  /** @return true when installed */
  static boolean install(DataNode dn, Predicate<ReconstructionTask> ours, Worker worker) {
    try {
      ReconstructionTask.Access access = new ReconstructionTask.Access();
      ErasureCodingWorker ecw = dn.getErasureCodingWorker();
      if (ecw == null) {
        throw new IllegalStateException("the DataNode has no ErasureCodingWorker");
      }
      Field poolField = ErasureCodingWorker.class.getDeclaredField("stripedReconstructionPool");
      poolField.setAccessible(true);
      ThreadPoolExecutor stock = (ThreadPoolExecutor) poolField.get(ecw);
      poolField.set(ecw, new RoutingPool(stock.getMaximumPoolSize(), access, ours, worker));
      stock.shutdown();
      LOG.info("wide-ec repair worker takes over reconstruction of wide-ec block groups on {}", dn.getDisplayName());
      return true;
    } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
      LOG.warn("wide-ec repair worker cannot take over striped reconstruction on this Hadoop version ({}); "
          + "block groups keep HDFS's stock reconstructor", e.toString());
      return false;
    }
  }

  /** The replacement executor: same size as HDFS's, deciding per task. */
  private static final class RoutingPool extends ThreadPoolExecutor {
    private final ReconstructionTask.Access access;
    private final Predicate<ReconstructionTask> ours;
    private final Worker worker;

    RoutingPool(int threads, ReconstructionTask.Access access, Predicate<ReconstructionTask> ours, Worker worker) {
      super(threads, threads, 60, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
        Thread t = new Daemon(r);
        t.setName("wide-ec-reconstruction-" + t.getId());
        return t;
      });
      allowCoreThreadTimeOut(true);
      this.access = access;
      this.ours = ours;
      this.worker = worker;
    }

    @Override
    public Future<?> submit(Runnable task) {
      if (access.isReconstructor(task)) {
        try {
          ReconstructionTask t = access.read(task);
          if (ours.test(t)) {
            return super.submit(() -> worker.run(t, task));
          }
        } catch (ReflectiveOperationException | RuntimeException e) {
          LOG.warn("wide-ec cannot read a reconstruction task ({}); HDFS's reconstructor runs it", e.toString());
        }
      }
      return super.submit(task);
    }
  }
}
