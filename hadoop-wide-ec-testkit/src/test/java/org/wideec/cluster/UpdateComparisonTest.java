package org.wideec.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo.DatanodeInfoBuilder;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.junit.jupiter.api.Test;
import org.wideec.cli.Options;

/**
 * The update comparison's settings, ratios, tool arguments and the fill's planned moves, without a cluster (the real
 * run is the bench itself).
 */
class UpdateComparisonTest {
  private static Options options(String... args) {
    return new Options(args, ClusterBench.VALUED, ClusterBench.SWITCHES);
  }

  @Test
  void ratiosCompareTheUplinksBytesAndFilesChangedPerSecond() {
    Map<String, long[]> totals = new LinkedHashMap<>();
    // cross-rack bytes, planned bytes, files changed, nanoseconds
    totals.put("baseline", new long[] {9_000, 9_000, 10, 20_000_000_000L});
    totals.put("cau", new long[] {4_500, 4_500, 10, 10_000_000_000L});
    totals.put("rackcu", new long[] {3_000, 3_000, 10, 5_000_000_000L});
    Map<String, Object> r = new HashMap<>();
    UpdateComparison.ratios(r, totals);
    assertEquals(3.0, r.get("baselineOverRackcuTraffic"));
    assertEquals(1.5, r.get("cauOverRackcuTraffic"));
    assertEquals(4.0, r.get("rackcuOverBaselineThroughput"));
  }

  @Test
  void theFillsMovesStayOutOfTheSchemesTraffic() {
    Map<String, long[]> totals = new LinkedHashMap<>();
    // as the real run at 5540097 counted RS(12,4): the same plans, moves of 16.8 MB against 41.9 MB
    totals.put("cau", new long[] {147_653_923, 125_829_120, 13, 1, 0, 0, 16_777_216});
    totals.put("rackcu", new long[] {184_803_177, 150_994_944, 13, 1, 0, 0, 41_943_040});
    Map<String, Object> r = new HashMap<>();
    UpdateComparison.ratios(r, totals);
    assertEquals(Phase.round((147_653_923.0 - 16_777_216) / (184_803_177 - 41_943_040)), r.get("cauOverRackcuTraffic"));
  }

  @Test
  void aSchemeThatDidNotRunLeavesItsRatiosNull() {
    Map<String, long[]> totals = new LinkedHashMap<>();
    totals.put("rackcu", new long[] {3_000, 3_000, 10, 5_000_000_000L});
    Map<String, Object> r = new HashMap<>();
    UpdateComparison.ratios(r, totals);
    assertNull(r.get("baselineOverRackcuTraffic"));
    assertNull(r.get("cauOverRackcuTraffic"));
    assertNull(r.get("rackcuOverBaselineThroughput"));
  }

  @Test
  void theWideCodesNeedTwentyFourDataNodesAndFilesAreOneBlock() {
    assertEquals(new UpdateComparison.Settings(List.of("azure-lrc:k=12,l=2,g=2", "rs:k=12,m=4"),
        List.of("baseline", "cau", "rackcu"), List.of("rackcu"), 8L << 20),
        ClusterBench.updateSettings(options(), 24, 8L << 20));
    assertEquals(new UpdateComparison.Settings(List.of("azure-lrc:k=6,l=2,g=2", "rs:k=6,m=3"),
        List.of("baseline", "cau", "rackcu"), List.of("rackcu"), 1L << 20),
        ClusterBench.updateSettings(options(), 12, 1L << 20));
    assertEquals(new UpdateComparison.Settings(List.of("rs:k=6,m=3"), List.of("cau", "rackcu"), List.of("cau"),
        512L << 10), ClusterBench.updateSettings(options("--update-codes", "rs:k=6,m=3", "--update-schemes",
        "cau,rackcu", "--update-sweep-schemes", "cau", "--update-file-size", "512k"), 12, 1L << 20));
  }

  @Test
  void badUpdateOptionsAreUsageErrorsNamingTheOption() {
    assertEquals("--update-schemes takes baseline, cau and rackcu, got 'parix'",
        assertThrows(Options.UsageException.class, () -> ClusterBench.updateSettings(
            options("--update-schemes", "rackcu,parix"), 12, 1L << 20)).getMessage());
    assertEquals("--update-sweep-schemes [baseline] must be among --update-schemes [rackcu]",
        assertThrows(Options.UsageException.class, () -> ClusterBench.updateSettings(
            options("--update-schemes", "rackcu", "--update-sweep-schemes", "baseline"), 12, 1L << 20)).getMessage());
    assertEquals("--update-file-size must be 1 byte to one block (1048576), got 2097152",
        assertThrows(Options.UsageException.class, () -> ClusterBench.updateSettings(
            options("--update-file-size", "2m"), 12, 1L << 20)).getMessage());
    assertEquals("--updates runs the update comparison alone, --no-updates leaves it out: give one",
        assertThrows(Options.UsageException.class, () -> ClusterBench.updateSettings(
            options("--updates", "--no-updates"), 12, 1L << 20)).getMessage());
  }

  @Test
  void everyCommandFreesAtTheCommitAndSaysWhetherItReEncodesWhenCheaper() {
    assertEquals(List.of("-D", "wide-ec.update.gc.grace.ms=0", "-D", "wide-ec.update.reencode.when-cheaper=false", "rm",
        "/a", "--json"), List.of(UpdateComparison.args(false, "rm", "/a", "--json")));
    assertEquals("wide-ec.update.reencode.when-cheaper=true", UpdateComparison.args(true, "rm", "/a")[3]);
  }

  @Test
  void aFilledBlockMovesAcrossRacksOnlyWhenNoReplicaIsInItsSlotsRack() {
    DatanodeInfo a1 = node(11, "/rack1");
    DatanodeInfo a2 = node(12, "/rack1");
    DatanodeInfo b1 = node(21, "/rack2");
    DatanodeInfo c1 = node(31, "/rack3");
    long size = 1 << 20;
    assertEquals(0, UpdateComparison.crossRackMoveBytes("/f", block(size, a1, b1), a1), "already on its node");
    assertEquals(0, UpdateComparison.crossRackMoveBytes("/f", block(size, c1, a2), a1), "copied within the rack");
    assertEquals(size, UpdateComparison.crossRackMoveBytes("/f", block(size, b1, c1), a1), "copied from another rack");
  }

  private static DatanodeInfo node(int host, String rack) {
    return new DatanodeInfoBuilder().setIpAddr("10.77.0." + host).setHostName("dn" + host).setXferPort(9866)
        .setDatanodeUuid("uuid-" + host).setNetworkLocation(rack).build();
  }

  private static LocatedBlock block(long size, DatanodeInfo... at) {
    return new LocatedBlock(new ExtendedBlock("BP-1", 1073741825L, size, 1001), at);
  }
}
