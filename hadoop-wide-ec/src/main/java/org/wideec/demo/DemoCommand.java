package org.wideec.demo;

import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileUtil;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.io.IOUtils;
import org.wideec.analysis.PlacementCosts;
import org.wideec.code.LinearCode;
import org.wideec.placement.FlatPlanner;
import org.wideec.placement.PlacementPlan;
import org.wideec.placement.StripedPlacement;
import org.wideec.coder.StripedCodec;
import org.wideec.coder.hadoop.WideEcPolicies;

/**
 * {@code wide-ec demo}: the main job, end to end on an embedded cluster. Starts a MiniDFSCluster with racks and
 * our placement policy, adds and enables an Azure-LRC 12+2+2 policy, shows its combined-locality plan and
 * costs, writes files of several sizes under it, shows where each block group landed, stops a DataNode,
 * reads everything back degraded, waits for HDFS to rebuild the lost units with our decoder, then checks
 * every internal block against the code and every file against what was written.
 */
public final class DemoCommand {
  static final String CODEC = "azure-lrc-l2";
  static final int K = 12;
  static final int M = 4;
  static final int CELL = 64 * 1024;
  static final long BLOCK = 1024 * 1024;
  /** Combined locality puts up to 3 units of a group in a rack; a spare node per rack takes a rebuilt unit. */
  static final int RACKS = 7;
  static final int NODES_PER_RACK = 4;
  static final long[] FILE_SIZES = {1, 100_000, 5 * 1024 * 1024 + 123, 26 * 1024 * 1024 + 7};

  private final Configuration conf;
  private final PrintStream out;

  public DemoCommand(Configuration conf, PrintStream out) {
    this.conf = conf;
    this.out = out;
  }

  public int run(String[] args) throws Exception {
    org.wideec.cli.Options o = new org.wideec.cli.Options(args, java.util.Set.of("keep"), java.util.Set.of());
    if (!o.positional().isEmpty()) {
      throw new org.wideec.cli.Options.UsageException("demo takes no arguments, got '" + o.positional().get(0) + "'");
    }
    boolean keep = o.has("keep");
    File dir = keep ? new File(o.get("keep", null)) : Files.createTempDirectory("wide-ec-demo").toFile();
    long t0 = System.nanoTime();
    step("starting an HDFS mini cluster: " + RACKS + " racks x " + NODES_PER_RACK + " DataNodes in " + dir);
    MiniDFSCluster cluster = MiniClusters.start(MiniClusters.withWideEcRepair(MiniClusters.withWideEcPlacement(conf)), dir,
        RACKS, NODES_PER_RACK, BLOCK);
    try {
      return demo(cluster, t0);
    } finally {
      cluster.shutdown();
      if (!keep) {
        FileUtil.fullyDelete(dir);
      }
    }
  }

