package org.wideec.datanode;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.Objects;
import java.util.Random;
import java.util.zip.CRC32C;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.StorageType;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.util.DataChecksum;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wideec.minicluster.Eventually;
import org.wideec.minicluster.MiniClusters;

/**
 * Two repairs of one unit meeting on its target: the NameNode's order stored it, and an HDFS task our worker took over
 * (issued before that replica was reported) writes it there again. The target refuses the second write by closing the
 * stream. Seen on the multi-process cluster during a rack's loss: the task failed with "Broken pipe" and went to HDFS's
 * reconstructor although the unit was whole. The second writer must count the unit stored when the target's replica
 * has the rebuilt bytes, and fail, naming both checksums, when it has other bytes.
 */
class CollidingBlockWritersClusterTest {
  /** Larger than the loopback's socket buffers, so the refused write breaks while sending, not only at its end. */
  private static final int BLOCK = 16 << 20;
  private MiniDFSCluster cluster;
  private DataNode source;
  private DatanodeInfo target;
  private String storageId;
  private String pool;

  @BeforeEach
  void start(@TempDir File dir) throws Exception {
    cluster = MiniClusters.start(new Configuration(), dir, 2, 1, BLOCK);
    source = cluster.getDataNodes().get(0);
    DataNode targetNode = cluster.getDataNodes().get(1);
    target = new DatanodeInfo.DatanodeInfoBuilder().setNodeID(targetNode.getDatanodeId()).build();
    storageId = targetNode.getFSDataset().getVolumeList().get(0).getStorageID();
    pool = cluster.getNamesystem().getBlockPoolId();
    // Blocks no NameNode allocated: with it running, it would order them deleted while the test checks them.
    cluster.shutdownNameNode(0);
  }

  @AfterEach
  void stop() {
    if (cluster != null) {
      cluster.shutdown();
    }
  }

  @Test
  void aUnitTheTargetAlreadyHoldsWithTheRebuiltBytesCountsAsStored() throws Exception {
    ExtendedBlock block = new ExtendedBlock(pool, 2_000_000L, BLOCK, 1001);
    byte[] data = bytes(1);
    store(block, data, null);
    BlockTargetWriter second = store(block, data, this::storedCrc);
    assertTrue(second.storedByAnother(), "the second write was refused and checked against the replica held");
    assertArrayEquals(data, Files.readAllBytes(cluster.getBlockFile(1, block).toPath()), "the replica as stored first");
  }

  @Test
  void aUnitTheTargetHoldsWithOtherBytesFailsTheWrite() throws Exception {
    ExtendedBlock block = new ExtendedBlock(pool, 2_000_001L, BLOCK, 1001);
    byte[] first = bytes(2);
    store(block, first, null);
    byte[] other = bytes(3);
    IOException e = assertThrows(IOException.class, () -> store(block, other, this::storedCrc));
    assertTrue(e.getMessage().contains("holds another replica of it with CRC32C " + Long.toHexString(crc(first))
        + ", not the rebuilt " + Long.toHexString(crc(other))), e.getMessage());
    assertArrayEquals(first, Files.readAllBytes(cluster.getBlockFile(1, block).toPath()), "the replica untouched");
  }

  @Test
  void aWriteRefusedWhileAnotherIsStillWritingTheUnitFails() throws Exception {
    ExtendedBlock block = new ExtendedBlock(pool, 2_000_002L, BLOCK, 1001);
    byte[] data = bytes(4);
    // Another writer's temporary replica on the target (one on another DataNode: this JVM's claims are one table).
    try (var other = cluster.getDataNodes().get(1).getFSDataset().createTemporary(StorageType.DISK, storageId, block,
        false)) {
      BlockTargetWriter w = writer(block, this::storedCrc);
      try {
        IOException e = assertThrows(IOException.class, () -> {
          for (int off = 0; off < BLOCK; off += 1 << 20) {
            w.write(off, data, off, 1 << 20);
          }
          w.finish();
        });
        assertEquals(false, w.storedByAnother(), e.getMessage());
      } finally {
        w.abort();
      }
    }
  }

  /** Writes {@code data} as {@code block} to the target and waits until the target finalized it. */
  private BlockTargetWriter store(ExtendedBlock block, byte[] data, BlockTargetWriter.Confirmation confirm)
      throws Exception {
    BlockTargetWriter w = writer(block, confirm);
    try {
      for (int off = 0; off < BLOCK; off += 1 << 20) {
        w.write(off, data, off, 1 << 20);
      }
      w.finish();
    } finally {
      w.abort();
    }
    Eventually.await(block + " finalized on the target", Duration.ofSeconds(10), () -> cluster.getBlockFile(1, block),
        Objects::nonNull);
    return w;
  }

  private BlockTargetWriter writer(ExtendedBlock block, BlockTargetWriter.Confirmation confirm) throws IOException {
    return new BlockTargetWriter(source, block, target, StorageType.DISK, storageId,
        DataChecksum.newDataChecksum(DataChecksum.Type.CRC32C, 512), confirm);
  }

  /** What the worker's confirmation reads back: the CRC32C of the target's finalized replica, or none. */
  private long storedCrc(ExtendedBlock block) throws IOException {
    File f = cluster.getBlockFile(1, block);
    if (f == null) {
      throw new IOException("no finalized replica of " + block);
    }
    return crc(Files.readAllBytes(f.toPath()));
  }

  private static byte[] bytes(long seed) {
    byte[] b = new byte[BLOCK];
    new Random(seed).nextBytes(b);
    return b;
  }

  private static long crc(byte[] b) {
    CRC32C c = new CRC32C();
    c.update(b, 0, b.length);
    return c.getValue();
  }
}
