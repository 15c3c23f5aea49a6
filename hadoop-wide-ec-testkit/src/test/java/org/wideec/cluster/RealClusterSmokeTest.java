package org.wideec.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The distribution on real processes: {@code dev-support/cluster.sh} installs the tarball (packed from this build by
 * {@code dist.sh --pack}) the way INSTALL.md says and starts a NameNode and six DataNodes as separate JVMs, each in its
 * own network namespace, three racks behind shaped uplinks. Needs root, as CI has: when the network cannot be built
 * the test fails with cluster.sh's reason, it is never skipped. The cluster is taken down whatever happens.
 */
class RealClusterSmokeTest {
  private static final long UP_MINUTES = 10;

  @TempDir
  Path dir;

  @Test
  void aDataNodeKilledWithSigkillIsRebuiltByOurWorkerAndEveryByteReadsBack() throws Exception {
    Path source = Path.of(Objects.requireNonNull(System.getProperty("wideec.source.root"),
        "wideec.source.root (the source checkout, set by the testkit pom) is not set")).toRealPath();
    String script = source.resolve("dev-support/cluster.sh").toString();
    Path cluster = dir.resolve("cluster");
    Run packed = run(UP_MINUTES, "bash", source.resolve("dev-support/dist.sh").toString(), "--pack", dir.toString());
    assertEquals(0, packed.exit(), packed::toString);
    Path tarball;
    try (var s = Files.list(dir)) {
      tarball = s.filter(p -> p.toString().endsWith("-bin.tar.gz")).findFirst().orElseThrow();
    }
    try {
      Run up = run(UP_MINUTES, script, "up", "--dir", cluster.toString(), "--prefix", "wsmoke", "--tarball",
          tarball.toString(), "--nodes", "6", "--racks", "3", "--block-size", "1m", "--policies", "");
      assertEquals(0, up.exit(), () -> "cluster.sh up could not build the cluster (this test needs root): " + up);

      String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
      Run smoke = run(UP_MINUTES, script, "client", "--dir", cluster.toString(), "--", "java", "-Xmx512m",
          "--add-modules=jdk.incubator.vector", "-cp", cluster.resolve("conf") + ":" + classpath,
          SmokeClient.class.getName(), script, cluster.toString());
      assertEquals(0, smoke.exit(), smoke::toString);
      Map<String, String> facts = facts(smoke.out());
      System.out.println("smoke: " + facts);
      assertEquals("2", facts.get("files"), smoke::toString);
      assertEquals(facts.get("written"), facts.get("compared"), smoke::toString);
      assertEquals("0", facts.get("mismatched"), smoke::toString);
      assertTrue(Long.parseLong(facts.get("workerRepairs")) >= 1, () -> "no repair ran on our worker: " + smoke);
      assertEquals("0", facts.get("stockTasks"), smoke::toString);
    } finally {
      Run down = run(2, script, "down", "--dir", cluster.toString());
      assertEquals(0, down.exit(), down::toString);
      Run netns = run(1, "ip", "netns", "list");
      assertTrue(netns.out().lines().noneMatch(l -> l.startsWith("wsmoke-")), netns::toString);
    }
  }

  /** The key=value pairs of SmokeClient's "smoke:" line. */
  private static Map<String, String> facts(String out) {
    Map<String, String> facts = new LinkedHashMap<>();
    out.lines().filter(l -> l.startsWith("smoke: ")).findFirst().ifPresent(l -> {
      for (String kv : l.substring("smoke: ".length()).split(" ")) {
        String[] p = kv.split("=", 2);
        facts.put(p[0], p.length > 1 ? p[1] : "");
      }
    });
    return facts;
  }

  record Run(String command, int exit, String out, String err) {
    @Override
    public String toString() {
      return command + " -> exit " + exit + "\n--- stdout\n" + out + "--- stderr\n" + err;
    }
  }

  private Run run(long minutes, String... command) throws IOException, InterruptedException {
    Path out = Files.createTempFile(dir, "out", ".txt");
    Path err = Files.createTempFile(dir, "err", ".txt");
    List<String> c = new ArrayList<>(List.of(command));
    ProcessBuilder pb = new ProcessBuilder(c).redirectOutput(out.toFile()).redirectError(err.toFile());
    // The JDK's own tools first: dist.sh lists the product jar with `jar`, the client runs this JDK's java.
    pb.environment().put("PATH", Path.of(System.getProperty("java.home"), "bin") + ":" + System.getenv("PATH"));
    Process p = pb.start();
    if (!p.waitFor(minutes, TimeUnit.MINUTES)) {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
      p.waitFor();
    }
    return new Run(String.join(" ", c), p.isAlive() ? -1 : p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
        Files.readString(err, StandardCharsets.UTF_8));
  }
}
