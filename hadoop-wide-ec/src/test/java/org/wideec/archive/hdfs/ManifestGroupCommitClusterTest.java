package org.wideec.archive.hdfs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.wideec.archive.ArchivalPlanner;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.PlacementKind;
import org.wideec.archive.StripeManifest;
import org.wideec.archive.StripeState;
import org.wideec.minicluster.MiniClusters;

/**
 * Stripes archived at once share the manifest's writes: each transition is on disk before its recorder returns and
 * before the hook sees it, several transitions recorded during one write go out together in the next, and a failed
 * write stops every later record. Real HDFS (a racked MiniDFSCluster), a real plan of eight stripes.
 */
class ManifestGroupCommitClusterTest {
  private static final long BLOCK = 64 * 1024;
  private static final String CODE = "rs:k=2,m=1";
  private static MiniDFSCluster cluster;
  private static DistributedFileSystem fs;
  private static File dir;

  @BeforeAll
  static void start() throws Exception {
    dir = java.nio.file.Files.createTempDirectory("wideec-group-commit").toFile();
    cluster = MiniClusters.start(new Configuration(), dir, 3, 1, BLOCK);
    fs = cluster.getFileSystem();
  }

  @AfterAll
  static void stop() {
    if (cluster != null) {
      cluster.shutdown();
    }
    if (dir != null) {
      org.apache.hadoop.fs.FileUtil.fullyDelete(dir);
    }
  }

  /** Every stripe records ENCODING at once, from a thread of its own; the futures, once all have ended. */
  private static List<Future<ArchivedStripe>> recordAllAtOnce(ManifestRecorder rec) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      CountDownLatch go = new CountDownLatch(1);
      List<Future<ArchivedStripe>> done = new ArrayList<>();
      for (ArchivedStripe s : rec.manifest().stripes()) {
        done.add(pool.submit(() -> {
          go.await();
          return rec.record(s.withState(StripeState.ENCODING));
        }));
      }
      go.countDown();
      for (Future<ArchivedStripe> f : done) {
        try {
          f.get();
        } catch (java.util.concurrent.ExecutionException e) {
          // asserted by the caller
        }
      }
      return done;
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void transitionsRecordedDuringAWriteGoOutTogetherInTheNextAndEachIsOnDiskBeforeItsHook() throws Exception {
    ManifestStore store = new ManifestStore(fs, ArchiveLayout.from(fs.getConf()));
    Path path = new Path("/group/f");
    fs.mkdirs(path.getParent());
    List<String> misses = java.util.Collections.synchronizedList(new ArrayList<>());
    Archiver.Hook hook = (manifest, stripe) -> {
      if (stripe != null) {
        // The hook's manifest carries the transition, and so does the manifest on disk.
        StripeManifest disk = store.find(store.inodeOf(path));
        if (manifest.stripe(stripe.stripeId()).state() != StripeState.ENCODING
            || disk.stripe(stripe.stripeId()).state() != StripeState.ENCODING) {
          misses.add("stripe " + stripe.stripeId());
        }
      }
    };
    try (FSDataOutputStream out = fs.create(path, (short) 3)) {
      out.write(new byte[(int) (16 * BLOCK)]);
    }
    long inode = store.inodeOf(path);
    try (java.io.Closeable held = store.lock(inode)) {
      StripeManifest plan = ArchivalPlanner.plan(new ArchivalSource(fs).request(path, CODE, PlacementKind.FLAT))
          .toManifest(id -> store.layout().parityDir(inode, id).toString());
      assertEquals(8, plan.stripes().size());
      ManifestRecorder rec = ManifestRecorder.planned(store, inode, plan, hook);
      long before = store.writesBegun();
      for (Future<ArchivedStripe> f : recordAllAtOnce(rec)) {
        assertEquals(StripeState.ENCODING, f.get().state());
      }
      long writes = store.writesBegun() - before;
      assertEquals(List.of(), misses, "transitions a hook saw before they were on disk");
      StripeManifest disk = store.find(inode);
      assertTrue(disk.stripes().stream().allMatch(s -> s.state() == StripeState.ENCODING), disk.toString());
      assertEquals(disk, rec.manifest(), "the recorder shows the manifest as written");
      // Eight threads at once: the first write carries one transition, the rest wait and share the writes after it.
      assertTrue(writes >= 1 && writes < 8, "8 transitions in " + writes + " writes");
      System.out.println("8 concurrent transitions recorded in " + writes + " manifest writes");
    }
  }

  @Test
  void aFailedWriteFailsItsTransitionAndEveryLaterOne() throws Exception {
    ManifestStore store = new ManifestStore(fs, ArchiveLayout.from(fs.getConf()));
    Path path = new Path("/group/lost");
    fs.mkdirs(path.getParent());
    try (FSDataOutputStream out = fs.create(path, (short) 3)) {
      out.write(new byte[(int) (16 * BLOCK)]);
    }
    long inode = store.inodeOf(path);
    store.lock(inode);
    StripeManifest plan = ArchivalPlanner.plan(new ArchivalSource(fs).request(path, CODE, PlacementKind.FLAT))
        .toManifest(id -> store.layout().parityDir(inode, id).toString());
    ManifestRecorder rec = ManifestRecorder.planned(store, inode, plan, Archiver.Hook.NONE);
    // Another run takes this one for dead and recovers its lock: this run's next write is refused.
    DistributedFileSystem fs2 = (DistributedFileSystem) org.apache.hadoop.fs.FileSystem.newInstance(fs.getConf());
    ManifestStore store2 = new ManifestStore(fs2, store.layout()).holder("second run");
    assertTrue(store2.releaseDeadHolder(inode, 60_000), "the first run's lease was recovered");
    java.io.Closeable held2 = store2.lock(inode);
    ArchivedStripe first = rec.manifest().stripes().get(0);
    LostArchiveLockException lost = assertThrows(LostArchiveLockException.class,
        () -> rec.record(first.withState(StripeState.ENCODING)));
    ArchivedStripe second = rec.manifest().stripes().get(1);
    assertSame(lost, assertThrows(IOException.class, () -> rec.record(second.withState(StripeState.ENCODING))),
        "a later transition fails with the failure that stopped the recorder");
    assertEquals(plan, store.find(inode), "the manifest on disk is the plan: nothing after the failure was written");
    assertEquals(plan, rec.manifest());
    held2.close();
    fs2.close();
  }
}
