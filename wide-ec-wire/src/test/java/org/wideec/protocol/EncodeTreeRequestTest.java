package org.wideec.protocol;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.wideec.repair.BlockRef;
import org.wideec.topology.Endpoint;
import org.wideec.protocol.EncodeTreeRequest;
import org.wideec.archive.encode.EncodeLayouts;
import org.wideec.archive.encode.EncodePlan;
import org.wideec.archive.encode.EncodePlanner;
import org.wideec.archive.encode.EncodeStripe;

/**
 * The archiver's request to a chain encode's collector (pure): it survives the wire exactly, the collector replans
 * exactly the tree the archiver planned, one tree of a plan carries exactly that tree's streams and deliveries, and
 * malformed bytes are refused with an error that says what is wrong.
 */
class EncodeTreeRequestTest {
  private static final String SPEC = "azure-lrc:k=6,l=2,g=2";
  private static final int SLICE = 64 * 1024;
  private static final int FRAME = 4 << 20;

  private static EncodeStripe stripe() {
    return EncodeLayouts.stripe("stripe 3", SPEC, EncodeLayouts.lengths(6, 1 << 20, 1000));
  }

  private static EncodeTreeRequest request(EncodeStripe s, int tree, byte[] token) {
    EncodePlan plan = EncodePlanner.chain(s, EncodePlan.Shape.CHAIN, SLICE, FRAME);
    EncodePlan.Tree t = plan.trees().get(tree);
    Map<Integer, BlockRef> blocks = new HashMap<>();
    List<Endpoint> endpoints = new ArrayList<>();
    endpoints.add(new Endpoint("10.0.0.1", 7000, t.collector()));
    for (EncodePlan.Step step : t.steps()) {
      blocks.put(step.unit(), new BlockRef("BP-1", 100 + step.unit(), 7, s.dataLength(step.unit()), token));
      endpoints.add(new Endpoint("10.0.0." + (2 + step.unit()), 7000, step.site()));
    }
    List<EncodeTreeRequest.ParityOutput> outputs = new ArrayList<>();
    for (int row : t.rows()) {
      outputs.add(new EncodeTreeRequest.ParityOutput(row, new BlockRef("BP-1", 200 + row, 9, s.parityLength(), token),
          new EncodeTreeRequest.TargetNode("10.0.1." + row, "host" + row, "uuid-" + row, 9866, 9864, 0, 9867, "DISK",
              "DS-" + row)));
    }
    return new EncodeTreeRequest(s.name(), SPEC, EncodePlan.Shape.CHAIN, SLICE, tree, s.dataLengths(), s.holders(),
        s.targets(), endpoints, blocks, outputs, 2, 512);
  }

  @Test
  void aRequestSurvivesTheWireAndTheCollectorReplansExactlyItsTree() throws Exception {
    EncodeStripe s = stripe();
    EncodePlan whole = EncodePlanner.chain(s, EncodePlan.Shape.CHAIN, SLICE, FRAME);
    assertEquals(3, whole.trees().size(), "azure-lrc: the global rows, then one tree per local parity");
    for (int t = 0; t < whole.trees().size(); t++) {
      EncodeTreeRequest req = request(s, t, new byte[] {1, 2, 3});
      byte[] wire = req.toBytes();
      assertTrue(EncodeTreeRequest.isOne(wire));
      EncodeTreeRequest back = EncodeTreeRequest.parse(wire);
      assertArrayEquals(wire, back.toBytes());
      assertEquals(req.endpoints(), back.endpoints());
      assertEquals(req.blocks(), back.blocks());
      assertEquals(req.holders(), back.holders());
      assertEquals(req.targets(), back.targets());
      assertArrayEquals(s.dataLengths(), back.dataLengths());
      assertEquals(whole.only(t).describe(), back.plan(FRAME).describe(), "tree " + t);
    }
  }

  @Test
  void oneTreeOfAPlanCarriesExactlyItsStreamsAndDeliveries() {
    EncodePlan whole = EncodePlanner.chain(stripe(), EncodePlan.Shape.CHAIN, SLICE, FRAME);
    long cross = 0;
    long in = 0;
    int deliveries = 0;
    for (int t = 0; t < whole.trees().size(); t++) {
      EncodePlan one = whole.only(t);
      assertEquals(List.of(whole.trees().get(t)), one.trees());
      for (EncodePlan.Delivery d : one.deliveries()) {
        assertTrue(Arrays.stream(whole.trees().get(t).rows()).anyMatch(r -> r == d.parity()));
      }
      cross += one.crossRackStreamBytes();
      in += one.inRackStreamBytes();
      deliveries += one.deliveries().size();
      assertEquals(whole.sliceBytes(), one.sliceBytes());
    }
    assertEquals(whole.crossRackStreamBytes(), cross);
    assertEquals(whole.inRackStreamBytes(), in);
    assertEquals(whole.deliveries().size(), deliveries);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> whole.only(3));
    assertEquals("stripe stripe 3: the plan has trees 0..2, not 3", e.getMessage());
  }

  @Test
  void malformedRequestsAreRefusedSayingWhy() {
    byte[] wire = request(stripe(), 0, new byte[0]).toBytes();
    IOException e = assertThrows(IOException.class,
        () -> EncodeTreeRequest.parse(Arrays.copyOf(wire, wire.length - 3)));
    assertEquals("encode tree request is truncated", e.getMessage());
    byte[] trailing = Arrays.copyOf(wire, wire.length + 2);
    e = assertThrows(IOException.class, () -> EncodeTreeRequest.parse(trailing));
    assertEquals("encode tree request for stripe stripe 3 has 2 trailing bytes", e.getMessage());
    byte[] step = wire.clone();
    step[0] = 2;
    e = assertThrows(IOException.class, () -> EncodeTreeRequest.parse(step));
    assertEquals("not an encode tree request of version 1 (kind 2, version 1)", e.getMessage());
    assertEquals(false, EncodeTreeRequest.isOne(step));

    IllegalArgumentException big = assertThrows(IllegalArgumentException.class,
        () -> request(stripe(), 0, new byte[16 * 1024 + 1]));
    assertTrue(big.getMessage().startsWith("bad encode tree request for stripe stripe 3: a block token of 16385 bytes"),
        big.getMessage());
    IllegalArgumentException star = assertThrows(IllegalArgumentException.class, () -> new EncodeTreeRequest("s", SPEC,
        EncodePlan.Shape.STAR, SLICE, 0, new long[6], Map.of(), Map.of(), List.of(), Map.of(), List.of(), 2, 512));
    assertEquals("bad encode tree request for stripe s: shape STAR, slices of 65536, tree 0, 512 bytes per checksum",
        star.getMessage());
  }

  @Test
  void theResultSurvivesTheWire() throws Exception {
    List<EncodeTreeRequest.Stored> stored = List.of(new EncodeTreeRequest.Stored(6, 1 << 20, 0xFFFF_FFFFL),
        new EncodeTreeRequest.Stored(7, 1 << 20, 0));
    byte[] b = EncodeTreeRequest.resultBytes(stored);
    assertEquals(EncodeTreeRequest.resultLength(2), b.length);
    assertEquals(stored, EncodeTreeRequest.parseResult(b));
    IOException e = assertThrows(IOException.class, () -> EncodeTreeRequest.parseResult(Arrays.copyOf(b, 5)));
    assertEquals("encode result is truncated", e.getMessage());
  }
}
