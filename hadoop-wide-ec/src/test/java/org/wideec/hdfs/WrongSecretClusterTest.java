package org.wideec.hdfs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.test.GenericTestUtils.LogCapturer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.wideec.coder.hadoop.WideEcPolicies;
import org.wideec.datanode.RepairMetrics;
import org.wideec.datanode.WideEcDataNodePlugin;
import org.wideec.minicluster.MiniClusters;
import org.wideec.repair.BlockRef;
import org.wideec.engine.DigestRequest;
import org.wideec.repair.UnitLocation;
import org.wideec.topology.Endpoint;
import org.wideec.topology.Site;
import org.wideec.transport.PeerFailure;
import org.wideec.transport.RefusalReason;
import org.wideec.transport.SliceTransport;

/**
 * Six DataNodes in racks, each with "localhost" as its host name (as on many real hosts, where HDFS's display
 * name says localhost for every DataNode), the last one started with a wide-ec.transport.secret of its own. The slice
 * transports name every DataNode by its transfer address as the NameNode knows it; once DataNodes talk, the odd one's
 * peers refuse it and it refuses them, both sides count it (bean, metrics2), and `wide-ec nodes` and `check-cluster`
 * name that DataNode, and only it, with exit code 1.
 */
class WrongSecretClusterTest {
  private static final int CELL = 64 * 1024;
  private static MiniDFSCluster cluster;
  private static File dir;
  private static DataNode odd;
  private static final List<DataNode> good = new ArrayList<>();

  @BeforeAll
  static void start() throws Exception {
    dir = java.nio.file.Files.createTempDirectory("wideec-secret").toFile();
    Configuration conf = MiniClusters.tuned(MiniClusters.withWideEcRepair(MiniClusters.withWideEcPlacement(
        new Configuration())), dir, 4L * CELL);
    String[] racks = {"/rack0", "/rack0", "/rack1", "/rack1", "/rack2"};
    String[] hosts = {"localhost", "localhost", "localhost", "localhost", "localhost"};
    cluster = new MiniDFSCluster.Builder(conf).numDataNodes(racks.length).racks(racks).hosts(hosts)
        .storagesPerDatanode(1).build(); // one volume each, as MiniClusters.start
    Configuration other = new Configuration(conf);
    other.set("wide-ec.transport.secret", "00112233445566778899aabbccddeeff0011223344556677");
    cluster.startDataNodes(other, 1, true, null, new String[] {"/rack2"}, new String[] {"localhost"}, null);
    cluster.waitActive();
    WideEcPolicies.addAndEnable(cluster.getFileSystem(), WideEcPolicies.policy("wide-rs", 3, 2, CELL));
    odd = cluster.getDataNodes().get(racks.length);
    good.addAll(cluster.getDataNodes().subList(0, racks.length));
  }

  @AfterAll
  static void stop() {
    if (cluster != null) {
      cluster.shutdown();
    }
    if (dir != null) {
      org.apache.hadoop.fs.FileUtil.fullyDelete(dir);
    }
  }

  private static String addr(DataNode dn) {
    return dn.getDatanodeId().getXferAddr();
  }

  private static SliceTransport transport(DataNode dn) {
    return WideEcDataNodePlugin.running(dn.getXferPort()).transport();
  }

  private static RepairMetrics metrics(DataNode dn) {
    return WideEcDataNodePlugin.running(dn.getXferPort()).metrics();
  }

  /** One DataNode asks another for a replica's digest, as a repair does to check a stored unit. */
  private static void ask(DataNode from, DataNode to) throws Exception {
    Endpoint e = new Endpoint(to.getDatanodeId().getIpAddr(), transport(to).port(), new Site(addr(to), "/rack"));
    BlockRef none = new BlockRef(cluster.getNamesystem().getBlockPoolId(), 1L, 1L, 1L, new byte[0]);
    DigestRequest.crcOf(transport(from), e, new UnitLocation(-1, new Site(addr(from), "/rack")), none, 4096);
  }

  @Test
  void everyDataNodesSliceTransportIsNamedByItsTransferAddressNotItsHostName() {
    for (DataNode dn : cluster.getDataNodes()) {
      assertNotEquals(addr(dn), dn.getDisplayName(), "the premise: HDFS's display name is not the address");
      assertTrue(dn.getDisplayName().startsWith("localhost:"), dn.getDisplayName());
      assertEquals(addr(dn), transport(dn).node());
    }
  }

