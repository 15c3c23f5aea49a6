package org.wideec.hdfs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.hdfs.util.StripedBlockUtil;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.wideec.datanode.GroupRepair;
import org.wideec.datanode.WideEcDataNodePlugin;
import org.wideec.minicluster.StripedGroups;
import org.wideec.repair.BlockRef;
import org.wideec.protocol.StepRequest;
import org.wideec.repair.UnitLocation;
import org.wideec.topology.hdfs.DataNodeSites;
import org.wideec.transport.Credential;
import org.wideec.topology.Endpoint;
import org.wideec.transport.Frame;
import org.wideec.transport.PeerFailure;
import org.wideec.transport.PeerStream;
import org.wideec.transport.SliceTransport;
import org.wideec.transport.TestKeystores;
import org.wideec.transport.TrafficCounters;
import org.wideec.transport.TransportConf;
import org.wideec.transport.hdfs.TransportConfReader;

/**
 * Block access tokens and encrypted data transfer on: the slice port serves a replica only to a request that
 * carries a valid token for that very block, clients authenticate with their token (never the cluster secret),
 * slices travel over TLS because dfs.encrypt.data.transfer is on, and our worker still repairs.
 */
class SecureRepairClusterTest {
  static TestKeystores keystores;
  static Configuration conf;
  static final int SLICE = 16 * 1024;

  @BeforeAll
  static void start() throws Exception {
    conf = new Configuration();
    conf.setBoolean(DFSConfigKeys.DFS_BLOCK_ACCESS_TOKEN_ENABLE_KEY, true);
    conf.setBoolean(DFSConfigKeys.DFS_ENCRYPT_DATA_TRANSFER_KEY, true);
    keystores = new TestKeystores(SecureRepairClusterTest.class, conf);
    RepairClusterFixture.start(conf);
  }

  @AfterAll
  static void stop() throws Exception {
    RepairClusterFixture.stop();
    keystores.close();
  }

  @Test
  void ourWorkerRepairsWithTokensOverTls() throws Exception {
    for (DataNode dn : RepairClusterFixture.cluster.getDataNodes()) {
      assertNotNull(WideEcDataNodePlugin.running(dn.getXferPort()).transport().conf().tls(),
          "the slice port follows dfs.encrypt.data.transfer");
    }
    RepairClusterFixture.Before b = RepairClusterFixture.before();
    RepairClusterFixture.loseBusiestNode();
    RepairClusterFixture.assertEveryRebuiltUnitStoredByOurWorker(b);
    RepairClusterFixture.everyByteReadsBack();
  }

  /** Unit 0 of the first group of the largest file: where it is, its block, and the tokens the NameNode minted. */
  private record Target(LocatedStripedBlock group, DatanodeInfo holder, ExtendedBlock block, byte[] data) {
    BlockRef ref(byte[] token) {
      return new BlockRef(block.getBlockPoolId(), block.getBlockId(), block.getGenerationStamp(), block.getNumBytes(), token);
    }

    byte[] tokenOf(int unit) {
      ExtendedBlock b = new ExtendedBlock(block.getBlockPoolId(), group.getBlock().getBlockId() + unit, 0,
          block.getGenerationStamp());
      return GroupRepair.tokensOf(group).apply(b);
    }

    StepRequest firstSlice(byte[] token) {
      return new StepRequest(ref(token), 1, 0, SLICE, SLICE, 0, 1, List.of(), false);
    }
  }

  private static Target target() throws Exception {
    Map.Entry<Path, byte[]> file = RepairClusterFixture.files.entrySet().stream()
        .max(Map.Entry.comparingByValue((x, y) -> Integer.compare(x.length, y.length))).orElseThrow();
    StripedGroups.awaitSettled(RepairClusterFixture.cluster, RepairClusterFixture.fs, RepairClusterFixture.policy,
        RepairClusterFixture.files.keySet(), 60_000);
    LocatedStripedBlock g = StripedGroups.groups(RepairClusterFixture.fs, file.getKey()).get(0);
    long len = StripedBlockUtil.getInternalBlockLength(g.getBlockSize(), RepairClusterFixture.CELL,
        RepairClusterFixture.policy.getNumDataUnits(), 0);
    ExtendedBlock b = new ExtendedBlock(g.getBlock().getBlockPoolId(), g.getBlock().getBlockId(), len,
        g.getBlock().getGenerationStamp());
    return new Target(g, StripedGroups.location(g, 0), b, Arrays.copyOf(file.getValue(), SLICE));
  }

