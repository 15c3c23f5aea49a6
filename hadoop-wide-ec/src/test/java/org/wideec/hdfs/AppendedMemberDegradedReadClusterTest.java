package org.wideec.hdfs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.junit.jupiter.api.Test;
import org.wideec.client.WideEcFileSystem;
import org.wideec.transport.TransportConf;

/**
 * A degraded read of an archived file whose stripe holds a member a stock client appended to since archival (racked
 * test bed, block tokens on, the NameNode's archive repair off so the lost block stays missing while it is read): the
 * DataNode rebuilds the lost range from the stripe as the manifest describes it, so WideEcFileSystem returns the lost
 * file's archived bytes, and the appended member reads back whole.
 */
class AppendedMemberDegradedReadClusterTest extends ChangedMemberTestBed {
  @Override
  Configuration baseConf() {
    Configuration c = reprotectingHourly(super.baseConf());
    c.setBoolean(DFSConfigKeys.DFS_BLOCK_ACCESS_TOKEN_ENABLE_KEY, true);
    c.setBoolean("wide-ec.archive.repair.enabled", false);
    c.setInt(DFSConfigKeys.DFS_NAMENODE_HEARTBEAT_RECHECK_INTERVAL_KEY, 600_000); // deaths are declared by the test
    return c;
  }

  @Test
  void afterAStockAppendToOneMemberADegradedReadOfAnotherReturnsItsArchivedBytes() throws Exception {
    String dir = "/degraded";
    AppendedThenLost t = appendToDThenLoseA(dir, new byte[] {5, 5, 5, 5, 5, 5, 5});
    byte[] a = t.archivedA();

    Configuration c = new Configuration(conf);
    c.unset(TransportConf.SECRET); // a client holds no cluster secret: it proves its block token
    c.setInt(DFSConfigKeys.DFS_CLIENT_MAX_BLOCK_ACQUIRE_FAILURES_KEY, 1);
    c.set("fs.hdfs.impl", WideEcFileSystem.class.getName());
    c.setBoolean("fs.hdfs.impl.disable.cache", true);
    try (FileSystem ours = FileSystem.get(fs.getUri(), c)) {
      byte[] got = new byte[a.length];
      try (FSDataInputStream in = ours.open(new Path(dir + "/a"))) {
        in.readFully(0, got);
      }
      assertArrayEquals(a, got, "the archived bytes of a, rebuilt through a stripe holding the appended d");
      assertTrue(((WideEcFileSystem) ours).readPathCounters().archivedReads() > 0,
          "read through the archived-read path: " + ((WideEcFileSystem) ours).readPathCounters());
      byte[] d = new byte[(int) ours.getFileStatus(new Path(dir + "/d")).getLen()];
      try (FSDataInputStream in = ours.open(new Path(dir + "/d"))) {
        in.readFully(0, d);
      }
      assertArrayEquals(read(dir + "/d"), d);
      assertEquals(t.appended().length() + 7, d.length);
    }
  }
}
