package org.wideec.hdfs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.security.PrivilegedExceptionAction;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.hdfs.BlockMissingException;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.security.UserGroupInformation;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.StripeManifest;
import org.wideec.archive.StripeState;
import org.wideec.archive.hdfs.TrimProtocol;
import org.wideec.client.WideEcFileSystem;
import org.wideec.datanode.WideEcDataNodePlugin;
import org.wideec.minicluster.MiniClusters;
import org.wideec.protocol.ArchivedReadRequest;
import org.wideec.repair.BlockRef;
import org.wideec.repair.RepairScheme;
import org.wideec.repair.UnitLocation;
import org.wideec.topology.hdfs.DataNodeSites;
import org.wideec.transport.Credential;
import org.wideec.topology.Endpoint;
import org.wideec.transport.Frame;
import org.wideec.transport.PeerFailure;
import org.wideec.transport.PeerStream;
import org.wideec.transport.SliceTransport;
import org.wideec.transport.hdfs.TokenBytes;
import org.wideec.transport.TrafficCounters;
import org.wideec.transport.TransportConf;
import org.wideec.transport.hdfs.TransportConfReader;

/**
 * Degraded reads of an archived directory (6 racks x 3 DataNodes, block tokens on, permissions on): files of three
 * users are archived and trimmed to one replica per data block, the DataNode holding a block of alice's file is
 * stopped, and alice, who may read her files and nothing else of the stripe, reads every byte of them through
 * WideEcFileSystem; a stock client gets a BlockMissingException. A hostile client with alice's tokens cannot get
 * another block, a block under another file's inode, or bytes past a block's end.
 */
@org.junit.jupiter.api.TestMethodOrder(org.junit.jupiter.api.MethodOrderer.OrderAnnotation.class)
class ArchivedDegradedReadClusterTest extends ArchiveTestBed {
  private final java.util.Map<String, byte[]> data = new java.util.HashMap<>();

  @Override
  Configuration baseConf() {
    Configuration base = MiniClusters.withWideEcRepair(MiniClusters.withWideEcArchiveTrim(new Configuration(), 300));
    base.setLong(TrimProtocol.WAIT_KEY, 30_000);
    base.setBoolean(DFSConfigKeys.DFS_BLOCK_ACCESS_TOKEN_ENABLE_KEY, true);
    // The blocks must stay missing while they are read: the NameNode's archive repair would rebuild them.
    base.setBoolean("wide-ec.archive.repair.enabled", false);
    // A stopped DataNode stays listed, as for 10.5 minutes with Hadoop's defaults: the tests declare deaths themselves.
    base.setInt(DFSConfigKeys.DFS_NAMENODE_HEARTBEAT_RECHECK_INTERVAL_KEY, 600_000);
    return base;
  }

  @BeforeAll
  void archiveAndLoseANode() throws Exception {
    awaitTrimmerLease();
    fs.mkdirs(new Path("/shared"));
    fs.setPermission(new Path("/shared"), new FsPermission((short) 0755));
    write("/shared/alice-big", 2 * BLOCK + BLOCK / 2, "alice");
    write("/shared/alice-small", BLOCK / 3, "alice");
    write("/shared/bob", 2 * BLOCK, "bob");
    write("/shared/carol", BLOCK + 99, "carol");
    ToolRun r = tool("archive", "/shared", "--code", CODE);
    assertEquals(0, r.exit(), r.err());
    StripeManifest m = manifestOf("/shared");
    for (ArchivedStripe s : m.stripes()) {
      assertEquals(StripeState.TRIMMED, s.state(), "stripe " + s.stripeId());
    }
    // The nodes of alice-small's only block (the client knows no DataNode of that file: it asks one the NameNode's
    // web UI lists) and of alice-big's first (it asks one holding another block of the file). At most two units of
    // any stripe are lost; the code decodes any three.
    for (String f : List.of("/shared/alice-small", "/shared/alice-big")) {
      LocatedBlock first = blocks(f).get(0);
      if (first.getLocations().length == 0) {
        continue; // on the node already stopped
      }
      assertEquals(1, first.getLocations().length, f + " trimmed to one replica");
      DatanodeInfo holder = first.getLocations()[0];
      assertTrue(cluster.stopDataNode(holder.getXferAddr()) != null, "DataNode " + holder);
      cluster.setDataNodeDead(holder);
      assertEquals(0, blocks(f).get(0).getLocations().length, f + ": its block is missing to HDFS");
    }
  }

