package org.wideec.hdfs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.wideec.client.ReadPathCounters;
import org.wideec.client.WideEcFileSystem;
import org.wideec.minicluster.StripedGroups;
import org.wideec.transport.TransportFaultInjector;

/**
 * A degraded read while our repair worker rebuilds the very unit it reads (the case the real-process cluster measured:
 * the lost unit's local-group helpers and their uplinks busy with the repair). 8 racks of 3, Azure-LRC(12,2,2), block
 * tokens on; a DataNode holding data unit 3 of the largest file's first group is stopped and the NameNode hands its
 * units to our worker. Every helper's slices are held back while the repair runs, so the repair is in flight, and a
 * chain asked for the same unit's rows queues behind it, as on a busy cluster; HDFS's data transfer (direct decode's
 * fetches) is not held.
 */
class DegradedReadDuringRepairClusterTest {
  static final int LOST = PipelinedDegradedReadClusterTest.LOST;
  static final int LOCAL_GROUP_HELPERS = PipelinedDegradedReadClusterTest.LOCAL_GROUP_HELPERS;
  static Path file;
  static byte[] data;

  @BeforeAll
  static void start() throws Exception {
    Configuration conf = new Configuration();
    conf.setBoolean(DFSConfigKeys.DFS_BLOCK_ACCESS_TOKEN_ENABLE_KEY, true);
    // Helpers held back by the test are not stalled peers: no restart may replace them while the reads run.
    conf.setInt("wide-ec.transport.stall.timeout.ms", 120_000);
    RepairClusterFixture.start(conf);
    Map.Entry<Path, byte[]> largest = RepairClusterFixture.files.entrySet().stream()
        .max(Map.Entry.comparingByValue((x, y) -> Integer.compare(x.length, y.length))).orElseThrow();
    file = largest.getKey();
    data = largest.getValue();
  }

  @AfterAll
  static void stop() {
    RepairClusterFixture.stop();
  }

  /** Holds every helper's slices until released, and tells when our worker's repair (not a client's) is held. */
  static final class HeldHelpers extends TransportFaultInjector {
    final CountDownLatch release = new CountDownLatch(1);
    final CountDownLatch repairHeld = new CountDownLatch(1);
    final Set<Long> workerAttempts = ConcurrentHashMap.newKeySet();
    final AtomicInteger clientAttempts = new AtomicInteger();

    @Override
    public void onRepairAttempt(String requestorNode, long repairId) {
      if (requestorNode.startsWith("client ")) {
        clientAttempts.incrementAndGet();
      } else {
        workerAttempts.add(repairId);
      }
    }

    @Override
    public void beforeSend(String node, String toNode, long repairId, int slice, io.netty.buffer.ByteBuf payload)
        throws IOException {
      if (release.getCount() == 0) {
        return;
      }
      if (workerAttempts.contains(repairId)) {
        repairHeld.countDown();
      }
      try {
        release.await(60, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted while held back", e);
      }
    }
  }

  @Test
  void aReadDuringItsUnitsRepairDecodesDirectlyAtOnceAfterAChainBeyondTheFirstWasOvertaken() throws Exception {
    HeldHelpers held = new HeldHelpers();
    TransportFaultInjector.set(held);
    long from = PipelinedDegradedReadClusterTest.inLostCell(1, 0);
    int length = RepairClusterFixture.CELL;
    // A hedge long enough for a chain to find its helpers' slice ports and ask them before direct decode starts: one
    // overtaken before it asked says nothing about them, and the outlook ignores it.
    try (WideEcFileSystem wide = PipelinedDegradedReadClusterTest.open(null, "2000")) {
      try {
        RepairClusterFixture.kill(StripedGroups.location(group0(), LOST));
        assertTrue(held.repairHeld.await(60, TimeUnit.SECONDS), "our worker started rebuilding the lost units");
        assertTrue(StripedGroups.missingUnits(group0(), RepairClusterFixture.policy).contains(LOST),
            "unit " + LOST + " is still lost while its repair is held");

        assertArrayEquals(expected(from, length), pread(wide, from, length), "the first read during the repair");
        ReadPathCounters c = wide.readPathCounters();
        assertEquals(1, c.hedgesFired(), "the first read asked a chain, which, queued behind the repair, was raced "
            + "after 2 s: " + c);
        assertEquals(1, c.hedgedReads(), "and direct decode served the read: " + c);

        // The FileSystem's first chain says nothing of its helpers (ChainOutlook): the second read asks one again.
        assertArrayEquals(expected(from, length), pread(wide, from, length), "the second read during the repair");
        assertEquals(2, c.hedgesFired(), "the second read asked a chain, raced like the first: " + c);
        assertEquals(2, c.hedgedReads(), c.toString());

        assertArrayEquals(expected(from, length), pread(wide, from, length), "the third read during the repair");
        // The first two reads' chains may not have started their attempts before they were cancelled; no other starts.
        assertTrue(held.clientAttempts.get() <= 2, "the third read asked no chain: " + held.clientAttempts.get()
            + " chain attempts by this client");
        assertEquals(1, c.directFirstReads(), "it decoded directly at once: " + c);
        assertEquals(2, c.hedgesFired(), "so no hedge delay was paid: " + c);
        assertEquals(3, c.degradedReads(), c.toString());
        assertEquals(0, c.pipelinedReads(), c.toString());
        assertEquals(0, c.pipelinedFallbacks(), "no chain failed, two were overtaken: " + c);
        assertEquals(3L * LOCAL_GROUP_HELPERS, c.unitsFetched(), "each direct decode fetched the local group: " + c);
      } finally {
        held.release.countDown();
        TransportFaultInjector.set(null);
      }
    }
    RepairClusterFixture.awaitAllComplete();
    RepairClusterFixture.everyByteReadsBack();
  }

  static byte[] pread(WideEcFileSystem fs, long from, int length) throws IOException {
    return PipelinedDegradedReadClusterTest.pread(fs, file, from, length);
  }

  static byte[] expected(long from, int length) {
    return PipelinedDegradedReadClusterTest.expected(data, from, length);
  }

  static LocatedStripedBlock group0() throws IOException {
    return StripedGroups.groups(RepairClusterFixture.fs, file).get(0);
  }
}
