package org.wideec.datanode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.timeout;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import java.lang.reflect.Field;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.StorageType;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.protocol.SystemErasureCodingPolicies;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.hdfs.server.datanode.erasurecode.ErasureCodingWorker;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The takeover is where our code meets the DataNode's command thread: when it cannot be installed the DataNode is
 * left as it was; once installed, a task it cannot read goes to HDFS's reconstructor, a failure of our worker is
 * caught and counted, and after release every task is HDFS's again. Nothing is thrown at the DataNode.
 */
class ReconstructionTakeoverTest {
  private static final String PKG = ReconstructionTask.PKG;
  private final RepairMetrics metrics = new RepairMetrics("takeover-test");
  private final List<ReconstructionTask> ran = new CopyOnWriteArrayList<>();
  private ErasureCodingWorker ecw;

  @AfterEach
  void shutDown() {
    if (ecw != null) {
      ecw.shutDown();
    }
  }

  @Test
  void aDataNodeWithoutTheExpectedInternalsKeepsTheStockPath() {
    DataNode dn = mock(DataNode.class);
    when(dn.getErasureCodingWorker()).thenReturn(null);
    ReconstructionTakeover.Installed installed = ReconstructionTakeover.install(dn, t -> true, (task, stock) -> {
      throw new AssertionError("our worker must not run when the takeover is not installed");
    }, metrics);
    assertNull(installed);
    assertEquals(0, metrics.unexpectedErrors(), "a missing internal is expected on other versions, not a bug");
  }

  @Test
  void aTaskOurWorkerCannotReadGoesToHdfsAndIsCounted() throws Exception {
    ExecutorService pool = install((task, stock) -> ran.add(task));
    Runnable unreadable = reconstructor(); // its reader and writer are missing: reading it throws
    assertNotNull(pool.submit(unreadable));
    verify(unreadable, timeout(10_000)).run();
    assertEquals(List.of(), ran);
    assertEquals(1, metrics.unexpectedErrors());
  }

  @Test
  void aFailureInOurWorkerIsCaughtAndCounted() throws Exception {
    ExecutorService pool = install((task, stock) -> {
      ran.add(task);
      throw new IllegalStateException("a bug in the worker");
    });
    Runnable task = readableReconstructor();
    pool.submit(task).get(10, TimeUnit.SECONDS); // completes normally: nothing reaches the DataNode
    assertEquals(1, ran.size());
    assertEquals(7L, ran.get(0).blockGroup().getBlockId());
    assertEquals(1, metrics.unexpectedErrors());
    verify(task, never()).run();
  }

  @Test
  void afterReleaseEveryTaskGoesToHdfs() throws Exception {
    DataNode dn = dataNode();
    ReconstructionTakeover.Installed installed = ReconstructionTakeover.install(dn, t -> true, (t, stock) -> ran.add(t),
        metrics);
    ExecutorService pool = pool();
    Runnable first = readableReconstructor();
    pool.submit(first).get(10, TimeUnit.SECONDS);
    assertEquals(1, ran.size(), "ours while installed");
    installed.release();
    Runnable second = readableReconstructor();
    pool.submit(second).get(10, TimeUnit.SECONDS);
    verify(second).run();
    assertEquals(1, ran.size(), "HDFS's after release");
    assertEquals(0, metrics.unexpectedErrors());
  }

  @Test
  void aGroupThatCanLoseNothingMoreIsRepairedBeforeOneQueuedEarlierWithMarginLeft() throws Exception {
    Configuration oneThread = new Configuration(false);
    oneThread.setInt("dfs.datanode.ec.reconstruction.threads", 1);
    assertNotNull(ReconstructionTakeover.install(dataNode(oneThread), RepairWorker::ours, (t, stock) -> ran.add(t),
        metrics));
    ExecutorService pool = pool();
    java.util.concurrent.CountDownLatch busy = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
    pool.submit(() -> {
      busy.countDown();
      release.await();
      return null;
    });
    assertEquals(true, busy.await(10, TimeUnit.SECONDS), "the one thread is busy");
    org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy lrc =
        org.wideec.coder.hadoop.WideEcPolicies.policy("azure-lrc-l2", 12, 4, 64 * 1024);
    // Group 16 lost data unit 0: it can lose any two more. Group 32 lost units 0, 1 and global parity 12: one more
    // loss of the wrong unit (13, say) loses data.
    java.util.concurrent.Future<?> margin = pool.submit(readableReconstructor(16, lrc, 12 * 64 * 1024, except(16, 0)));
    java.util.concurrent.Future<?> none = pool.submit(readableReconstructor(32, lrc, 12 * 64 * 1024,
        except(16, 0, 1, 12)));
    release.countDown();
    margin.get(10, TimeUnit.SECONDS);
    none.get(10, TimeUnit.SECONDS);
    assertEquals(List.of(32L, 16L), ran.stream().map(t -> t.blockGroup().getBlockId()).toList(),
        "the group with no tolerance left first, though queued second");
  }

