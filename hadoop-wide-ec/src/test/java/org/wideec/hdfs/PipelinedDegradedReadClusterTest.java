package org.wideec.hdfs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.apache.hadoop.hdfs.server.blockmanagement.BlockManagerTestUtil;
import org.apache.hadoop.io.IOUtils;
import org.apache.hadoop.security.ssl.SSLFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.wideec.client.ReadPathCounters;
import org.wideec.client.WideEcFileSystem;
import org.wideec.datanode.RepairMetrics;
import org.wideec.minicluster.StripedGroups;
import org.wideec.transport.TestKeystores;
import org.wideec.transport.TransportConf;
import org.wideec.transport.TransportFaultInjector;

/**
 * Pipelined degraded reads (ECPipe §3.2) on a secure cluster: block tokens and encrypted data transfer on, our
 * DataNode plugin on every DataNode, 8 racks of 3. A DataNode holding data unit 3 of the first group of the largest
 * file is stopped and nothing rebuilds it (the NameNode's RedundancyMonitor is stopped), so every read of its cells
 * is degraded. WideEcFileSystem reads them through a chain of its local group's DataNodes, proving each helper the
 * block token the NameNode gave the client; when the chain fails it reads by direct decode instead. Every test checks
 * the bytes and which path served them.
 */
class PipelinedDegradedReadClusterTest {
  static final int LOST = 3;
  /** Unit 3's local group in Azure-LRC(12,2,2): data units 0..5 without 3, and local parity L1 (unit 14). */
  static final int LOCAL_GROUP_HELPERS = 6;
  static TestKeystores keystores;
  static WideEcFileSystem wide;
  static Path file;
  static byte[] data;

  @BeforeAll
  static void start() throws Exception {
    Configuration conf = new Configuration();
    conf.setBoolean(DFSConfigKeys.DFS_BLOCK_ACCESS_TOKEN_ENABLE_KEY, true);
    conf.setBoolean(DFSConfigKeys.DFS_ENCRYPT_DATA_TRANSFER_KEY, true);
    keystores = new TestKeystores(PipelinedDegradedReadClusterTest.class, conf);
    RepairClusterFixture.start(conf);
    Map.Entry<Path, byte[]> largest = RepairClusterFixture.files.entrySet().stream()
        .max(Map.Entry.comparingByValue((x, y) -> Integer.compare(x.length, y.length))).orElseThrow();
    file = largest.getKey();
    data = largest.getValue();
    BlockManagerTestUtil.stopRedundancyThread(RepairClusterFixture.cluster.getNamesystem().getBlockManager());
    RepairClusterFixture.kill(StripedGroups.location(group0(), LOST));
    assertTrue(StripedGroups.missingUnits(group0(), RepairClusterFixture.policy).contains(LOST),
        "the NameNode lists unit " + LOST + " as lost");
    // No hedge: these tests assert which path served each read, and on a slow machine direct decode could overtake
    // a chain that is merely slow.
    wide = open(null, "0");
  }

  @AfterAll
  static void stop() throws Exception {
    if (wide != null) {
      wide.close();
    }
    RepairClusterFixture.stop();
    keystores.close();
  }

  static LocatedStripedBlock group0() throws IOException {
    return StripedGroups.groups(RepairClusterFixture.fs, file).get(0);
  }

  /**
   * A client FileSystem as an application would have it: no cluster secret (only what the NameNode gives it) and no
   * keystore (a truststore in ssl-client.xml is all TLS needs on a client).
   */
  static WideEcFileSystem open(String mode) throws IOException {
    return open(mode, null);
  }

