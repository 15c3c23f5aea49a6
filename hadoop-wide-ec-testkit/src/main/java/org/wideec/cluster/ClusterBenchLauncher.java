package org.wideec.cluster;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.wideec.cli.Options;

/**
 * {@code sudo bin/wide-ec bench cluster ...} from the host: brings a cluster up with dev-support/cluster.sh (from the
 * tarball dist.sh built; its size and shaping from the bench's options), runs the same command inside the cluster's
 * client namespace, and takes the cluster down whatever happens. The one-line full-size run.
 */
final class ClusterBenchLauncher {
  /** cluster.sh up's options the bench passes through, with the bench's defaults (24 DataNodes in 6 racks). */
  private static final String[][] UP = {{"nodes", "24"}, {"racks", "6"}, {"node-rate", null}, {"mtu", null}, {"jit", null}, {"oversubscription", null},
      {"uplink-rate", null}, {"shaping", null}, {"cross-rack-rate", null}, {"block-size", "8m"}, {"dn-heap", null},
      {"tarball", null}};

  private ClusterBenchLauncher() {}

  static int run(Options o, String[] args) throws IOException, InterruptedException {
    String script = o.has("cluster-script") ? o.get("cluster-script", "") : sourceRoot().resolve("dev-support/cluster.sh").toString();
    if (!Files.isExecutable(Path.of(script))) {
      throw new IOException("cannot find dev-support/cluster.sh at " + script + "; pass --cluster-script PATH");
    }
    String dir = o.get("dir", "/tmp/wide-ec-bench-cluster");
    List<String> up = new ArrayList<>(List.of(script, "up", "--dir", dir, "--prefix", "wbench"));
    for (String[] opt : UP) {
      String v = o.get(opt[0], opt[1]);
      if (v != null) {
        up.add("--" + opt[0]);
        up.add(v);
      }
    }
    System.err.println("cluster bench: " + String.join(" ", up));
    try {
      if (exec(up, List.of()) != 0) {
        throw new IOException("cluster.sh up failed (its message is above; the bench needs root)");
      }
      List<String> inside = new ArrayList<>(List.of(script, "client", "--dir", dir, "--",
          Path.of(System.getProperty("java.home"), "bin", "java").toString()));
      inside.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments());
      inside.add("-cp");
      inside.add(dir + "/conf:" + System.getProperty("java.class.path"));
      inside.add("org.wideec.cli.WideEcTool");
      inside.add("bench");
      inside.add("cluster");
      inside.addAll(List.of(args));
      return exec(inside, List.of("WIDE_EC_CLUSTER_SCRIPT=" + script));
    } finally {
      exec(List.of(script, "down", "--dir", dir), List.of());
    }
  }

  /** The source checkout this kit jar was built in (hadoop-wide-ec-testkit/target/THE.jar, two levels up). */
  private static Path sourceRoot() throws IOException {
    try {
      Path jar = Path.of(ClusterBenchLauncher.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      return jar.getParent().getParent().getParent();
    } catch (java.net.URISyntaxException | NullPointerException e) {
      throw new IOException("cannot tell where the test kit was built from; pass --cluster-script PATH", e);
    }
  }

  private static int exec(List<String> command, List<String> env) throws IOException, InterruptedException {
    ProcessBuilder pb = new ProcessBuilder(command).inheritIO();
    for (String e : env) {
      pb.environment().put(e.substring(0, e.indexOf('=')), e.substring(e.indexOf('=') + 1));
    }
    return pb.start().waitFor();
  }
}
