package org.wideec.install;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import java.util.stream.Stream;
import java.util.zip.ZipFile;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicyInfo;
import org.apache.hadoop.hdfs.util.ECPolicyLoader;
import org.apache.hadoop.util.VersionInfo;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.wideec.coder.hadoop.WideEcPolicies;
import org.wideec.install.StagedDistribution.Run;
import org.wideec.minicluster.MiniClusters;
import org.wideec.minicluster.StripedGroups;

/**
 * The installed layout: from the unpacked distribution, with a {@code hadoop} made of Hadoop's own jars on PATH, the
 * operator's commands work against a live cluster (a MiniDFSCluster with racks, our placement policy and repair
 * worker, started by the test kit) found through HADOOP_CONF_DIR.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class InstalledLayoutTest {
  private static final String SPEC = "azure-lrc:k=4,l=2,g=2";
  private static final String POLICY = "AZURE-LRC-L2-4-4-64k";
  /** Azure-LRC 4+2+2 by combined locality: three racks holding 3, 3 and 2 units. */
  private static final int RACKS = 3;
  private static final int NODES_PER_RACK = 3;
  private static final org.apache.hadoop.fs.Path ARCHIVE = new org.apache.hadoop.fs.Path("/archive");

  @TempDir
  static Path dir;
  private MiniDFSCluster cluster;
  private StagedDistribution installed;
  private Run policy;

  @BeforeAll
  void installAndStartACluster() throws Exception {
    Path source = Path.of(Objects.requireNonNull(System.getProperty("wideec.source.root"),
        "wideec.source.root (the source checkout, set by the testkit pom) is not set")).toRealPath();
    StagedDistribution staged = StagedDistribution.stage(source, dir.resolve("hadoop-wide-ec"), dir.resolve("work"));
    cluster = MiniClusters.start(MiniClusters.withWideEcRepair(MiniClusters.withWideEcPlacement(new Configuration())),
        dir.resolve("dfs").toFile(), RACKS, NODES_PER_RACK, 1024 * 1024);
    installed = staged.with(HadoopStandIn.write(dir.resolve("hadoop-bin")), clientConf(dir.resolve("conf")));

    // The operator's path: the policy file wide-ec prints, loaded by HDFS's own loader, then added and set.
    policy = installed.wideEc("policy", "--code", SPEC, "--cell", "64k");
    assertEquals(0, policy.exit(), policy::toString);
    Path xml = dir.resolve("policy.xml");
    Files.writeString(xml, policy.out());
    List<ErasureCodingPolicy> loaded = new ECPolicyLoader().loadPolicy(xml.toString());
    assertEquals(1, loaded.size(), policy::toString);
    DistributedFileSystem fs = cluster.getFileSystem();
    ErasureCodingPolicy added = WideEcPolicies.addAndEnable(fs, loaded.get(0));
    fs.mkdirs(ARCHIVE);
    fs.setErasureCodingPolicy(ARCHIVE, added.getName());
    org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path(ARCHIVE, "file");
    byte[] data = new byte[1_500_000];
    new Random(12).nextBytes(data);
    try (FSDataOutputStream out = fs.create(file)) {
      out.write(data);
    }
    StripedGroups.awaitSettled(cluster, fs, added, List.of(file), 30_000);
  }

  @AfterAll
  void stopTheCluster() {
    if (cluster != null) {
      cluster.shutdown();
    }
  }

  /** A client's HADOOP_CONF_DIR for the cluster: core-site.xml and a quiet log4j.properties, as an edge node has. */
  private Path clientConf(Path conf) throws IOException {
    Files.createDirectories(conf);
    Configuration site = new Configuration(false);
    site.set("fs.defaultFS", cluster.getFileSystem().getUri().toString());
    try (OutputStream out = Files.newOutputStream(conf.resolve("core-site.xml"))) {
      site.writeXml(out);
    }
    Files.writeString(conf.resolve("log4j.properties"), String.join("\n", "log4j.rootLogger=WARN,console",
        "log4j.appender.console=org.apache.log4j.ConsoleAppender", "log4j.appender.console.target=System.err",
        "log4j.appender.console.layout=org.apache.log4j.PatternLayout",
        "log4j.appender.console.layout.ConversionPattern=%p %c{1}: %m%n", ""));
    return conf;
  }

  @Test
  void theDistributionShipsNoTestKitClasses() throws IOException {
    List<Path> jars;
    try (Stream<Path> s = Files.list(installed.root().resolve("share/wide-ec"))) {
      jars = s.filter(p -> p.toString().endsWith(".jar")).toList();
    }
    assertTrue(jars.stream().anyMatch(j -> j.getFileName().toString().startsWith("hadoop-wide-ec-")), jars::toString);
    for (Path jar : jars) {
      try (ZipFile zip = new ZipFile(jar.toFile())) {
        List<String> kit = zip.stream().map(e -> e.getName())
            .filter(n -> n.startsWith("org/wideec/demo/") || n.startsWith("org/wideec/minicluster/")
                || n.startsWith("org/apache/hadoop/hdfs/MiniDFSCluster"))
            .toList();
        assertEquals(List.of(), kit, jar + " holds test-kit classes");
      }
    }
  }

  @Test
  void versionNamesTheHadoopOfTheLauncher() throws Exception {
    Run r = installed.wideEc("--version");
    assertEquals(0, r.exit(), r::toString);
    assertTrue(r.out().contains("running on Hadoop " + VersionInfo.getVersion()), r::toString);
  }

  @Test
  void codesListsTheFamiliesAndTheHadoopCodecs() throws Exception {
    Run r = installed.wideEc("codes", "list");
    assertEquals(0, r.exit(), r::toString);
    assertTrue(r.out().contains("azure-lrc:k=,l=,g="), r::toString);
    assertTrue(r.out().contains("azure-lrc-l2"), r::toString);
  }

  @Test
  void analyzeDrawsItsChartWithTheShippedChartingJars() throws Exception {
    Run r = installed.wideEc("analyze", "sweep", "--k", "64", "--f", "2", "--gamma", "1.1", "--plot", "sweep.png");
    assertEquals(0, r.exit(), r::toString);
    byte[] png = Files.readAllBytes(dir.resolve("work/sweep.png"));
    assertEquals("\u0089PNG", new String(Arrays.copyOf(png, 4), StandardCharsets.ISO_8859_1), r::toString);
  }

  @Test
  void policyPrintsAFileTheNameNodeAccepts() throws IOException {
    assertTrue(policy.out().contains("hdfs ec -enablePolicy -policy " + POLICY), policy::toString);
    ErasureCodingPolicyInfo info = Arrays.stream(cluster.getFileSystem().getAllErasureCodingPolicies().toArray(
        new ErasureCodingPolicyInfo[0])).filter(i -> i.getPolicy().getName().equals(POLICY)).findFirst().orElseThrow();
    assertTrue(info.isEnabled(), info::toString);
  }

  @Test
  void checkClusterFindsThePolicyFitsAndEveryWorkerCodesNatively() throws Exception {
    Run r = installed.wideEc("check-cluster");
    assertEquals(0, r.exit(), r::toString);
    assertTrue(r.out().contains(RACKS * NODES_PER_RACK + " live DataNodes in " + RACKS + " racks"), r::toString);
    assertTrue(r.out().lines().anyMatch(l -> l.startsWith(POLICY) && l.contains(SPEC) && l.contains("yes")
        && l.contains("stock-readable")), r::toString);
    assertTrue(r.out().contains("OK: every enabled policy of ours fits, and every DataNode runs the worker with the "
        + "native coder"), r::toString);
  }

  @Test
  void nodesShowsEveryWorkerRunningWithTheNativeCoder() throws Exception {
    Run r = installed.wideEc("nodes");
    assertEquals(0, r.exit(), r::toString);
    long running = r.out().lines().filter(l -> l.contains(" running ") && l.contains("native")).count();
    assertEquals(RACKS * NODES_PER_RACK, running, r::toString);
  }

  @Test
  void fsckFindsTheArchivedGroupWholeAndOnPlan() throws Exception {
    Run r = installed.wideEc("fsck", "/");
    assertEquals(0, r.exit(), r::toString);
    assertTrue(r.out().lines().anyMatch(l -> l.startsWith("/archive/file") && l.contains("holds")), r::toString);
    assertTrue(r.out().contains("1 block groups checked: 0 lost data"), r::toString);
  }

  @Test
  void demoAndBenchSayInOneLineThatTheyNeedTheTestKit() throws Exception {
    for (String[] line : List.of(new String[] {"demo"}, new String[] {"bench", "repair", "--quick"})) {
      String command = line[0];
      Run r = installed.wideEc(line);
      assertEquals(3, r.exit(), r::toString);
      assertEquals(List.of("wide-ec " + command + ": " + command + " needs the hadoop-wide-ec test kit (a source "
          + "checkout: bin/wide-ec " + command + "); an installed wide-ec runs codes, policy, analyze, fsck, nodes and "
          + "check-cluster"), r.err().lines().toList(), r::toString);
      assertFalse(r.out().contains("Exception"), r::toString);
    }
  }
}