  /** The same, with wide-ec.client.degraded-read.hedge.ms set when {@code hedgeMs} is not null. */
  static WideEcFileSystem open(String mode, String hedgeMs) throws IOException {
    Configuration client = new Configuration(RepairClusterFixture.cluster.getConfiguration(0));
    client.unset(TransportConf.SECRET);
    client.set(SSLFactory.SSL_SERVER_CONF_KEY, "no-keystore-on-a-client.xml");
    client.set("fs.hdfs.impl", WideEcFileSystem.class.getName());
    if (mode != null) {
      client.set("wide-ec.client.degraded-read", mode);
    }
    if (hedgeMs != null) {
      client.set("wide-ec.client.degraded-read.hedge.ms", hedgeMs);
    }
    return (WideEcFileSystem) FileSystem.newInstance(RepairClusterFixture.fs.getUri(), client);
  }

  /** Counters of a FileSystem at one moment. */
  record Counts(long degraded, long pipelined, long fallbacks, long unitsFetched, long fromChains, long helperReads) {
    static Counts of(WideEcFileSystem fs) {
      ReadPathCounters c = fs.readPathCounters();
      return new Counts(c.degradedReads(), c.pipelinedReads(), c.pipelinedFallbacks(), c.unitsFetched(),
          c.bytesFromChains(), RepairClusterFixture.sum(RepairMetrics::bytesReadLocally));
    }

    Counts since(Counts before) {
      return new Counts(degraded - before.degraded, pipelined - before.pipelined, fallbacks - before.fallbacks,
          unitsFetched - before.unitsFetched, fromChains - before.fromChains, helperReads - before.helperReads);
    }
  }

  /** File offset of byte {@code at} of cell {@code stripe} of data unit LOST in group 0. */
  static long inLostCell(int stripe, int at) {
    return (long) stripe * 12 * RepairClusterFixture.CELL + (long) LOST * RepairClusterFixture.CELL + at;
  }

  static byte[] pread(WideEcFileSystem fs, long from, int length) throws IOException {
    return pread(fs, file, from, length);
  }

  static byte[] pread(WideEcFileSystem fs, Path path, long from, int length) throws IOException {
    byte[] out = new byte[length];
    try (FSDataInputStream in = fs.open(path)) {
      in.readFully(from, out, 0, length);
    }
    return out;
  }

  static byte[] expected(long from, int length) {
    return expected(data, from, length);
  }

  static byte[] expected(byte[] written, long from, int length) {
    return Arrays.copyOfRange(written, (int) from, (int) from + length);
  }

  @Test
  void aLostCellRangeIsRebuiltByItsLocalGroupsChainAndSentToTheClientOnce() throws Exception {
    int cell = RepairClusterFixture.CELL;
    // Unaligned on both ends: the chain rebuilds whole 512-byte chunks [cell, 2 cell) of unit 3, the client trims.
    long from = inLostCell(1, 100);
    int length = cell - 300;
    Counts before = Counts.of(wide);
    long chainsBefore = wide.readPathCounters().chainsTimed();
    long hopsBefore = wide.readPathCounters().chainHops();
    assertArrayEquals(expected(from, length), pread(wide, from, length), "the cell range read degraded");
    Counts d = Counts.of(wide).since(before);
    assertEquals(new Counts(1, 1, 0, 0, cell, (long) LOCAL_GROUP_HELPERS * cell), d,
        "one pipelined read, no fallback, nothing fetched over HDFS; the chain brought exactly the aligned rows, "
            + "which each of the local group's helpers read once: " + wide.readPathCounters());
    assertEquals(1, wide.readPathCounters().chainsTimed() - chainsBefore, "the chain's timing was counted once");
    assertEquals(LOCAL_GROUP_HELPERS, wide.readPathCounters().chainHops() - hopsBefore,
        "a chain through the local group's helpers: " + wide.readPathCounters());
  }