  /** A DataNode other than the holder, as a peer holding the cluster secret would ask. */
  private static WideEcDataNodePlugin otherPlugin(DatanodeInfo holder) {
    for (DataNode dn : RepairClusterFixture.cluster.getDataNodes()) {
      if (dn.getXferPort() != holder.getXferPort()) {
        return WideEcDataNodePlugin.running(dn.getXferPort());
      }
    }
    throw new IllegalStateException("one DataNode only");
  }

  private static byte[] read(SliceTransport t, Endpoint e, StepRequest req, Credential c) throws Exception {
    try (PeerStream s = t.open(e, "asker", "/asker", 7, req.toBytes(), c)) {
      Frame f = s.next(0);
      try {
        return f.payloadBytes();
      } finally {
        f.release();
        s.credit();
      }
    }
  }

  @Test
  void theSlicePortServesAReplicaOnlyWithATokenForThatBlock() throws Exception {
    Target t = target();
    WideEcDataNodePlugin asker = otherPlugin(t.holder());
    SliceTransport tr = asker.transport();
    Endpoint e = asker.endpoints().resolve(new UnitLocation(0, DataNodeSites.of(t.holder())),
        t.holder());
    Credential member = tr.conf().handshake().ownCredential();

    PeerFailure none = assertThrows(PeerFailure.class, () -> read(tr, e, t.firstSlice(new byte[0]), member));
    assertTrue(none.getMessage().contains("no block token"), none.getMessage());
    PeerFailure other = assertThrows(PeerFailure.class, () -> read(tr, e, t.firstSlice(t.tokenOf(1)), member));
    assertTrue(other.getMessage().contains("block token refused"), other.getMessage());
    assertArrayEquals(t.data(), read(tr, e, t.firstSlice(t.tokenOf(0)), member), "the right token reads the replica");
  }

  @Test
  void clientsAuthenticateWithTheirBlockTokenNotTheClusterSecret() throws Exception {
    Target t = target();
    Endpoint e = otherPlugin(t.holder()).endpoints().resolve(
        new UnitLocation(0, DataNodeSites.of(t.holder())), t.holder());
    Configuration client = new Configuration(conf);
    client.unset(TransportConf.SECRET);
    ExecutorService exec = Executors.newSingleThreadExecutor();
    try (SliceTransport tr = new SliceTransport(TransportConfReader.forClient(client).withTimeouts(5000), "client",
        TrafficCounters.NONE, exec)) {
      byte[] token = t.tokenOf(0);
      assertArrayEquals(t.data(), read(tr, e, t.firstSlice(token), Credential.ofToken(token)));

      PeerFailure anonymous = assertThrows(PeerFailure.class, () -> read(tr, e, t.firstSlice(token), Credential.anonymous()));
      assertTrue(anonymous.getMessage().contains("presented no credential"), anonymous.getMessage());
      org.apache.hadoop.security.token.Token<?> real = new org.apache.hadoop.security.token.Token<>();
      try (java.io.DataInputStream in = new java.io.DataInputStream(new java.io.ByteArrayInputStream(token))) {
        real.readFields(in);
      }
      byte[] forged = real.getPassword().clone();
      forged[0] ^= 1;
      PeerFailure wrong = assertThrows(PeerFailure.class,
          () -> read(tr, e, t.firstSlice(token), Credential.token(real.getIdentifier(), forged)));
      assertTrue(wrong.getMessage().contains("password does not match"), wrong.getMessage());
    } finally {
      exec.shutdownNow();
    }
  }
}