  private int demo(MiniDFSCluster cluster, long t0) throws Exception {
    DistributedFileSystem fs = cluster.getFileSystem();
    LinearCode code = StripedCodec.byName(CODEC).codeFor(K, M);
    ErasureCodingPolicy policy = WideEcPolicies.addAndEnable(fs, WideEcPolicies.policy(CODEC, K, M, CELL));
    Path dir = new Path("/archive");
    fs.mkdirs(dir);
    fs.setErasureCodingPolicy(dir, policy.getName());
    step("policy " + policy.getName() + " = " + code.spec() + " (units: 12 data, 2 global, 2 local parities)"
        + " set on " + dir);

    PlacementPlan plan = StripedPlacement.planFor(CODEC, K, M, StripedPlacement.AUTO);
    PlacementCosts costs = PlacementCosts.of(plan);
    step(String.format("placement plan (%s): units per rack %s; cross-rack chunks to repair each unit %s;"
        + " ARC %.2f, CARC %.2f (flat placement: CARC %.2f)", plan.scheme(), Arrays.toString(plan.unitsPerRack()),
        Arrays.toString(costs.crossRackCost()), costs.arc(), costs.carc(),
        PlacementCosts.of(new FlatPlanner().plan(code)).carc()));

    Random rnd = new Random(2026);
    List<Path> files = new ArrayList<>();
    List<byte[]> contents = new ArrayList<>();
    long written = 0;
    long tw = System.nanoTime();
    for (long size : FILE_SIZES) {
      byte[] data = new byte[(int) size];
      rnd.nextBytes(data);
      Path p = new Path(dir, "file-" + size);
      try (FSDataOutputStream o = fs.create(p)) {
        o.write(data);
      }
      files.add(p);
      contents.add(data);
      written += size;
    }
    step(String.format("wrote %d files, %.1f MiB, encoded by the wideec coder (%.1f MiB/s)", files.size(),
        written / 1048576.0, written / 1048576.0 / ((System.nanoTime() - tw) / 1e9)));

    StripedGroups.awaitSettled(cluster, fs, policy, files, 60_000);
    for (Path p : files) {
      for (LocatedStripedBlock g : StripedGroups.groups(fs, p)) {
        step("  " + p.getName() + " " + g.getBlock().getBlockName() + ": " + StripedGroups.unitsByRack(g)
            + (StripedPlacement.holds(plan, StripedGroups.rackOfUnit(g, code.n())) ? " (as planned)" : " (OFF PLAN)"));
      }
    }
    Path big = files.get(files.size() - 1);
    LocatedStripedBlock first = StripedGroups.groups(fs, big).get(0);
    DatanodeInfo victim = StripedGroups.location(first, 0);
    int victimIndex = dataNodeIndex(cluster, victim);
    DataNode dn = cluster.getDataNodes().get(victimIndex);
    cluster.stopDataNode(victimIndex);
    step("stopped DataNode " + victim.getXferAddr() + " (" + victim.getNetworkLocation() + "), holder of data unit 0");

    long tr = System.nanoTime();
    verifyAll(fs, files, contents);
    step(String.format("degraded read: all %d files read back byte for byte (%.1f MiB/s)", files.size(),
        written / 1048576.0 / ((System.nanoTime() - tr) / 1e9)));

    cluster.setDataNodeDead(dn.getDatanodeId());
    double seconds = 0;
    for (Path p : files) {
      seconds = Math.max(seconds, StripedGroups.awaitComplete(fs, p, policy, 40_000));
    }
    int units = 0;
    for (int i = 0; i < files.size(); i++) {
      units += StripedGroups.verifyEveryUnit(cluster, fs, files.get(i), policy, code, contents.get(i));
    }
    step(String.format("reconstruction: lost units rebuilt in %.1f s; all %d internal blocks equal what %s computes",
        seconds, units, code.spec()));
    long[] worker = new long[4];
    for (DataNode d : cluster.getDataNodes()) {
      org.wideec.datanode.WideEcDataNodePlugin p = org.wideec.datanode.WideEcDataNodePlugin.running(d.getXferPort());
      if (p != null && p.metrics() != null) {
        worker[0] += p.metrics().tasksTakenOver();
        worker[1] += p.metrics().succeeded();
        worker[2] += p.metrics().bytesSentInRack();
        worker[3] += p.metrics().bytesSentCrossRack();
      }
    }
    step(String.format("repair worker: %d NameNode tasks taken over, %d units rebuilt by rack-aggregated chains; "
        + "%,d bytes sent in-rack, %,d across racks", worker[0], worker[1], worker[2], worker[3]));
    verifyAll(fs, files, contents);
    step("read after reconstruction: all files intact");
    int onPlan = 0;
    int total = 0;
    for (Path p : files) {
      for (LocatedStripedBlock g : StripedGroups.groups(fs, p)) {
        total++;
        onPlan += StripedPlacement.holds(plan, StripedGroups.rackOfUnit(g, code.n())) ? 1 : 0;
      }
    }
    step("after repair " + onPlan + " of " + total + " block groups are placed as planned");
    out.println();
    out.printf("demo OK: %d files, %.1f MiB, 1 DataNode lost, 0 bytes lost, %.0f s in all%n", files.size(),
        written / 1048576.0, (System.nanoTime() - t0) / 1e9);
    return 0;
  }

  private static void verifyAll(DistributedFileSystem fs, List<Path> files, List<byte[]> contents) throws IOException {
    for (int i = 0; i < files.size(); i++) {
      byte[] back = new byte[contents.get(i).length];
      try (FSDataInputStream in = fs.open(files.get(i))) {
        IOUtils.readFully(in, back, 0, back.length);
      }
      if (!Arrays.equals(back, contents.get(i))) {
        throw new IOException("file " + files.get(i) + " read back differs from what was written");
      }
    }
  }

  static int dataNodeIndex(MiniDFSCluster cluster, DatanodeInfo info) {
    List<DataNode> dns = cluster.getDataNodes();
    for (int i = 0; i < dns.size(); i++) {
      if (dns.get(i).getXferPort() == info.getXferPort()) {
        return i;
      }
    }
    throw new IllegalStateException("no DataNode at " + info);
  }

  private void step(String s) {
    out.println("[wide-ec demo] " + s);
    out.flush();
  }
}