  @Test
  void theWholeFileReadsBackWithEveryLostRangeFromAChain() throws Exception {
    Counts before = Counts.of(wide);
    for (Map.Entry<Path, byte[]> e : RepairClusterFixture.files.entrySet()) {
      byte[] back = new byte[e.getValue().length];
      try (FSDataInputStream in = wide.open(e.getKey())) {
        IOUtils.readFully(in, back, 0, back.length);
        assertEquals(-1, in.read(), "nothing past the end of " + e.getKey());
      }
      assertArrayEquals(e.getValue(), back, e.getKey().toString());
    }
    Counts d = Counts.of(wide).since(before);
    // Group 0 of the largest file has four stripes, each with a cell of unit 3: four degraded reads at least.
    assertTrue(d.pipelined() >= 4, "every stripe with a lost cell was read pipelined: " + wide.readPathCounters());
    assertEquals(d.degraded(), d.pipelined(), "every degraded read was pipelined: " + wide.readPathCounters());
    assertEquals(0, d.fallbacks(), "no chain failed: " + wide.readPathCounters());
  }

  @Test
  void aChainThatFailsFallsBackToDirectDecodeWithTheRightBytes() throws Exception {
    AtomicInteger killed = new AtomicInteger();
    // The chain's last helper dies as it sends the client its first slice, in both attempts.
    TransportFaultInjector.set(new TransportFaultInjector() {
      @Override
      public void beforeSend(String node, String toNode, long repairId, int slice, io.netty.buffer.ByteBuf payload)
          throws IOException {
        if (toNode.startsWith("client ")) {
          killed.incrementAndGet();
          throw new IOException("injected: " + node + " dies sending slice " + slice + " to the client");
        }
      }
    });
    long from = inLostCell(2, 0);
    int length = RepairClusterFixture.CELL;
    Counts before = Counts.of(wide);
    try {
      assertArrayEquals(expected(from, length), pread(wide, from, length), "the cell read after the chain failed");
    } finally {
      TransportFaultInjector.set(null);
    }
    Counts d = Counts.of(wide).since(before);
    assertEquals(2, killed.get(), "the chain was tried twice (a restart without the helper to blame), both killed");
    assertEquals(1, d.degraded(), wide.readPathCounters().toString());
    assertEquals(0, d.pipelined(), "no pipelined read completed: " + wide.readPathCounters());
    assertEquals(1, d.fallbacks(), "the read fell back once: " + wide.readPathCounters());
    assertEquals(LOCAL_GROUP_HELPERS, d.unitsFetched(), "direct decode fetched the local group over HDFS");
  }

  /**
   * A chain whose last hop is held back (as recovery traffic queued on the uplinks held the real cluster's chains for
   * 11 to 24 s): once the hedge delay passes the client also reads the range by direct decode, serves the read from
   * it and cancels the chain, instead of waiting for the chain's slices.
   */
  /**
   * A user's chain is not held to the configured window (wide-ec.transport.window.slices, 4) on its hops: while the
   * chain's last helper is held before it sends the client anything, its upstream still sends it the whole range
   * (8 slices of 8 KiB for a 64 KiB cell), as a TCP stream across a queued uplink would, instead of stopping after
   * 4 slices plus the one taken and waiting a round trip for each credit.
   */
  @Test
  void aReadsChainHopSendsTheWholeRangeWithoutWaitingForItsConsumersCredits() throws Exception {
    long from = inLostCell(2, 0);
    int length = RepairClusterFixture.CELL;
    java.util.Map<String, AtomicInteger> bytesTo = new java.util.concurrent.ConcurrentHashMap<>();
    AtomicInteger aheadOfTheHeldHelper = new AtomicInteger(-1);
    TransportFaultInjector.set(new TransportFaultInjector() {
      @Override
      public void beforeSend(String node, String toNode, long repairId, int slice, io.netty.buffer.ByteBuf payload)
          throws IOException {
        String hop = toNode + " " + repairId;
        if (!toNode.startsWith("client ")) {
          synchronized (bytesTo) {
            bytesTo.computeIfAbsent(hop, h -> new AtomicInteger()).addAndGet(payload.readableBytes());
            bytesTo.notifyAll();
          }
          return;
        }
        if (slice != 0 || aheadOfTheHeldHelper.get() >= 0) {
          return;
        }
        // The chain's end, about to send the client its first slice: held until its upstream sent the whole range,
        // for at most 4 s (below the fixture's 5 s stall timeout; on a window of 4 the upstream stops at 5 slices).
        String upstreamHop = node + " " + repairId;
        long until = System.nanoTime() + 4_000_000_000L;
        synchronized (bytesTo) {
          try {
            while (sent(bytesTo, upstreamHop) < length && System.nanoTime() < until) {
              bytesTo.wait(100);
            }
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while held back", e);
          }
          aheadOfTheHeldHelper.set(sent(bytesTo, upstreamHop));
        }
      }
    });
    try {
      Counts before = Counts.of(wide);
      assertArrayEquals(expected(from, length), pread(wide, from, length), "the cell read through its chain");
      Counts d = Counts.of(wide).since(before);
      assertEquals(1, d.pipelined(), "a chain served the read: " + wide.readPathCounters());
      assertEquals(0, d.fallbacks(), wide.readPathCounters().toString());
    } finally {
      TransportFaultInjector.set(null);
    }
    assertEquals(length, aheadOfTheHeldHelper.get(), "bytes the last helper's upstream sent it while it sent nothing");
  }