  private void write(String path, long bytes, String owner) throws Exception {
    byte[] b = new byte[(int) bytes];
    new Random(path.hashCode()).nextBytes(b);
    try (FSDataOutputStream o = fs.create(new Path(path), (short) 3)) {
      o.write(b);
    }
    fs.setOwner(new Path(path), owner, owner);
    fs.setPermission(new Path(path), new FsPermission((short) 0600));
    data.put(path, b);
  }

  private List<LocatedBlock> blocks(String path) throws Exception {
    return fs.getClient().getLocatedBlocks(path, 0, Long.MAX_VALUE).getLocatedBlocks();
  }

  private Configuration clientConf(boolean ours) {
    Configuration c = new Configuration(conf);
    c.unset(TransportConf.SECRET); // a client holds no cluster secret: it proves its block token
    c.setInt("dfs.client.retry.window.base", 10);
    c.setInt(DFSConfigKeys.DFS_CLIENT_MAX_BLOCK_ACQUIRE_FAILURES_KEY, 1);
    if (ours) {
      c.set("fs.hdfs.impl", WideEcFileSystem.class.getName());
    }
    return c;
  }

  private <T> T as(String user, PrivilegedExceptionAction<T> action) throws Exception {
    return UserGroupInformation.createRemoteUser(user).doAs(action);
  }

  @Test
  @org.junit.jupiter.api.Order(1)
  void aReaderOfOneFileReadsEveryByteThroughWideEcFileSystemAndAStockClientSeesAMissingBlock() throws Exception {
    long lostBytes = 0;
    int lostCount = 0;
    for (String f : List.of("/shared/alice-big", "/shared/alice-small")) {
      for (LocatedBlock b : blocks(f)) {
        lostBytes += b.getLocations().length == 0 ? b.getBlockSize() : 0;
        lostCount += b.getLocations().length == 0 ? 1 : 0;
      }
    }
    long lost = lostBytes;
    int lostBlocks = lostCount;
    long chainsBefore = chainRepairs();
    as("alice", () -> {
      try (FileSystem ours = FileSystem.newInstance(fs.getUri(), clientConf(true))) {
        WideEcFileSystem w = (WideEcFileSystem) ours;
        for (String f : List.of("/shared/alice-big", "/shared/alice-small")) {
          byte[] expected = data.get(f);
          byte[] sequential = new byte[expected.length];
          try (FSDataInputStream in = ours.open(new Path(f))) {
            int at = 0;
            for (int n; at < sequential.length && (n = in.read(sequential, at, Math.min(7000, sequential.length - at))) > 0; ) {
              at += n;
            }
            assertEquals(expected.length, at, f);
            assertEquals(-1, in.read(), f);
          }
          assertArrayEquals(expected, sequential, f + " read sequentially");
          byte[] positional = new byte[expected.length];
          try (FSDataInputStream in = ours.open(new Path(f))) {
            in.readFully(0, positional);
          }
          assertArrayEquals(expected, positional, f + " read positionally");
        }
        // One rebuild per lost block and pass (4 MiB windows, blocks of 64 KiB): every lost byte came from a
        // DataNode twice (sequential, positional), and nothing else did.
        assertEquals(2 * lostBlocks, w.readPathCounters().archivedReads(), w.readPathCounters().toString());
        assertEquals(2 * lost, w.readPathCounters().bytesFromArchivedReads(), w.readPathCounters().toString());
        assertEquals(0, w.readPathCounters().degradedReads(), "no striped path");
      }
      // Each range was rebuilt by DataNodes along a rack-aggregated chain (ECPipe §3.2, ECWide §4.1).
      assertTrue(chainRepairs() - chainsBefore >= 2L * lostBlocks, "chains run: " + (chainRepairs() - chainsBefore));
      try (FileSystem stock = FileSystem.newInstance(fs.getUri(), clientConf(false))) {
        assertTrue(stock instanceof DistributedFileSystem && !(stock instanceof WideEcFileSystem));
        try (FSDataInputStream in = stock.open(new Path("/shared/alice-big"))) {
          assertThrows(BlockMissingException.class, () -> in.readFully(0, new byte[(int) BLOCK]));
        }
      }
      return null;
    });
  }