  @Test
  void aTaskOfUnknownUrgencyQueuedTenMinutesRanksAsUrgentAheadOfLaterUrgentOnes() throws Exception {
    Configuration oneThread = new Configuration(false);
    oneThread.setInt("dfs.datanode.ec.reconstruction.threads", 1);
    java.util.concurrent.atomic.AtomicLong now = new java.util.concurrent.atomic.AtomicLong();
    List<String> order = new java.util.concurrent.CopyOnWriteArrayList<>();
    assertNotNull(ReconstructionTakeover.install(dataNode(oneThread), RepairWorker::ours,
        (t, stock) -> order.add("group " + t.blockGroup().getBlockId()), metrics, now::get));
    ExecutorService pool = pool();
    java.util.concurrent.CountDownLatch busy = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
    pool.submit(() -> {
      busy.countDown();
      release.await();
      return null;
    });
    assertEquals(true, busy.await(10, TimeUnit.SECONDS), "the one thread is busy");
    java.util.concurrent.Future<?> unknown = pool.submit((Runnable) () -> order.add("unknown")); // no reconstruction
    org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy lrc =
        org.wideec.coder.hadoop.WideEcPolicies.policy("azure-lrc-l2", 12, 4, 64 * 1024);
    now.addAndGet(ReconstructionTakeover.UNKNOWN_AGES_AFTER_NANOS);
    // Two groups that can lose nothing more, queued after it.
    java.util.concurrent.Future<?> a =
        pool.submit(readableReconstructor(32, lrc, 12 * 64 * 1024, except(16, 0, 1, 12)));
    java.util.concurrent.Future<?> b =
        pool.submit(readableReconstructor(48, lrc, 12 * 64 * 1024, except(16, 0, 1, 12)));
    release.countDown();
    unknown.get(10, TimeUnit.SECONDS);
    a.get(10, TimeUnit.SECONDS);
    b.get(10, TimeUnit.SECONDS);
    assertEquals(List.of("unknown", "group 32", "group 48"), order, "queued ten minutes, it ranks as urgent");
  }

  /** The units 0..n-1 but {@code lost}. */
  private static byte[] except(int n, int... lost) {
    BitSet gone = new BitSet();
    for (int u : lost) {
      gone.set(u);
    }
    byte[] live = new byte[n - lost.length];
    for (int u = 0, i = 0; u < n; u++) {
      if (!gone.get(u)) {
        live[i++] = (byte) u;
      }
    }
    return live;
  }

  private ExecutorService install(ReconstructionTakeover.Worker worker) throws Exception {
    assertNotNull(ReconstructionTakeover.install(dataNode(), t -> true, worker, metrics));
    return pool();
  }

  private DataNode dataNode() {
    return dataNode(new Configuration(false));
  }

  private DataNode dataNode(Configuration conf) {
    DataNode dn = mock(DataNode.class);
    ecw = new ErasureCodingWorker(conf, dn);
    when(dn.getErasureCodingWorker()).thenReturn(ecw);
    when(dn.getDisplayName()).thenReturn("dn-under-test");
    return dn;
  }

  /** The executor the DataNode now submits to. */
  private ExecutorService pool() throws Exception {
    Field f = ErasureCodingWorker.class.getDeclaredField("stripedReconstructionPool");
    f.setAccessible(true);
    ExecutorService pool = (ExecutorService) f.get(ecw);
    assertSame(ReconstructionTakeover.class, pool.getClass().getEnclosingClass(), "the routing pool is installed");
    return pool;
  }

  /** A StripedBlockReconstructor whose fields are all unset (HDFS builds real ones inside its worker). */
  private static Runnable reconstructor() throws ClassNotFoundException {
    return (Runnable) mock(Class.forName(PKG + "StripedBlockReconstructor"));
  }

  /** One carrying what our worker reads: block group 7 of RS-6-3, unit 0 to rebuild on one target. */
  private static Runnable readableReconstructor() throws Exception {
    return readableReconstructor(7, SystemErasureCodingPolicies.getByID(SystemErasureCodingPolicies.RS_6_3_POLICY_ID),
        6 * 1024, new byte[] {1, 2, 3, 4, 5, 6});
  }

  private static Runnable readableReconstructor(long group, org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy policy,
      long groupBytes, byte[] live) throws Exception {
    Runnable r = reconstructor();
    Object reader = mock(Class.forName(PKG + "StripedReader"));
    Object writer = mock(Class.forName(PKG + "StripedWriter"));
    set(PKG + "StripedReconstructor", r, "blockGroup", new ExtendedBlock("BP-1", group, groupBytes, 1));
    set(PKG + "StripedReconstructor", r, "ecPolicy", policy);
    set(PKG + "StripedReconstructor", r, "excludeBitSet", new BitSet());
    set(PKG + "StripedReconstructor", r, "stripedReader", reader);
    set(PKG + "StripedBlockReconstructor", r, "stripedWriter", writer);
    set(PKG + "StripedReader", reader, "liveIndices", live);
    set(PKG + "StripedReader", reader, "sources", new DatanodeInfo[live.length]);
    set(PKG + "StripedWriter", writer, "targets", new DatanodeInfo[1]);
    set(PKG + "StripedWriter", writer, "targetStorageTypes", new StorageType[] {StorageType.DISK});
    set(PKG + "StripedWriter", writer, "targetStorageIds", new String[] {"s"});
    return r;
  }

  private static void set(String cls, Object target, String field, Object value) throws Exception {
    Field f = Class.forName(cls).getDeclaredField(field);
    f.setAccessible(true);
    f.set(target, value);
  }
}