  @Test
  void aDataNodeWithAnotherSecretIsNamedByNodesAndCheckCluster() throws Exception {
    DataNode a = good.get(0);
    DataNode b = good.get(2);
    LogCapturer log = LogCapturer.captureLogs(org.apache.log4j.Logger.getLogger("org.wideec"));
    try {
      PeerFailure refused = assertThrows(PeerFailure.class, () -> ask(odd, a));
      assertTrue(refused.getMessage().contains("wrong wide-ec.transport.secret"), refused.getMessage());
      assertThrows(PeerFailure.class, () -> ask(odd, b));
      assertThrows(PeerFailure.class, () -> ask(a, odd));
      // Between DataNodes that share the secret the handshake passes; the request itself names no replica here.
      PeerFailure noReplica = assertThrows(PeerFailure.class, () -> ask(a, b));
      assertFalse(noReplica.getMessage().contains("refused the connection"), noReplica.getMessage());
    } finally {
      log.stopCapturing();
    }
    assertTrue(log.getOutput().contains("wide-ec slice transport of " + addr(a) + " refused the handshake of " + addr(odd)
        + " (wrong secret)"), log.getOutput());
    assertTrue(log.getOutput().contains("wide-ec slice transport of " + addr(odd) + " refused the handshake of "
        + addr(a) + " (wrong secret)"), log.getOutput());

    assertEquals(1, metrics(odd).handshakesRefused(RefusalReason.WRONG_SECRET));
    assertEquals(2, metrics(odd).ownHandshakesRefused());
    assertEquals(1, metrics(a).handshakesRefused(RefusalReason.WRONG_SECRET));
    assertEquals(1, metrics(a).ownHandshakesRefused());
    assertEquals(1, metrics(b).handshakesRefused(RefusalReason.WRONG_SECRET));
    assertEquals(0, metrics(b).ownHandshakesRefused());

    Configuration client = cluster.getConfiguration(0);
    String ten = " in the last 10 minutes";
    String[] ab = java.util.stream.Stream.of(addr(a), addr(b)).sorted().toArray(String[]::new);
    ToolRun nodes = ToolRun.of(client, "nodes");
    assertEquals(1, nodes.exit(), nodes.out());
    List<String> lines = nodes.out().lines().filter(l -> l.contains(": ")).collect(Collectors.toList());
    java.util.Map<String, List<String>> expected = new java.util.HashMap<>();
    expected.put(addr(a), List.of(
        addr(a) + ": refused the handshakes of " + addr(odd) + " (wrong secret, 1 time)" + ten,
        addr(a) + ": its own handshakes were refused by " + addr(odd) + " (wrong secret, 1 time)" + ten));
    expected.put(addr(b), List.of(
        addr(b) + ": refused the handshakes of " + addr(odd) + " (wrong secret, 1 time)" + ten));
    expected.put(addr(odd), List.of(
        addr(odd) + ": refused the handshakes of " + addr(a) + " (wrong secret, 1 time)" + ten,
        addr(odd) + ": its own handshakes were refused by " + ab[0] + " (wrong secret, 1 time), " + ab[1]
            + " (wrong secret, 1 time)" + ten,
        addr(odd) + ": SECRET MISMATCH: its wide-ec.transport.secret differs from its peers' (2 DataNodes disagree"
            + " with it); set the same secret on every DataNode"));
    // In the order of the table's rows (the NameNode's listing); nothing for the other DataNodes.
    List<String> inOrder = new ArrayList<>();
    nodes.out().lines().skip(1).map(l -> l.split(" ")[0]).filter(expected::containsKey)
        .forEach(n -> inOrder.addAll(expected.get(n)));
    assertEquals(3 + 2 + 1, inOrder.size(), nodes.out());
    assertEquals(inOrder, lines, nodes.out());
    List<String> flagged = nodes.out().lines().filter(l -> l.contains("running, SECRET MISMATCH")).toList();
    assertEquals(1, flagged.size(), nodes.out());
    assertTrue(flagged.get(0).startsWith(addr(odd) + " "), nodes.out());
    assertEquals(1, ToolRun.of(client, "nodes", "--json").json().get("secretMismatches").asInt());

    ToolRun check = ToolRun.of(client, "check-cluster");
    assertEquals(1, check.exit(), check.out());
    List<String> secretFixes = check.out().lines().filter(l -> l.contains("wide-ec.transport.secret")).toList();
    assertEquals(List.of("  - " + addr(odd) + ": its wide-ec.transport.secret does not match its peers': 2 DataNodes ["
        + ab[0] + ", " + ab[1] + "] refused its handshakes or were refused by it for a wrong secret" + ten
        + "; set the same wide-ec.transport.secret on every DataNode"), secretFixes, check.out());
  }
}