  /** Pipelined repairs the live DataNodes' workers ran, as requestor. */
  private long chainRepairs() {
    long n = 0;
    for (DataNode dn : cluster.getDataNodes()) {
      n += WideEcDataNodePlugin.running(dn.getXferPort()).metrics().repairs(RepairScheme.RACK_AGGREGATED);
    }
    return n;
  }

  /** Alice's READ token for a block of hers, as the NameNode hands it to her. */
  private LocatedBlock asAlice(String path, int index) throws Exception {
    return as("alice", () -> {
      try (DistributedFileSystem d = (DistributedFileSystem) FileSystem.newInstance(fs.getUri(), clientConf(false))) {
        return d.getClient().getLocatedBlocks(path, 0, Long.MAX_VALUE).get(index);
      }
    });
  }

  private static BlockRef ref(ExtendedBlock b, long numBytes, byte[] token) {
    return new BlockRef(b.getBlockPoolId(), b.getBlockId(), b.getGenerationStamp(), numBytes, token);
  }

  /** Sends a request to a live DataNode as a client with the given token and returns the bytes, or throws. */
  private byte[] ask(ArchivedReadRequest req, byte[] credentialToken) throws Exception {
    DataNode dn = cluster.getDataNodes().get(0);
    WideEcDataNodePlugin plugin = WideEcDataNodePlugin.running(dn.getXferPort());
    DatanodeInfo info = cluster.getNameNode().getNamesystem().getBlockManager().getDatanodeManager()
        .getDatanode(dn.getDatanodeId());
    Endpoint e = plugin.endpoints().resolve(new UnitLocation(-1, DataNodeSites.of(info)), info);
    ExecutorService exec = Executors.newSingleThreadExecutor();
    try (SliceTransport t = new SliceTransport(TransportConfReader.forClient(clientConf(false)).withTimeouts(20_000), "hostile",
        TrafficCounters.NONE, exec)) {
      byte[] out = new byte[(int) req.length()];
      try (PeerStream s = t.open(e, "hostile", "/elsewhere", 9, req.toBytes(), Credential.ofToken(credentialToken))) {
        for (int i = 0; i < req.slices(); i++) {
          Frame f = s.next(i, req.sliceLength(i));
          f.payload().getBytes(f.payload().readerIndex(), out, i * req.sliceBytes(), req.sliceLength(i));
          f.release();
          s.credit();
        }
        s.awaitEnd();
      }
      return out;
    } finally {
      exec.shutdownNow();
    }
  }

  @Test
  @org.junit.jupiter.api.Order(2)
  void aHostileClientGetsOnlyTheRangeOfTheBlockItsTokenNames() throws Exception {
    long inode = store.inodeOf(new Path("/shared/alice-big"));
    LocatedBlock lost = asAlice("/shared/alice-big", 0);
    byte[] token = TokenBytes.of(lost.getBlockToken());
    ExtendedBlock b = lost.getBlock();
    // The honest request, straight to a DataNode: exactly the range asked.
    byte[] honest = ask(new ArchivedReadRequest(inode, ref(b, b.getNumBytes(), token), 1000, 5000, 4096), token);
    assertArrayEquals(java.util.Arrays.copyOfRange(data.get("/shared/alice-big"), 1000, 6000), honest);

    // Bob's block with alice's token for her own block: the token names another block.
    LocatedBlock bobs = blocks("/shared/bob").get(0);
    long bobInode = store.inodeOf(new Path("/shared/bob"));
    PeerFailure other = assertThrows(PeerFailure.class, () -> ask(new ArchivedReadRequest(bobInode,
        ref(bobs.getBlock(), bobs.getBlock().getNumBytes(), token), 0, 4096, 4096), token));
    assertTrue(other.getMessage().contains("block token refused"), other.getMessage());

    // Her block, claimed to belong to bob's file: the manifest, not the request, says whose block it is.
    PeerFailure inodeLie = assertThrows(PeerFailure.class, () -> ask(new ArchivedReadRequest(bobInode,
        ref(b, b.getNumBytes(), token), 0, 4096, 4096), token));
    assertTrue(inodeLie.getMessage().contains("is in no stripe"), inodeLie.getMessage());

    // Her block, claimed longer than it is, read past its end: the NameNode's listing says otherwise.
    PeerFailure pastEnd = assertThrows(PeerFailure.class, () -> ask(new ArchivedReadRequest(inode,
        ref(b, b.getNumBytes() + BLOCK, token), b.getNumBytes(), 4096, 4096), token));
    assertTrue(pastEnd.getMessage().contains("as the NameNode lists it now"), pastEnd.getMessage());

    // A tampered token (one bit of its password) is refused before anything is looked up.
    org.apache.hadoop.security.token.Token<?> t = lost.getBlockToken();
    byte[] forged = t.getPassword().clone();
    forged[0] ^= 1;
    byte[] forgedToken = TokenBytes.of(new org.apache.hadoop.security.token.Token<>(t.getIdentifier(), forged,
        t.getKind(), t.getService()));
    PeerFailure tampered = assertThrows(PeerFailure.class, () -> ask(new ArchivedReadRequest(inode,
        ref(b, b.getNumBytes(), forgedToken), 0, 4096, 4096), token));
    assertTrue(tampered.getMessage().contains("block token refused"), tampered.getMessage());
  }

