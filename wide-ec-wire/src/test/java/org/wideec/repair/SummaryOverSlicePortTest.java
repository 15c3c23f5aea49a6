package org.wideec.repair;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.wideec.code.Codes;
import org.wideec.code.LinearCode;
import org.wideec.engine.SummaryQuery;
import org.wideec.protocol.MessageKind;
import org.wideec.protocol.RackSumRequest;
import org.wideec.protocol.SummaryRequest;
import org.wideec.scrub.RackSummingPlan;
import org.wideec.scrub.ScrubChecks;
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
  void eachRacksSumCrossesAsOnePagePerCheckRowAndEqualsThePlansReferenceSum() throws Exception {
    byte[][] units = RepairPlanningTest.codeword(CODE, UNIT, new Random(2));
    cluster = new MemoryCluster(RepairExecutionTest.conf(RepairExecutionTest.SECRET, 10_000));
    String[] racks = new String[CODE.n()];
    for (int u = 0; u < CODE.n(); u++) {
      racks[u] = "r" + (u % 5);
      cluster.node("n" + u, racks[u], Map.of(u, units[u]));
    }
    cluster.node("scrubber", "r0", Map.of());
    RackSummingPlan plan = RackSummingPlan.plan(ScrubChecks.of(CODE, 1, 2026), racks, "r0");
    // Racks r1..r4 hold two units each, more than the one check row: each sums; r0 is the scrubber's own.
    assertEquals(4, plan.sums().size());
    byte[][] summaries = new byte[CODE.n()][];
    for (int u = 0; u < CODE.n(); u++) {
      summaries[u] = UnitSummary.of(java.nio.ByteBuffer.wrap(units[u]), PAGE, R);
    }
    List<byte[][]> rackRows = new ArrayList<>();
    for (RackSummingPlan.RackSum sum : plan.sums()) {
      byte[][] rows = askRackSum(plan, sum);
      assertArrayEquals(plan.sumInRack(sum, summaries), rows, "rack " + sum.rack());
      rackRows.add(rows);
    }
    for (int u : plan.alone()) {
      summaries[u] = ask(u, new SummaryRequest(new BlockRef(MemoryCluster.POOL, u, 1, UNIT), PAGE, R, 64 * 1024));
    }
    assertTrue(plan.consistent(rackRows, summaries, PAGE));
    assertEquals(plan.crossRackBytes(PAGE), cluster.crossRackBytes());
    assertEquals(4L * PAGE, cluster.crossRackBytes(), "one page per rack, not one per unit (8)");
    assertEquals(6L * PAGE, cluster.inRackBytes(), "each summing rack's second unit sends its page to its collector,"
        + " and the scrubber's rack its two");
  }

  @Test
  void aRackSumIsKindSixtyOneVersionOneAndItsBytesArePinned() throws IOException {
    SummaryRequest fold = new SummaryRequest(new BlockRef("BP-1", 1073741825L, 1001, 4096, new byte[] {1, 2, 3}),
        4096, 2, 65536);
    SummaryRequest other = new SummaryRequest(new BlockRef("BP-1", 1073741826L, 1001, 4096, new byte[] {4}), 4096, 2,
        65536);
    RackSumRequest up = new RackSumRequest(other, new int[] {7, 9}, List.of());
    RackSumRequest req = new RackSumRequest(fold, new int[] {3, 5}, List.of(new RackSumRequest.Upstream(
        new org.wideec.topology.Endpoint("h", 9, new org.wideec.topology.Site("h:1", "/r")), up)));
    // kind 0x61, version 1, the fold as a summary request writes it, 2 rows (3, 5), 1 upstream: its endpoint and
    // its own request, with no upstreams.
    assertEquals("6101000442502d31000000004000000100000000000003e900000000000010000003010203" + "00001000" + "02"
        + "00010000" + "020305" + "0001" + "000168" + "00000009" + "0003683a31" + "00022f72"
        + "6101000442502d31000000004000000200000000000003e90000000000001000000104" + "00001000" + "02" + "00010000"
        + "020709" + "0000", HexFormat.of().formatHex(req.toBytes()));
    assertEquals(req, RackSumRequest.parse(req.toBytes()));
    assertEquals(MessageKind.RACK_SUM, MessageKind.of(req.toBytes()));
    IOException nested = assertThrows(IOException.class, () -> RackSumRequest.parse(nestedTwice(fold)));
    assertTrue(nested.getMessage().contains("a rack sums in one star"), nested.getMessage());
  }

  /** A request whose upstream names an upstream of its own, written by hand (the record refuses to build one). */
  private static byte[] nestedTwice(SummaryRequest fold) throws IOException {
    java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream();
    java.io.DataOutputStream out = new java.io.DataOutputStream(b);
    byte[] leaf = new RackSumRequest(fold, new int[] {1}, List.of()).toBytes();
    org.wideec.topology.Endpoint e = new org.wideec.topology.Endpoint("h", 9, new org.wideec.topology.Site("h:1", "/r"));
    byte[] head = java.util.Arrays.copyOf(leaf, leaf.length - 2); // without its upstream count
    out.write(head);
    out.writeShort(1);
    org.wideec.protocol.WireCodec.writeEndpoint(out, e);
    out.write(head);
    out.writeShort(1);
    org.wideec.protocol.WireCodec.writeEndpoint(out, e);
    out.write(leaf);
    return b.toByteArray();
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

  /** Asks the collector of one rack's sum, as a scrubber in r0 does, each unit's block named by its index. */
  private byte[][] askRackSum(RackSummingPlan plan, RackSummingPlan.RackSum sum) throws Exception {
    List<RackSumRequest.Upstream> ups = new ArrayList<>();
    for (int u : sum.helpers()) {
      ups.add(new RackSumRequest.Upstream(endpoint(u), new RackSumRequest(fold(u), plan.checks().coefficientsOf(u),
          List.of())));
    }
    int c = sum.collector();
    return SummaryQuery.rackSumOf(cluster.transports.get("scrubber"), endpoint(c), cluster.where("scrubber"),
        new RackSumRequest(fold(c), plan.checks().coefficientsOf(c), ups), null);
  }

  private static SummaryRequest fold(int unit) {
    return new SummaryRequest(new BlockRef(MemoryCluster.POOL, unit, 1, UNIT), PAGE, R, 64 * 1024);
  }

  private org.wideec.topology.Endpoint endpoint(int unit) throws IOException {
    return cluster.resolver().resolve(new UnitLocation(unit, new org.wideec.topology.Site("n" + unit, "r" + (unit % 5))));
  }

  private byte[] ask(int unit, SummaryRequest req) throws IOException, InterruptedException {
    return SummaryQuery.summaryOf(cluster.transports.get("scrubber"),
        cluster.resolver().resolve(new UnitLocation(unit, new org.wideec.topology.Site("n" + unit, "r" + (unit % 5)))),
        cluster.where("scrubber"), req, null);
  }
}
