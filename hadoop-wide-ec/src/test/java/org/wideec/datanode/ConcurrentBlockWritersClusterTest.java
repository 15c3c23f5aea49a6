package org.wideec.datanode;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.File;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.StorageType;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.util.DataChecksum;
import org.apache.hadoop.util.NativeCodeLoader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wideec.minicluster.MiniClusters;

/**
 * Rebuilt units are stored by many concurrent writers that the worker hands one DataChecksum (the cluster's type and
 * chunk size). Hadoop's DataChecksum keeps its running CRC inside the instance when libhadoop is not loaded, so
 * writers sharing it computed each other's sums and the target refused the packets ("Unexpected checksum mismatch"),
 * failing rebuilds on the real-process cluster. Every writer must checksum with its own instance.
 */
class ConcurrentBlockWritersClusterTest {
  private static final int WRITERS = 6;
  private static final int BLOCK = 4 << 20;
  private MiniDFSCluster cluster;

  @AfterEach
  void stop() {
    if (cluster != null) {
      cluster.shutdown();
    }
  }

  @Test
  void writersSharingTheWorkersChecksumStoreEveryBlockAsSent(@TempDir File dir) throws Exception {
    cluster = MiniClusters.start(new Configuration(), dir, 2, 1, BLOCK);
    // The pure-Java checksum path is the one whose state lives in the instance (the test's JVM has no libhadoop).
    assertEquals(false, NativeCodeLoader.isNativeCodeLoaded(), "this test exercises the pure-Java checksum path");
    DataNode source = cluster.getDataNodes().get(0);
    DataNode targetNode = cluster.getDataNodes().get(1);
    DatanodeInfo target = new DatanodeInfo.DatanodeInfoBuilder().setNodeID(targetNode.getDatanodeId()).build();
    String pool = cluster.getNamesystem().getBlockPoolId();
    String storageId = targetNode.getFSDataset().getVolumeList().get(0).getStorageID();
    // The blocks below are none the NameNode allocated: once the target reported one, the NameNode would order it
    // deleted, and the check of what was stored would race that order. A DataNode-to-DataNode write needs no NameNode.
    cluster.shutdownNameNode(0);
    DataChecksum shared = DataChecksum.newDataChecksum(DataChecksum.Type.CRC32C, 512);
    List<byte[]> contents = new ArrayList<>();
    List<ExtendedBlock> blocks = new ArrayList<>();
    ExecutorService threads = Executors.newFixedThreadPool(WRITERS + 2);
    AtomicBoolean writing = new AtomicBoolean(true);
    try {
      // Two more users of the same instance, as other rebuilds of the same worker are, checksumming all along.
      for (int t = 0; t < 2; t++) {
        threads.submit(() -> {
          byte[] noise = new byte[64 << 10];
          byte[] sums = new byte[(noise.length / 512) * 4];
          new Random().nextBytes(noise);
          while (writing.get()) {
            shared.calculateChunkedSums(noise, 0, noise.length, sums, 0);
          }
        });
      }
      List<Future<?>> done = new ArrayList<>();
      for (int i = 0; i < WRITERS; i++) {
        byte[] data = new byte[BLOCK];
        new Random(i).nextBytes(data);
        ExtendedBlock block = new ExtendedBlock(pool, 1_000_000L + i, BLOCK, 1001);
        contents.add(data);
        blocks.add(block);
        done.add(threads.submit(() -> {
          BlockTargetWriter w = new BlockTargetWriter(source, block, target, StorageType.DISK, storageId, shared, null);
          try {
            for (int off = 0; off < BLOCK; off += 64 << 10) {
              w.write(off, data, off, 64 << 10);
            }
            w.finish();
          } finally {
            w.abort(); // closes the connection whether or not the block was stored
          }
          return null;
        }));
      }
      for (Future<?> f : done) {
        f.get(); // a refused packet fails the writer here
      }
    } finally {
      writing.set(false);
      threads.shutdownNow();
    }
    for (int i = 0; i < WRITERS; i++) {
      ExtendedBlock b = blocks.get(i);
      // The target may still be moving the replica into its finalized directory when the last ack arrives.
      File stored = org.wideec.minicluster.Eventually.await("block " + i + " finalized on the target",
          java.time.Duration.ofSeconds(10), () -> cluster.getBlockFile(1, b), java.util.Objects::nonNull);
      assertArrayEquals(contents.get(i), Files.readAllBytes(stored.toPath()), "block " + i + " as stored");
    }
  }
}
