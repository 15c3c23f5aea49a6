package org.wideec.demo;

import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.hdfs.util.StripedBlockUtil;
import org.wideec.code.LinearCode;
import org.wideec.coder.StripedCodec;
import org.wideec.coder.hadoop.WideEcPolicies;
import org.wideec.datanode.WideEcDataNodePlugin;
import org.wideec.minicluster.MiniClusters;
import org.wideec.minicluster.SilentCorruption;
import org.wideec.minicluster.StripedGroups;
import org.wideec.placement.hdfs.WideEcNameNodePlugin;
import org.wideec.archive.hdfs.ArchiveLayout;
import org.wideec.archive.hdfs.ManifestStore;
import org.wideec.archive.hdfs.SlicePortClient;
import org.wideec.scrub.hdfs.ScrubPass;
import org.wideec.scrub.hdfs.ScrubStatus;
import org.wideec.time.Backoff;

/**
 * The scrub figures of {@code wide-ec bench ops}: on an embedded cluster of 4 racks x 4 DataNodes, N files of one
 * WIDE-RS-10-4 block group each, one byte of one unit of each changed on disk with its {@code .meta} rewritten to
 * match (so HDFS's checksums pass), the unit cycling over data and parity units; then one pass of the NameNode's
 * continuous scrubber with repair off, so that no rebuild's traffic mixes into the pass's. Detected: groups the pass
 * recorded with exactly the injected unit and node at fault. The cross-rack fraction: bytes the DataNodes' transports
 * sent to another rack during that pass over the groups' stored bytes (the NameNode is in no DataNode's rack, so every
 * summary page counts). Then the scrubber's pass logic ({@link ScrubPass}) runs again with repair on, and repaired
 * counts the groups whose every unit, read from its DataNode, equals what the code computes from the bytes written,
 * and whose file reads back byte for byte, once the worker rebuilt the unit. A last pass over the repaired groups gives
 * the clean fraction: a group that passes its check rows costs only its racks' sums. A measurement, not a test: it asserts
 * nothing and reports what it saw.
 */
public final class ScrubMeasurement {
  private static final int K = 10;
  private static final int M = 4;
  private static final long REPAIR_WAIT_MS = 180_000;

  private ScrubMeasurement() {}

  /**
   * @param dir where the cluster keeps its disks (emptied by the caller)
   * @param corruptions N: files, groups and injected corruptions
   * @param blockBytes each unit's length (a multiple of 64 KiB, the policy's cell)
   * @return scrubInjected, scrubDetected, scrubRepaired, scrubCrossRackFraction, scrubCleanCrossRackFraction
   */
  public static Map<String, Object> run(File dir, int corruptions, long blockBytes, PrintStream out) throws Exception {
    int cell = 64 * 1024;
    if (corruptions < 1 || blockBytes < cell || blockBytes % cell != 0) {
      throw new IllegalArgumentException("scrub measurement needs at least one corruption and whole 64 KiB cells per"
          + " unit, got " + corruptions + " and " + blockBytes);
    }
    Configuration conf = MiniClusters.withWideEcRepair(MiniClusters.withWideEcPlacement(new Configuration()));
    conf.setBoolean(DFSConfigKeys.DFS_BLOCK_ACCESS_TOKEN_ENABLE_KEY, true);
    conf.setBoolean("wide-ec.scrub.enabled", true);
    conf.setLong("wide-ec.scrub.interval.ms", 24 * 3600 * 1000L); // the pass below is the only one
    conf.setBoolean("wide-ec.scrub.repair", false);
    MiniDFSCluster cluster = MiniClusters.start(conf, dir, 4, 4, blockBytes); // room for the 4-rack plan of RS(10,4)
    try {
      DistributedFileSystem fs = cluster.getFileSystem();
      ErasureCodingPolicy policy = WideEcPolicies.addAndEnable(fs, WideEcPolicies.policy("wide-rs", K, M, cell));
      LinearCode code = StripedCodec.WIDE_RS.codeFor(K, M);
      Path dir0 = new Path("/bench/scrub");
      fs.mkdirs(dir0);
      fs.setErasureCodingPolicy(dir0, policy.getName());
      List<Path> files = new ArrayList<>();
      List<byte[]> written = new ArrayList<>();
      for (int i = 0; i < corruptions; i++) {
        Path f = new Path(dir0, "f" + i);
        byte[] data = new byte[(int) (K * blockBytes)];
        new Random(i).nextBytes(data);
        try (FSDataOutputStream o = fs.create(f)) {
          o.write(data);
        }
        files.add(f);
        written.add(data);
      }
      StripedGroups.awaitSettled(cluster, fs, policy, files, 120_000);
      int[] unit = new int[corruptions];
      DatanodeInfo[] holder = new DatanodeInfo[corruptions];
      for (int i = 0; i < corruptions; i++) {
        unit[i] = (i * 5) % (K + M); // data and parity units in turn
        LocatedStripedBlock g = StripedGroups.groups(fs, files.get(i)).get(0);
        holder[i] = StripedGroups.location(g, unit[i]);
        SilentCorruption.flipByte(cluster, holder[i].getXferAddr(), StripedBlockUtil.constructInternalBlock(
            g.getBlock(), policy, unit[i]), (i * 7919L) % blockBytes, 0x5a);
      }
      long crossBefore = crossRackBytes(cluster);
      ScrubStatus status = WideEcNameNodePlugin.scrubber().passNow();
      long cross = crossRackBytes(cluster) - crossBefore;
      int detected = 0;
      for (int i = 0; i < corruptions; i++) {
        String found = files.get(i).toUri().getPath() + " unit_at_fault [" + unit[i] + "] " + holder[i].getXferAddr();
        detected += status.bad().stream().anyMatch(b -> found.equals(b.path() + " " + b.result() + " " + b.node()))
            ? 1 : 0;
      }
      requestRepairs(cluster, fs, files);
      int repaired = 0;
      for (int i = 0; i < corruptions; i++) {
        repaired += repaired(cluster, fs, policy, code, files.get(i), written.get(i), unit[i], holder[i], out) ? 1 : 0;
      }
      // A pass over the repaired groups: what scrubbing costs when nothing is wrong, each rack sending its sums only.
      long cleanBefore = crossRackBytes(cluster);
      WideEcNameNodePlugin.scrubber().passNow();
      long cleanCross = crossRackBytes(cluster) - cleanBefore;
      double groupBytes = corruptions * (long) (K + M) * blockBytes;
      double fraction = cross / groupBytes;
      out.printf("scrub: %d silent corruptions injected (WIDE-RS-%d-%d, %d KiB units), %d detected by one pass, %d"
          + " repaired (bytes compared), %.4f%% of the groups' bytes sent across racks (%.4f%% by a clean pass)%n",
          corruptions, K, M, blockBytes / 1024, detected, repaired, 100 * fraction, 100 * cleanCross / groupBytes);
      Map<String, Object> j = new LinkedHashMap<>();
      j.put("scrubInjected", corruptions);
      j.put("scrubDetected", detected);
      j.put("scrubRepaired", repaired);
      j.put("scrubCrossRackFraction", fraction);
      j.put("scrubCleanCrossRackFraction", cleanCross / groupBytes);
      return j;
    } finally {
      cluster.shutdown();
    }
  }

