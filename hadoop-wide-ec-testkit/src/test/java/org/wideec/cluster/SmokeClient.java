package org.wideec.cluster;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.protocol.HdfsConstants.DatanodeReportType;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.wideec.coder.hadoop.WideEcPolicies;
import org.wideec.datanode.JmxEndpointResolver;
import org.wideec.minicluster.Eventually;
import org.wideec.minicluster.StripedGroups;

/**
 * The client side of the real-process smoke test, run inside the cluster's client namespace
 * ({@code cluster.sh client java ... SmokeClient CLUSTER_SCRIPT CLUSTER_DIR}): writes striped files under a small
 * policy of our codecs, kills one DataNode holding a unit with {@code kill -9}, waits until the NameNode declares it
 * dead and every group is whole again, and reads every byte back. Prints one line of facts for the test to check.
 */
public final class SmokeClient {
  private static final int FILES = 2;
  private static final int FILE_BYTES = 3_000_000;
  private static final long TIMEOUT_MS = TimeUnit.MINUTES.toMillis(3);

  private SmokeClient() {}

  /** What is left of the whole wait, which starts at the kill. */
  private static Duration left(long killedNanos) {
    return Duration.ofMillis(TIMEOUT_MS).minusNanos(System.nanoTime() - killedNanos);
  }

  public static void main(String[] args) throws Exception {
    String script = args[0];
    String clusterDir = args[1];
    Configuration conf = new Configuration();
    DistributedFileSystem fs = (DistributedFileSystem) FileSystem.get(conf);
    ErasureCodingPolicy policy = WideEcPolicies.addAndEnable(fs, WideEcPolicies.policy("wide-rs", 2, 2, 64 * 1024));
    Path dir = new Path("/smoke");
    fs.mkdirs(dir);
    fs.setErasureCodingPolicy(dir, policy.getName());
    List<Path> files = new ArrayList<>();
    for (int f = 0; f < FILES; f++) {
      Path file = new Path(dir, "file" + f);
      try (FSDataOutputStream out = fs.create(file)) {
        out.write(content(f));
      }
      StripedGroups.awaitComplete(fs, file, policy, TIMEOUT_MS);
      files.add(file);
    }

    // The DataNode holding unit 0 of the first group; its name in the cluster is dn<host number - 10>.
    LocatedStripedBlock first = StripedGroups.groups(fs, files.get(0)).get(0);
    DatanodeInfo victim = StripedGroups.location(first, 0);
    JmxEndpointResolver jmx = new JmxEndpointResolver(conf, 10_000);
    long[] before = workerTasks(fs, jmx, victim);
    String node = "dn" + ((InetAddress.getByName(victim.getIpAddr()).getAddress()[3] & 0xff) - 10);
    run(script, "kill", node, "--dir", clusterDir);
    long killed = System.nanoTime();
    Eventually.await("the NameNode declares " + victim.getXferAddr() + " dead", left(killed),
        () -> Arrays.stream(fs.getDataNodeStats(DatanodeReportType.DEAD))
            .anyMatch(d -> d.getXferAddr().equals(victim.getXferAddr())));
    double deadSeconds = (System.nanoTime() - killed) / 1e9;
    // The report calls a DataNode dead as soon as its heartbeats are late; the NameNode drops its replicas at its next
    // heartbeat check (dfs.namenode.heartbeat.recheck-interval), and only then schedules the rebuild.
    Eventually.await("the NameNode lists no unit on dead " + victim.getXferAddr(), left(killed),
        () -> !listsAnywhere(fs, files, victim));
    for (Path file : files) {
      StripedGroups.awaitComplete(fs, file, policy, TIMEOUT_MS);
    }
    double wholeSeconds = (System.nanoTime() - killed) / 1e9;
    long[] after = workerTasks(fs, jmx, victim);

    long compared = 0;
    int mismatched = 0;
    for (int f = 0; f < FILES; f++) {
      byte[] expected = content(f);
      byte[] read = new byte[expected.length + 1];
      int n = 0;
      try (FSDataInputStream in = fs.open(files.get(f))) {
        for (int r; n < read.length && (r = in.read(read, n, read.length - n)) > 0; ) {
          n += r;
        }
      }
      compared += n;
      if (n != expected.length || !Arrays.equals(expected, 0, n, read, 0, n)) {
        mismatched++;
      }
    }
    System.out.printf("smoke: killed=%s files=%d written=%d compared=%d mismatched=%d workerRepairs=%d stockTasks=%d "
        + "deadAfter=%.1fs wholeAfter=%.1fs%n", node, FILES, (long) FILES * FILE_BYTES, compared, mismatched,
        after[0] - before[0], after[1] - before[1], deadSeconds, wholeSeconds);
  }

  private static boolean listsAnywhere(DistributedFileSystem fs, List<Path> files, DatanodeInfo node) throws IOException {
    for (Path file : files) {
      for (LocatedStripedBlock g : StripedGroups.groups(fs, file)) {
        if (Arrays.stream(g.getLocations()).anyMatch(d -> d.getXferAddr().equals(node.getXferAddr()))) {
          return true;
        }
      }
    }
    return false;
  }

  private static byte[] content(int file) {
    byte[] b = new byte[FILE_BYTES];
    new Random(1000 + file).nextBytes(b);
    return b;
  }

  /**
   * Units our workers rebuilt, on the NameNode plugin's order (its LostUnitsRebuilt) or taking over a reconstruction
   * task of HDFS's on the other live DataNodes, and tasks they handed to HDFS's stock reconstructor.
   */
  private static long[] workerTasks(DistributedFileSystem fs, JmxEndpointResolver jmx, DatanodeInfo victim)
      throws IOException {
    long[] t = new long[2];
    for (DatanodeInfo dn : fs.getDataNodeStats(DatanodeReportType.LIVE)) {
      if (dn.getXferAddr().equals(victim.getXferAddr())) {
        continue;
      }
      t[0] += jmx.bean(dn).path("TasksCompleted").asLong();
      t[1] += jmx.bean(dn).path("TasksHandedToStock").asLong();
    }
    String web = org.apache.hadoop.hdfs.DFSUtil.getInfoServer(org.apache.hadoop.hdfs.HAUtil.getAddressOfActive(fs),
        fs.getConf(), org.apache.hadoop.hdfs.DFSUtil.getHttpClientScheme(fs.getConf())).toString();
    com.fasterxml.jackson.databind.JsonNode plugin = jmx.firstBean(web + "/jmx?qry=Hadoop:service=NameNode,name=WideEc");
    t[0] += plugin == null ? 0 : plugin.path("LostUnitsRebuilt").asLong();
    return t;
  }

  private static void run(String... command) throws IOException, InterruptedException {
    java.io.File log = Files.createTempFile("smoke-run", ".txt").toFile();
    Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log).start();
    if (!p.waitFor(1, TimeUnit.MINUTES) || p.exitValue() != 0) {
      throw new IOException(String.join(" ", command) + " failed: " + Files.readString(log.toPath()));
    }
  }
}
