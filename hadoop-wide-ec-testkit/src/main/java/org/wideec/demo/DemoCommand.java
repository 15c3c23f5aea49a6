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
import org.wideec.minicluster.MiniClusters;
import org.wideec.minicluster.StripedGroups;

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

  /** {@code wide-ec demo}, found by the product's tool through META-INF/services. */
  public static final class Provider extends KitCommandProvider {
    public Provider() {
      super("demo", (conf, out, args) -> new DemoCommand(conf, out).run(args));
    }
  }

  public int run(String[] args) throws Exception {
    org.wideec.cli.Options o = new org.wideec.cli.Options(args, java.util.Set.of("dir"), java.util.Set.of("keep"));
    boolean archive = !o.positional().isEmpty() && o.positional().get(0).equals("archive");
    if (o.positional().size() > (archive ? 1 : 0)) {
      throw new org.wideec.cli.Options.UsageException("demo takes no arguments but 'archive', got '"
          + o.positional().get(archive ? 1 : 0) + "'");
    }
    boolean keep = o.has("keep");
    if (archive && keep) {
      throw new org.wideec.cli.Options.UsageException("demo archive does not take --keep");
    }
    File dir = o.has("dir") ? new File(o.get("dir", null)) : Files.createTempDirectory("wide-ec-demo").toFile();
    if (archive) {
      try {
        return new DemoArchive(conf, new DemoConsole(out, "wide-ec demo archive")).run(dir);
      } finally {
        if (!o.has("dir")) {
          FileUtil.fullyDelete(dir);
        }
      }
    }
    long t0 = System.nanoTime();
    step("starting an HDFS mini cluster: " + RACKS + " racks x " + NODES_PER_RACK + " DataNodes in " + dir
        + ", with our placement policy on the NameNode and our repair worker on every DataNode");
    MiniDFSCluster cluster = MiniClusters.start(MiniClusters.withWideEcRepair(MiniClusters.withWideEcPlacement(conf)), dir,
        RACKS, NODES_PER_RACK, BLOCK);
    boolean running = false;
    try {
      int rc = demo(cluster, t0);
      if (keep && rc == 0) {
        running = true;
        keepRunning(cluster, dir);
      }
      return rc;
    } finally {
      if (!running) {
        cluster.shutdown();
        if (!o.has("dir")) {
          FileUtil.fullyDelete(dir);
        }
      }
    }
  }

  /** Leaves the cluster up for the operator to try commands against, until interrupted. */
  private void keepRunning(MiniDFSCluster cluster, File dir) throws InterruptedException, IOException {
    String fs = cluster.getFileSystem().getUri().toString();
    out.println();
    out.println("The cluster keeps running (Ctrl-C stops it and deletes nothing in " + dir + "). NameNode " + fs
        + ", web UI http://localhost:" + cluster.getNameNode().getHttpAddress().getPort() + ". Try:");
    out.println("  bin/wide-ec -fs " + fs + " fsck /archive");
    out.println("  bin/wide-ec -fs " + fs + " nodes");
    out.println("  bin/wide-ec -fs " + fs + " check-cluster");
    out.println("  hdfs dfs -fs " + fs + " -ls /archive      (with a Hadoop install)");
    out.println("  hdfs ec -fs " + fs + " -listPolicies");
    out.flush();
    java.util.concurrent.CountDownLatch stop = new java.util.concurrent.CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      cluster.shutdown();
      stop.countDown();
    }));
    stop.await();
  }

  private int demo(MiniDFSCluster cluster, long t0) throws Exception {
    DistributedFileSystem fs = cluster.getFileSystem();
    LinearCode code = StripedCodec.byName(CODEC).codeFor(K, M);
    ErasureCodingPolicy policy = WideEcPolicies.policy(CODEC, K, M, CELL);
    Path dir = new Path("/archive");
    enablePolicy(fs, code, policy, dir);

    PlacementPlan plan = StripedPlacement.planFor(CODEC, K, M, StripedPlacement.AUTO);
    PlacementCosts costs = PlacementCosts.of(plan);
    step(String.format("placement plan (%s): %s; a lost data unit is rebuilt from its local group, %.2f cross-rack "
        + "chunks on average (flat placement, one unit per rack: %.2f); any single rack may be lost",
        plan.scheme(), layout(plan, code), costs.carc(), PlacementCosts.of(new FlatPlanner().plan(code)).carc()));

    List<Path> files = new ArrayList<>();
    List<byte[]> contents = new ArrayList<>();
    long written = writeFiles(fs, dir, files, contents);
    StripedGroups.awaitSettled(cluster, fs, policy, files, 60_000);
    for (Path p : files) {
      for (LocatedStripedBlock g : StripedGroups.groups(fs, p)) {
        step("  " + p.getName() + " " + g.getBlock().getBlockName() + ": " + layout(g, code)
            + (StripedPlacement.holds(plan, StripedGroups.rackOfUnit(g, code.n())) ? " (as planned)" : " (OFF PLAN)"));
      }
    }
    fsck(cluster, "fsck before the loss");

    // The rack holding the most units of the largest file's first group: the worst single-rack loss for it.
    Path big = files.get(files.size() - 1);
    LocatedStripedBlock first = StripedGroups.groups(fs, big).get(0);
    String rack = StripedGroups.unitsByRack(first).entrySet().stream()
        .max(java.util.Map.Entry.comparingByValue(java.util.Comparator.comparingInt(List::size))).orElseThrow().getKey();
    List<DataNode> lost = stopRack(cluster, rack);
    step("lost rack " + rack + ": stopped all " + lost.size() + " of its DataNodes, holders of units "
        + StripedGroups.unitsByRack(first).get(rack) + " of " + first.getBlock().getBlockName() + " and of every other "
        + "group with units there");

    long tr = System.nanoTime();
    verifyAll(fs, files, contents);
    step(String.format("degraded read by HDFS's own client: all %d files read back byte for byte (%.1f MiB/s)",
        files.size(), written / 1048576.0 / ((System.nanoTime() - tr) / 1e9)));

    reconstructionStep(cluster, fs, policy, code, lost, files, contents);
    workerStep(cluster);
    StripedGroups.awaitSettled(cluster, fs, policy, files, 60_000);
    fsck(cluster, "fsck after the repair");
    verifyAll(fs, files, contents);
    step("read after reconstruction: all files intact");
    out.println();
    out.printf("demo OK: %d files, %.1f MiB, 1 rack (%d DataNodes) lost, 0 bytes lost, %.0f s in all%n", files.size(),
        written / 1048576.0, lost.size(), (System.nanoTime() - t0) / 1e9);
    return 0;
  }

  /** What an operator types to put the demo's LRC policy on a directory, done here through the same API. */
  private void enablePolicy(DistributedFileSystem fs, LinearCode code, ErasureCodingPolicy policy, Path dir)
      throws IOException {
    step("what an operator types, done here through the same API:");
    command("bin/wide-ec policy --code " + code.spec() + " --cell 64k > lrc.xml");
    command("hdfs ec -addPolicies -policyFile \"$PWD/lrc.xml\"");
    command("hdfs ec -enablePolicy -policy " + policy.getName());
    WideEcPolicies.addAndEnable(fs, policy);
    command("hdfs dfs -mkdir " + dir);
    fs.mkdirs(dir);
    command("hdfs ec -setPolicy -path " + dir + " -policy " + policy.getName());
    fs.setErasureCodingPolicy(dir, policy.getName());
    step("policy " + policy.getName() + " = " + code.spec() + ": 12 data units d0-d11 in two local groups of 6, each with "
        + "an XOR local parity (l14, l15), and 2 global parities (g12, g13); 1.33x redundancy");
  }

  /** Writes the demo's files under {@code dir}, each of random bytes kept in {@code contents}; the bytes written. */
  private long writeFiles(DistributedFileSystem fs, Path dir, List<Path> files, List<byte[]> contents)
      throws IOException {
    Random rnd = new Random(2026);
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
    step(String.format("wrote %d files, %.1f MiB, encoded by the wideec coder (%.1f MiB/s); where each block group landed:",
        files.size(), written / 1048576.0, written / 1048576.0 / ((System.nanoTime() - tw) / 1e9)));
    return written;
  }

  /** Stops every DataNode of the rack; those DataNodes. */
  private static List<DataNode> stopRack(MiniDFSCluster cluster, String rack) throws IOException {
    List<DataNode> lost = new ArrayList<>();
    for (DataNode d : cluster.getDataNodes()) {
      if (rack.equals(cluster.getNameNode().getNamesystem().getBlockManager().getDatanodeManager()
          .getDatanode(d.getDatanodeId()).getNetworkLocation())) {
        lost.add(d);
      }
    }
    for (DataNode d : lost) {
      cluster.stopDataNode(dataNodeIndex(cluster, new org.apache.hadoop.hdfs.protocol.DatanodeInfo.DatanodeInfoBuilder()
          .setNodeID(d.getDatanodeId()).build()));
    }
    return lost;
  }

  /** The lost DataNodes declared dead; every group whole again, each internal block equal to what the code computes. */
  private void reconstructionStep(MiniDFSCluster cluster, DistributedFileSystem fs, ErasureCodingPolicy policy,
      LinearCode code, List<DataNode> lost, List<Path> files, List<byte[]> contents) throws Exception {
    for (DataNode d : lost) {
      cluster.setDataNodeDead(d.getDatanodeId());
    }
    double seconds = 0;
    for (Path p : files) {
      seconds = Math.max(seconds, StripedGroups.awaitComplete(fs, p, policy, 60_000));
    }
    int units = 0;
    for (int i = 0; i < files.size(); i++) {
      units += StripedGroups.verifyEveryUnit(cluster, fs, files.get(i), policy, code, contents.get(i));
    }
    step(String.format("reconstruction: lost units rebuilt in %.1f s; all %d internal blocks equal what %s computes",
        seconds, units, code.spec()));
  }

  /** What the DataNodes' repair workers did, summed over the cluster. */
  private void workerStep(MiniDFSCluster cluster) {
    long[] worker = new long[5];
    for (DataNode d : cluster.getDataNodes()) {
      org.wideec.datanode.WideEcDataNodePlugin p = org.wideec.datanode.WideEcDataNodePlugin.running(d.getXferPort());
      if (p != null && p.metrics() != null) {
        worker[0] += p.metrics().tasksTakenOver();
        worker[1] += p.metrics().succeeded();
        worker[2] += p.metrics().bytesSentInRack();
        worker[3] += p.metrics().bytesSentCrossRack();
        worker[4] += p.metrics().validations();
      }
    }
    // A dead node's units are ordered by the NameNode plugin at once; a task HDFS scheduled before that is taken over.
    long ordered = org.wideec.placement.hdfs.WideEcNameNodePlugin.metrics() == null ? 0
        : org.wideec.placement.hdfs.WideEcNameNodePlugin.metrics().lostUnitsRebuilt();
    step(String.format("repair worker: %d lost units rebuilt on the NameNode's order, %d NameNode tasks taken over, %d"
        + " repairs (a single lost unit by a rack-aggregated chain, several at once by one decode), %d validated by a"
        + " second decode of a sample before storing; %,d bytes sent in-rack, %,d across racks", ordered, worker[0],
        worker[1], worker[4], worker[2], worker[3]));
  }

  /** A plan in one line: each rack's units by role (d data, g global parity, l local parity). */
  private static String layout(PlacementPlan plan, LinearCode code) {
    StringBuilder sb = new StringBuilder();
    for (int r = 0; r < plan.racks(); r++) {
      sb.append(r == 0 ? "" : " ").append("rack").append(r).append("=").append(names(code, plan.units(r)));
    }
    return sb.toString();
  }

  /** A group in one line: each rack's units by role. */
  private static String layout(LocatedStripedBlock g, LinearCode code) {
    StringBuilder sb = new StringBuilder();
    StripedGroups.unitsByRack(g).forEach((rack, units) -> sb.append(sb.length() == 0 ? "" : " ").append(rack).append("=")
        .append(names(code, units.stream().mapToInt(Integer::intValue).toArray())));
    return sb.toString();
  }

  private static String names(LinearCode code, int[] units) {
    StringBuilder sb = new StringBuilder("[");
    for (int i = 0; i < units.length; i++) {
      sb.append(i == 0 ? "" : " ").append(code.role(units[i]).shortName()).append(units[i]);
    }
    return sb.append("]").toString();
  }

  /** Runs `wide-ec fsck /archive` against the cluster and prints what it says. */
  private void fsck(MiniDFSCluster cluster, String title) throws Exception {
    step(title + ":");
    command("bin/wide-ec fsck /archive");
    java.io.ByteArrayOutputStream buf = new java.io.ByteArrayOutputStream();
    int rc = org.apache.hadoop.util.ToolRunner.run(new Configuration(cluster.getConfiguration(0)),
        new org.wideec.cli.WideEcTool(new PrintStream(buf, true, java.nio.charset.StandardCharsets.UTF_8), out),
        new String[] {"fsck", "/archive"});
    buf.toString(java.nio.charset.StandardCharsets.UTF_8).lines().forEach(l -> out.println("    " + l));
    out.println("    (exit " + rc + ")");
  }

  private void command(String c) {
    out.println("    $ " + c);
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