  /** The scrubber's pass logic with repair on, over the files: each unit at fault reported so the worker rebuilds it. */
  private static void requestRepairs(MiniDFSCluster cluster, DistributedFileSystem fs, List<Path> files)
      throws IOException {
    try (SlicePortClient port = new SlicePortClient(cluster.getConfiguration(0))) {
      ScrubPass pass = new ScrubPass(fs, new ManifestStore(fs, ArchiveLayout.from(fs.getConf())), port, true, new ScrubPass.Counters() {},
          new ScrubStatus(), System.nanoTime(), org.slf4j.LoggerFactory.getLogger(ScrubMeasurement.class));
      for (Path f : files) {
        pass.stripedFile(f, f.toUri().getPath());
      }
    }
  }

  /** Whether the worker rebuilt the unit elsewhere and every unit and byte of the file is what was written. */
  private static boolean repaired(MiniDFSCluster cluster, DistributedFileSystem fs, ErasureCodingPolicy policy,
      LinearCode code, Path file, byte[] data, int unit, DatanodeInfo from, PrintStream out) throws Exception {
    try {
      Backoff poll = Backoff.doubling(200, 1000, REPAIR_WAIT_MS);
      while (true) {
        DatanodeInfo now = StripedGroups.location(StripedGroups.groups(fs, file).get(0), unit);
        if (now != null && !now.getXferAddr().equals(from.getXferAddr())) {
          break;
        }
        if (poll.expired()) {
          throw new IOException("unit " + unit + " still listed on " + from);
        }
        poll.pause();
      }
      StripedGroups.awaitComplete(fs, file, policy, REPAIR_WAIT_MS);
      StripedGroups.verifyEveryUnit(cluster, fs, file, policy, code, data);
      byte[] back = new byte[data.length];
      try (FSDataInputStream in = fs.open(file)) {
        in.readFully(0, back);
      }
      if (!java.util.Arrays.equals(data, back)) {
        throw new IOException("reads back other bytes");
      }
      return true;
    } catch (IOException e) {
      out.println("scrub: " + file + " not repaired: " + e.getMessage());
      return false;
    }
  }

  private static long crossRackBytes(MiniDFSCluster cluster) {
    long sum = 0;
    for (DataNode dn : cluster.getDataNodes()) {
      WideEcDataNodePlugin p = WideEcDataNodePlugin.running(dn.getXferPort());
      sum += p == null || p.metrics() == null ? 0 : p.metrics().bytesSentCrossRack();
    }
    return sum;
  }
}
