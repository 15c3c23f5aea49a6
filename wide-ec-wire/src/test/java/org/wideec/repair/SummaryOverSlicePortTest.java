package org.wideec.repair;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.HexFormat;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.wideec.code.Codes;
import org.wideec.code.LinearCode;
import org.wideec.engine.SummaryQuery;
import org.wideec.protocol.MessageKind;
import org.wideec.protocol.SummaryRequest;
import org.wideec.scrub.ScrubVerdict;
import org.wideec.scrub.SummaryCheck;
import org.wideec.scrub.UnitSummary;
import org.wideec.transport.PeerFailure;

/** A scrub over real slice transports: each holder folds its unit, one page per unit crosses the network. */
@org.junit.jupiter.api.extension.ExtendWith(org.wideec.transport.NettyLeakCheck.class)
class SummaryOverSlicePortTest {
  private static final LinearCode CODE = Codes.pinnedFromSpec("azure-lrc:k=6,l=2,g=2");
  private static final int UNIT = 512 * 1024 + 100;
  private static final int PAGE = UnitSummary.DEFAULT_PAGE_SIZE;
  private static final int R = UnitSummary.multiplier(2026);
  private MemoryCluster cluster;

  @AfterEach
  void tearDown() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void aCorruptParityUnitIsNamedFromSummariesAndUnderOnePercentOfTheStripeCrossesRacks() throws Exception {
    byte[][] units = RepairPlanningTest.codeword(CODE, UNIT, new Random(1));
    units[8][UNIT / 2] ^= 0x40; // the first local parity, changed where no checksum of ours would look
    cluster = new MemoryCluster(RepairExecutionTest.conf(RepairExecutionTest.SECRET, 10_000));
    for (int u = 0; u < CODE.n(); u++) {
      cluster.node("n" + u, "r" + (u % 5), Map.of(u, units[u]));
    }
    cluster.node("scrubber", "r0", Map.of());
    byte[][] summaries = new byte[CODE.n()][];
    for (int u = 0; u < CODE.n(); u++) {
      summaries[u] = ask(u, new SummaryRequest(new BlockRef(MemoryCluster.POOL, u, 1, UNIT), PAGE, R, 64 * 1024));
    }
    assertEquals(ScrubVerdict.unitAtFault(8), SummaryCheck.check(CODE, summaries));
    // Units 0 and 5 share the scrubber's rack r0; the other 8 each send one page across.
    assertEquals(8L * PAGE, cluster.crossRackBytes());
    assertTrue(cluster.crossRackBytes() <= 0.01 * CODE.n() * UNIT);
    assertEquals((long) CODE.n() * UNIT, cluster.counters.values().stream().mapToLong(c -> c.localReads.get()).sum());
  }

  @Test
  void aPageLargerThanAFrameIsRefusedBeforeAnythingIsRead() throws Exception {
    cluster = new MemoryCluster(RepairExecutionTest.conf(RepairExecutionTest.SECRET, 10_000));
    cluster.node("n0", "r0", Map.of(0, new byte[100]));
    cluster.node("scrubber", "r1", Map.of());
    PeerFailure e = assertThrows(PeerFailure.class,
        () -> ask(0, new SummaryRequest(new BlockRef(MemoryCluster.POOL, 0, 1, 100), 2 << 20, R, 4096)));
    assertTrue(e.getMessage().contains("exceeds the 1048576-byte frame limit"), e.getMessage());
    assertEquals(0, cluster.counters.get("n0").localReads.get());
  }

  @Test
  void aSummaryRequestIsKindSixtyVersionOneAndItsBytesArePinned() throws IOException {
    SummaryRequest req = new SummaryRequest(new BlockRef("BP-1", 1073741825L, 1001, 4096, new byte[] {1, 2, 3}),
        4096, 2, 65536);
    // kind 0x60, version 1, the block as every request writes it, page 4096, r = 2, slice 65536
    assertEquals("6001000442502d31000000004000000100000000000003e900000000000010000003010203" + "00001000" + "02"
        + "00010000", HexFormat.of().formatHex(req.toBytes()));
    assertEquals(req, SummaryRequest.parse(req.toBytes()));
    assertEquals(MessageKind.SUMMARY, MessageKind.of(req.toBytes()));
  }

  private byte[] ask(int unit, SummaryRequest req) throws IOException, InterruptedException {
    return SummaryQuery.summaryOf(cluster.transports.get("scrubber"),
        cluster.resolver().resolve(new UnitLocation(unit, new org.wideec.topology.Site("n" + unit, "r" + (unit % 5)))),
        cluster.where("scrubber"), req, null);
  }
}
