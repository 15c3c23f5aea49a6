package org.wideec.datanode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DFSTestUtil;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wideec.minicluster.MiniClusters;

/**
 * A degraded read of an archived block looks its stripe up at the NameNode (the file's pointer, manifest and every
 * member file's blocks): a hostile or confused client repeating a failing read must not make the DataNode repeat that.
 */
class ArchivedStripeLookupTest {
  @TempDir
  File dir;

  @Test
  void aFailedLookupIsAnsweredFromMemoryNotAskedOfTheNameNodeAgain() throws Exception {
    try (MiniDFSCluster cluster = MiniClusters.start(new Configuration(), dir, 1, 1, 1 << 20)) {
      DistributedFileSystem fs = cluster.getFileSystem();
      Path file = new Path("/plain");
      DFSTestUtil.createFile(fs, file, 4096, (short) 1, 7);
      long inode = fs.getClient().getFileInfo(file.toString()).getFileId();
      LocatedBlock block = fs.getClient().getLocatedBlocks(file.toString(), 0).get(0);
      try (ArchivedStripeLookup lookup = new ArchivedStripeLookup(cluster.getConfiguration(0))) {
        for (int i = 0; i < 20; i++) {
          IOException e = assertThrows(IOException.class, () -> lookup.find(inode, block.getBlock().getBlockId()));
          assertTrue(e.getMessage().contains("inode " + inode + " is not archived"), e.getMessage());
          lookup.forget(inode, block.getBlock().getBlockId()); // as the read service does after a failure
        }
        assertEquals(1, lookup.lookups(), "twenty failing reads, one NameNode lookup");
      }
    }
  }
}
