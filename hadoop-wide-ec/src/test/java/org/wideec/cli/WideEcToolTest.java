package org.wideec.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.util.ToolRunner;
import org.junit.jupiter.api.Test;

class WideEcToolTest {
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  int run(String... args) throws Exception {
    out.reset();
    err.reset();
    return ToolRunner.run(new Configuration(), new WideEcTool(new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8)), args);
  }

  JsonNode json() throws Exception {
    return new ObjectMapper().readTree(out.toString(StandardCharsets.UTF_8));
  }

  @Test
  void describePrintsLayoutDistanceAndRecoveryCostsAsJson() throws Exception {
    assertEquals(0, run("codes", "describe", "--code", "azure-lrc:k=12,l=2,g=2", "--json"));
    JsonNode j = json();
    assertEquals("azure-lrc:k=12,l=2,g=2", j.get("spec").asText());
    assertEquals(16, j.get("n").asInt());
    assertEquals(12, j.get("k").asInt());
    assertEquals(4, j.get("minimumDistance").asInt());
    assertTrue(j.get("minimumDistanceExact").asBoolean());
    assertEquals(3, j.get("faultsTolerated").asInt());
    assertEquals(6.75, j.get("arc").asDouble(), 1e-9);
    assertEquals(6.0, j.get("adrc").asDouble(), 1e-9);
    assertEquals("global_parity", j.get("roles").get(12).asText());
    assertEquals(2, j.get("localGroups").size());
    assertTrue(j.get("localGroups").get(0).get("xor").asBoolean());
    assertEquals(16.0 / 12, j.get("redundancy").asDouble(), 1e-9);
    assertTrue(j.get("pinned").asBoolean());
    assertEquals(1, j.get("formatVersion").asInt());
  }

  @Test
  void describeSaysWhetherACodeIsPinnedByTheOnDiskFormat() throws Exception {
    assertEquals(0, run("codes", "describe", "--code", "rs:k=20,m=4", "--json"));
    JsonNode j = json();
    assertEquals(false, j.get("pinned").asBoolean());
    assertTrue(j.get("formatVersion").isNull());
    assertEquals(0, run("codes", "describe", "--code", "rs:k=20,m=4"));
    assertTrue(out.toString(StandardCharsets.UTF_8).contains("on-disk format     not pinned"), out.toString(StandardCharsets.UTF_8));
    assertEquals(0, run("codes", "describe", "--code", "rapidraid:n=8,k=4"));
    assertTrue(out.toString(StandardCharsets.UTF_8).contains("on-disk format     1 (pinned"), out.toString(StandardCharsets.UTF_8));
  }

  @Test
  void describeHumanOutputIsAnAlignedTable() throws Exception {
    assertEquals(0, run("codes", "describe", "--code", "unilrc:alpha=1,z=6"));
    String text = out.toString(StandardCharsets.UTF_8);
    assertTrue(text.contains("ARC (all units)    6.00"), text);
    assertTrue(text.contains("n, k               42, 30 (systematic)"), text);
  }

  @Test
  void verifyCountsEveryPatternOrASample() throws Exception {
    assertEquals(0, run("codes", "verify", "--code", "azure-lrc:k=12,l=2,g=2", "--failures", "4", "--json"));
    JsonNode j = json();
    assertEquals(1820, j.get("totalPatterns").asLong());
    assertEquals(1820, j.get("examined").asLong());
    assertEquals(1568, j.get("decodable").asLong());
    assertTrue(j.get("exhaustive").asBoolean());
    assertEquals(0, run("codes", "verify", "--code", "rs:k=10,m=4", "--failures", "4", "--samples", "500", "--json"));
    assertEquals(500, json().get("decodable").asLong());
    assertEquals(0, run("codes", "verify", "--code", "rs:k=10,m=4", "--failures", "5", "--json"));
    assertEquals(0, json().get("decodable").asLong());
  }

  @Test
  void listNamesEveryFamilyAndHadoopCodec() throws Exception {
    assertEquals(0, run("codes", "list", "--json"));
    JsonNode j = json();
    assertEquals(7, j.get("families").size());
    assertTrue(j.get("hadoopCodecs").toString().contains("azure-lrc-l2"));
  }

  @Test
  void eachCommandPrintsItsOwnUsageAndTheToolItsVersion() throws Exception {
    for (String[] ask : new String[][] {{"help", "codes"}, {"codes", "--help"}, {"codes", "describe", "-h"}}) {
      assertEquals(0, run(ask));
      String usage = out.toString(StandardCharsets.UTF_8);
      assertTrue(usage.contains("codes describe --code SPEC") && !usage.contains("analyze") && !usage.contains("fsck"), usage);
    }
    assertEquals(0, run("help"));
    assertTrue(out.toString(StandardCharsets.UTF_8).contains("bench repair"));
    assertEquals(0, run("--version"));
    assertTrue(out.toString(StandardCharsets.UTF_8).matches("hadoop-wide-ec \\S+ \\(on-disk format 1\\), running on Hadoop 3\\.\\d+\\.\\d+\\s*"),
        out.toString(StandardCharsets.UTF_8));
    assertEquals(2, run());
    assertTrue(err.toString(StandardCharsets.UTF_8).startsWith("usage: wide-ec"));
  }

  @Test
  void aCodeHasThreeNamesAndEachNamesIt() throws Exception {
    for (String[] name : new String[][] {{"azure-lrc:k=12,l=2,g=2"}, {"AZURE-LRC-L2-12-4-1024k"},
        {"azure-lrc-l2", "--k", "12", "--m", "4"}}) {
      String[] args = new String[3 + name.length + 1];
      args[0] = "codes";
      args[1] = "describe";
      args[2] = "--code";
      System.arraycopy(name, 0, args, 3, name.length);
      args[args.length - 1] = "--json";
      assertEquals(0, run(args));
      JsonNode j = json();
      assertEquals("azure-lrc:k=12,l=2,g=2", j.get("spec").asText());
      assertEquals("azure-lrc-l2", j.get("codec").asText());
      assertEquals(12, j.get("hdfsK").asInt());
      assertEquals(4, j.get("hdfsM").asInt());
      assertEquals("AZURE-LRC-L2-12-4-1024k", j.get("policy").asText());
    }
    assertEquals(0, run("codes", "describe", "--code", "azure-lrc:k=64,r=16,g=8", "--json"));
    assertTrue(json().get("stripedNote").asText().contains("archival layout"));
    assertTrue(json().get("codec").isNull());
  }

  @Test
  void policyPrintsAFileHdfsItselfLoads(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
    assertEquals(0, run("policy", "--code", "unilrc:alpha=1,z=3", "--cell", "64k"));
    java.nio.file.Path file = dir.resolve("policy.xml");
    java.nio.file.Files.writeString(file, out.toString(StandardCharsets.UTF_8));
    java.util.List<org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy> loaded =
        new org.apache.hadoop.hdfs.util.ECPolicyLoader().loadPolicy(file.toString());
    assertEquals(1, loaded.size());
    assertEquals("unilrc", loaded.get(0).getCodecName());
    assertEquals(6, loaded.get(0).getNumDataUnits());
    assertEquals(6, loaded.get(0).getNumParityUnits());
    assertEquals(65536, loaded.get(0).getCellSize());
    assertEquals("UNILRC-6-6-64k", loaded.get(0).getName());
  }

  @Test
  void sweepDrawsItsChartAsPngOrSvg(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
    java.nio.file.Path png = dir.resolve("sweep.png");
    java.nio.file.Path svg = dir.resolve("sweep.svg");
    assertEquals(0, run("analyze", "sweep", "--k", "64", "--f", "2,3", "--gamma", "1.1", "--plot", png.toString()));
    assertEquals(0, run("analyze", "sweep", "--k", "64", "--f", "2", "--gamma", "1.1", "--plot", svg.toString()));
    byte[] head = java.util.Arrays.copyOf(java.nio.file.Files.readAllBytes(png), 4);
    assertEquals("\u0089PNG", new String(head, StandardCharsets.ISO_8859_1));
    assertTrue(java.nio.file.Files.readString(svg).contains("<svg"));
  }

  @Test
  void anInstallationMissingWhatACommandNeedsSaysWhat() {
    assertTrue(CliErrors.missingClass("demo", new NoClassDefFoundError("org/apache/hadoop/hdfs/MiniDFSCluster"))
        .contains("run it from a source checkout"));
    assertTrue(CliErrors.missingClass("analyze", new NoClassDefFoundError("org/jfree/chart/JFreeChart"))
        .startsWith("charts need JFreeChart on the classpath"));
    assertTrue(CliErrors.missingClass("fsck", new NoClassDefFoundError("org/apache/hadoop/Other"))
        .contains("supported Hadoop (3.4.3 or 3.5.0)"));
  }
}