  private static int sent(java.util.Map<String, AtomicInteger> bytesTo, String hop) {
    AtomicInteger n = bytesTo.get(hop);
    return n == null ? 0 : n.get();
  }

  @Test
  void aChainHeldBackByRecoveryTrafficIsOvertakenByDirectDecode() throws Exception {
    java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
    AtomicInteger heldBack = new AtomicInteger();
    TransportFaultInjector.set(new TransportFaultInjector() {
      @Override
      public void beforeSend(String node, String toNode, long repairId, int slice, io.netty.buffer.ByteBuf payload)
          throws IOException {
        if (toNode.startsWith("client ") && slice == 0) {
          heldBack.incrementAndGet();
          try {
            release.await(60, java.util.concurrent.TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while held back", e);
          }
        }
      }
    });
    long from = inLostCell(3, 0);
    int length = RepairClusterFixture.CELL;
    try (WideEcFileSystem hedging = open(null, "100")) {
      Counts before = Counts.of(hedging);
      try {
        assertArrayEquals(expected(from, length), pread(hedging, from, length), "the cell read while its chain waits");
      } finally {
        release.countDown();
        TransportFaultInjector.set(null);
      }
      Counts d = Counts.of(hedging).since(before);
      ReadPathCounters c = hedging.readPathCounters();
      assertTrue(heldBack.get() <= 1, "the chain was cancelled, never restarted: " + heldBack.get() + " holds");
      assertEquals(1, d.degraded(), c.toString());
      assertEquals(0, d.pipelined(), "the held-back chain served nothing: " + c);
      assertEquals(0, d.fallbacks(), "the chain did not fail, it was overtaken: " + c);
      assertEquals(LOCAL_GROUP_HELPERS, d.unitsFetched(), "direct decode fetched the local group over HDFS: " + c);
      assertEquals(1, c.hedgedReads(), "direct decode, started after the hedge delay, served the read: " + c);
      assertEquals(1, c.hedgesFired(), "one hedge fired: " + c);
      assertEquals(0, c.directFirstReads(), "this read still asked a chain first: " + c);
    }
  }

  @Test
  void directModeDecodesAtTheClientAndAMisspeltModeIsRefused() throws Exception {
    try (WideEcFileSystem direct = open("direct")) {
      long from = inLostCell(0, 512);
      int length = 1000;
      Counts before = Counts.of(direct);
      assertArrayEquals(expected(from, length), pread(direct, from, length));
      Counts d = Counts.of(direct).since(before);
      assertEquals(new Counts(1, 0, 0, LOCAL_GROUP_HELPERS, 0, 0), d, "direct decode only: " + direct.readPathCounters());
    }
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> open("pipelind").close());
    assertTrue(e.getMessage().contains("wide-ec.client.degraded-read") && e.getMessage().contains("pipelined, direct"),
        e.getMessage());
  }
}