  /**
   * Loses one more node, so it runs last. The NameNode is not told: it keeps listing the dead DataNode's replica (for
   * 10.5 minutes with Hadoop's defaults), and the client keeps the stock reader's retry settings; the read must still
   * turn into a rebuild at the first failure of the only holder, not end in a BlockMissingException.
   */
  @Test
  @org.junit.jupiter.api.Order(3)
  void aBlockWhoseOnlyHolderDiesIsReadThroughWhileTheNameNodeStillListsIt() throws Exception {
    // A block of alice-big whose node still runs (its first block's node was stopped before).
    LocatedBlock second = blocks("/shared/alice-big").stream().filter(b -> b.getLocations().length > 0).findFirst()
        .orElseThrow(() -> new AssertionError("every block of alice-big is on a stopped node"));
    assertEquals(1, second.getLocations().length, "trimmed to one replica");
    long start = second.getStartOffset();
    int len = (int) second.getBlockSize();
    DatanodeInfo holder = second.getLocations()[0];
    byte[] expected = java.util.Arrays.copyOfRange(data.get("/shared/alice-big"), (int) start, (int) start + len);
    Configuration stockRetries = clientConf(true);
    stockRetries.unset("dfs.client.retry.window.base");
    stockRetries.unset(DFSConfigKeys.DFS_CLIENT_MAX_BLOCK_ACQUIRE_FAILURES_KEY);
    as("alice", () -> {
      try (FileSystem ours = FileSystem.newInstance(fs.getUri(), stockRetries)) {
        WideEcFileSystem w = (WideEcFileSystem) ours;
        try (FSDataInputStream opened = ours.open(new Path("/shared/alice-big"))) {
          assertTrue(cluster.stopDataNode(holder.getXferAddr()) != null, "DataNode " + holder);
          LocatedBlock listed = blocks("/shared/alice-big").stream()
              .filter(b -> b.getBlock().getBlockId() == second.getBlock().getBlockId()).findFirst().orElseThrow();
          assertEquals(List.of(holder.getXferAddr()),
              java.util.Arrays.stream(listed.getLocations()).map(DatanodeInfo::getXferAddr).toList(),
              "the NameNode still lists the stopped DataNode's replica");
          long before = w.readPathCounters().archivedReads();
          byte[] got = new byte[len];
          opened.readFully(start, got);
          assertArrayEquals(expected, got, "positional read of the block opened before its holder died");
          assertEquals(before + 1, w.readPathCounters().archivedReads(), w.readPathCounters().toString());
        }
        // A stream opened after the death, read sequentially from the block's start.
        try (FSDataInputStream fresh = ours.open(new Path("/shared/alice-big"))) {
          fresh.seek(start);
          byte[] got = new byte[len];
          fresh.readFully(got);
          assertArrayEquals(expected, got, "sequential read of the block opened after its holder died");
        }
      }
      return null;
    });
  }
}
