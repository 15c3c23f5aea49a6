package org.wideec.cluster;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;

/**
 * The real-process cluster as {@code dev-support/cluster.sh} made it, driven from its client namespace: kill -9 and
 * start daemons, cut off and heal racks, and read the kernel's byte counters of the rack uplinks.
 */
final class ClusterScript {
  private final String script;
  private final String dir;

  ClusterScript(String script, String dir) {
    this.script = script;
    this.dir = dir;
  }

  /** The cluster this process runs in: cluster.sh client sets WIDE_EC_CLUSTER_DIR; the script is found beside it. */
  static ClusterScript fromEnvironment(String scriptOverride) throws IOException {
    String dir = System.getenv("WIDE_EC_CLUSTER_DIR");
    if (dir == null || dir.isEmpty()) {
      throw new IOException("not inside a cluster made by dev-support/cluster.sh (WIDE_EC_CLUSTER_DIR is unset): run"
          + " `sudo dev-support/cluster.sh client $PWD/bin/wide-ec bench cluster ...`, or `sudo bin/wide-ec bench cluster"
          + " ...` to let the bench bring a cluster up and down itself");
    }
    String script = scriptOverride != null ? scriptOverride : System.getenv("WIDE_EC_CLUSTER_SCRIPT");
    if (script == null || !Files.isExecutable(Path.of(script))) {
      throw new IOException("cannot find dev-support/cluster.sh (WIDE_EC_CLUSTER_SCRIPT is unset or not executable);"
          + " pass --cluster-script PATH");
    }
    return new ClusterScript(script, dir);
  }

  String dir() {
    return dir;
  }

  void kill(String node) throws IOException {
    run("kill", node);
  }

  void start(String node) throws IOException {
    run("start", node);
  }

  void rack(int rack, boolean up) throws IOException {
    run("rack", Integer.toString(rack), up ? "up" : "down");
  }

  /** Bytes every rack uplink carried so far: {rack to core, core to rack}, summed over racks (kernel tx counters). */
  long[] uplinkBytes() throws IOException {
    long[] sum = new long[2];
    for (String line : run("counters").split("\n")) {
      String[] f = line.trim().split("\\s+");
      if (f.length == 3 && f[0].startsWith("rack")) {
        sum[0] += Long.parseLong(f[1]);
        sum[1] += Long.parseLong(f[2]);
      }
    }
    return sum;
  }

  /** The cluster's name of a DataNode: dn<i>, whose address ends in 10 + i (cluster.sh's addressing). */
  static String nodeName(DatanodeInfo dn) throws IOException {
    return "dn" + ((InetAddress.getByName(dn.getIpAddr()).getAddress()[3] & 0xff) - 10);
  }

  /** The rack number of a DataNode, from its network location /rackN (cluster.sh's topology). */
  static int rackOf(DatanodeInfo dn) {
    String loc = dn.getNetworkLocation();
    return Integer.parseInt(loc.substring(loc.lastIndexOf("rack") + 4));
  }

  String run(String... args) throws IOException {
    List<String> command = new ArrayList<>(List.of(script));
    command.add(args[0]);
    command.add("--dir");
    command.add(dir);
    command.addAll(List.of(args).subList(1, args.length));
    Path log = Files.createTempFile("cluster-script", ".txt");
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
      if (!p.waitFor(2, TimeUnit.MINUTES)) {
        p.destroyForcibly();
        throw new IOException(String.join(" ", command) + " did not finish in 2 minutes");
      }
      String out = Files.readString(log, StandardCharsets.UTF_8);
      if (p.exitValue() != 0) {
        throw new IOException(String.join(" ", command) + " failed (exit " + p.exitValue() + "): " + out.trim());
      }
      return out;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted running " + String.join(" ", command), e);
    } finally {
      Files.deleteIfExists(log);
    }
  }
}
