package org.wideec.hdfs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.hdfs.tools.DFSck;
import org.apache.hadoop.util.ToolRunner;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.StripeManifest;
import org.wideec.archive.StripeMember;
import org.wideec.archive.hdfs.CodewordFiles;
import org.wideec.client.WideEcFileSystem;
import org.wideec.minicluster.MiniClusters;
import org.wideec.placement.hdfs.WideEcNameNodePlugin;

/**
 * The life of a sealed (RapidRAID) file after archival (issue 14 item 2) on the racked test bed (6 racks x 3
 * DataNodes, 64 KiB blocks) with the NameNode's repair monitor and the DataNodes' workers: a lost codeword is rebuilt
 * under its own block id from k others by the exact code, checked against the manifest's CRC.
 */
class SealedLifecycleClusterTest extends ArchiveTestBed {
  static final String RR = "rapidraid:n=8,k=4";
  private final List<MiniDFSCluster.DataNodeProperties> stopped = new ArrayList<>();

  @Override
  Configuration baseConf() {
    Configuration base = MiniClusters.withWideEcRepair(MiniClusters.withWideEcPlacement(new Configuration()));
    base.setLong("wide-ec.archive.repair.interval.ms", 300);
    base.setLong("wide-ec.archive.repair.backoff.ms", 500);
    return base;
  }

  @AfterEach
  void restartStopped() throws Exception {
    for (MiniDFSCluster.DataNodeProperties p : stopped) {
      cluster.restartDataNode(p, true);
    }
    stopped.clear();
    cluster.waitActive();
  }

  byte[] write(String path, long bytes) throws Exception {
    byte[] data = new byte[(int) bytes];
    new Random(path.hashCode()).nextBytes(data);
    try (FSDataOutputStream o = fs.create(new Path(path), (short) 3)) {
      o.write(data);
    }
    return data;
  }

  FileSystem wideEc() throws IOException {
    Configuration c = new Configuration(conf);
    c.set("fs.hdfs.impl", WideEcFileSystem.class.getName());
    c.setBoolean("fs.hdfs.impl.disable.cache", true);
    return FileSystem.newInstance(fs.getUri(), c);
  }

  static byte[] readAll(FileSystem client, String path, int length) throws IOException {
    byte[] out = new byte[length];
    try (FSDataInputStream in = client.open(new Path(path))) {
      in.readFully(0, out);
    }
    return out;
  }

  StripeManifest sealedManifest(String path) throws IOException {
    return store.read(new Path(store.pointer(new Path(path)).manifestPath()));
  }

  private LocatedBlock located(ArchivedStripe s, int u) throws IOException {
    String file = CodewordFiles.file(s, u).toString();
    return fs.getClient().getLocatedBlocks(file, 0, Math.max(1, s.unitLength())).get(0);
  }

  private void kill(String xferAddr) throws Exception {
    DataNode dn = cluster.getDataNodes().stream().filter(d -> d.getDatanodeId().getXferAddr().equals(xferAddr))
        .findFirst().orElseThrow();
    stopped.add(cluster.stopDataNode(xferAddr));
    cluster.setDataNodeDead(dn.getDatanodeId());
  }

  void fsckHealthy() throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int rc = ToolRunner.run(new DFSck(conf, new PrintStream(out, true, "UTF-8")), new String[] {"/"});
    String report = out.toString("UTF-8");
    assertEquals(0, rc, report);
    assertTrue(report.contains("is HEALTHY"), report);
  }

  @Test
  void aLostCodewordIsRebuiltUnderItsOwnIdFromKOthers() throws Exception {
    String path = "/cold/repair";
    long length = 6 * BLOCK + 500; // stripes of 4 and 3 pieces (the last short)
    byte[] data = write(path, length);
    ToolRun run = tool("archive", path, "--code", RR);
    assertEquals(0, run.exit(), run.out() + run.err());
    StripeManifest m = sealedManifest(path);
    ArchivedStripe s0 = m.stripes().get(0);
    String dead = located(s0, 3).getLocations()[0].getXferAddr();
    List<long[]> onDead = new ArrayList<>(); // {stripe index, unit}
    for (int i = 0; i < m.stripes().size(); i++) {
      ArchivedStripe s = m.stripes().get(i);
      for (int u : s.storedUnits()) {
        if (located(s, u).getLocations()[0].getXferAddr().equals(dead)) {
          onDead.add(new long[] {i, u});
        }
      }
    }
    long repairedBefore = WideEcNameNodePlugin.metrics().archivedBlocksRepaired();
    kill(dead);
    long deadline = System.currentTimeMillis() + 60_000;
    for (long[] x : onDead) {
      ArchivedStripe s = m.stripes().get((int) x[0]);
      int u = (int) x[1];
      while (located(s, u).getLocations().length == 0) {
        assertTrue(System.currentTimeMillis() < deadline, "stripe " + s.stripeId() + " codeword " + u
            + " still missing; repaired " + WideEcNameNodePlugin.metrics().archivedBlocksRepaired() + ", failures "
            + WideEcNameNodePlugin.metrics().archivedRepairFailures());
        Thread.sleep(100);
      }
      LocatedBlock lb = located(s, u);
      StripeMember mem = s.member(u);
      assertEquals(mem.blockId(), lb.getBlock().getBlockId());
      assertEquals(mem.generationStamp(), lb.getBlock().getGenerationStamp());
      assertEquals(1, lb.getLocations().length);
      assertTrue(!lb.getLocations()[0].getXferAddr().equals(dead));
      assertEquals(mem.plannedRack(), lb.getLocations()[0].getNetworkLocation());
      byte[] bytes = readAll(fs, CodewordFiles.file(s, u).toString(), (int) s.unitLength());
      assertEquals(mem.crc32c(), ArchiveChecks.crc(bytes), "stripe " + s.stripeId() + " codeword " + u);
    }
    assertTrue(WideEcNameNodePlugin.metrics().archivedBlocksRepaired() >= repairedBefore + onDead.size());
    try (FileSystem ours = wideEc()) {
      assertArrayEquals(data, readAll(ours, path, (int) length));
    }
    fsckHealthy();
  }
}
