package org.wideec.protocol;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.wideec.topology.Endpoint;
import org.wideec.repair.BlockRef;
import org.wideec.topology.Site;

class StepRequestTest {
  static final BlockRef UNIT = new BlockRef("BP-1", 42, 1001, 300_000);

  @Test
  void aChainOfRequestsSurvivesTheWire() throws IOException {
    StepRequest head = new StepRequest(UNIT, 7, 300_000, 65536, 2, 3, List.of());
    StepRequest mid = new StepRequest(new BlockRef("BP-1", 43, 1001, 250_000, new byte[] {9, 8, 7}), 200, 300_000, 65536, 2, 3,
        List.of(new StepRequest.Upstream(new Endpoint("10.0.0.1", 9999, new Site("10.0.0.1:9866", "/rack1")), head)));
    StepRequest back = StepRequest.parse(mid.toBytes());
    assertEquals(mid, back);
    assertEquals(5, back.slices());
    assertEquals(300_000 - 4 * 65536, back.sliceLength(4));
    assertTrue(back.carries(2) && back.carries(5) && !back.carries(3) && !back.carries(0));
    StepRequest range = StepRequest.parse(mid.range(131072, 70_000).toBytes());
    assertEquals(mid.range(131072, 70_000), range);
    assertEquals(131072, range.upstreams().get(0).request().offset());
    assertEquals(70_000, range.upstreams().get(0).request().length());
    assertEquals(List.of((byte) 9, (byte) 8, (byte) 7), List.of(range.unit().token()[0], range.unit().token()[1], range.unit().token()[2]));
    StepRequest digest = StepRequest.digestOf(UNIT, 65536);
    assertEquals(digest, StepRequest.parse(digest.toBytes()));
    assertTrue(StepRequest.parse(digest.toBytes()).digest());
  }

  @Test
  void malformedRequestsAreRefused() {
    byte[] good = new StepRequest(UNIT, 1, 1000, 512, 0, 1, List.of()).toBytes();
    assertThrows(IOException.class, () -> StepRequest.parse(Arrays.copyOf(good, good.length - 3)), "truncated");
    assertThrows(IOException.class, () -> StepRequest.parse(Arrays.copyOf(good, good.length + 1)), "trailing bytes");
    byte[] badStride = new StepRequest(UNIT, 1, 1000, 512, 0, 1, List.of()).toBytes();
    badStride[badStride.length - 6] = (byte) 0x80; // the stride's high byte (before the 2-byte upstream count)
    IOException e = assertThrows(IOException.class, () -> StepRequest.parse(badStride));
    assertTrue(e.getMessage().contains("malformed step request"), e.getMessage());
  }

  private static final Endpoint UP = new Endpoint("10.0.0.1", 9999, new Site("10.0.0.1:9866", "/rack1"));

  @Test
  void anUpstreamWithoutARackIsRefusedAsAMalformedRequest() {
    byte[] wire = new StepRequest(UNIT, 1, 1000, 512, 0, 1,
        List.of(new StepRequest.Upstream(UP, new StepRequest(UNIT, 1, 1000, 512, 0, 1, List.of())))).toBytes();
    byte[] rack = "/rack1".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    int at = indexOf(wire, rack);
    Arrays.fill(wire, at, at + rack.length, (byte) ' '); // the same length, so only the rack's name is blank
    IOException e = assertThrows(IOException.class, () -> StepRequest.parse(wire));
    assertEquals("malformed step request: a site needs a node and a rack, got node 10.0.0.1:9866, rack       ",
        e.getMessage());
  }

  private static int indexOf(byte[] in, byte[] what) {
    for (int i = 0; i + what.length <= in.length; i++) {
      if (Arrays.equals(in, i, i + what.length, what, 0, what.length)) {
        return i;
      }
    }
    throw new AssertionError("not found");
  }

  @Test
  void aMultiRowStepSurvivesTheWire() throws IOException {
    StepRequest first = StepRequest.encodeStep(UNIT, new int[] {3, 0, 255, 1}, 300_000, 65536, List.of());
    StepRequest next = StepRequest.encodeStep(new BlockRef("BP-1", 43, 1001, 250_000, new byte[] {5}),
        new int[] {17, 1, 2, 200}, 300_000, 65536, List.of(new StepRequest.Upstream(UP, first)));
    byte[] wire = next.toBytes();
    assertEquals(2, wire[0], "kind 2: a multi-row step (version 2)");
    StepRequest back = StepRequest.parse(wire);
    assertEquals(next, back);
    assertEquals(4, back.rows());
    assertEquals(List.of(17, 1, 2, 200), Arrays.stream(back.coefficients()).boxed().toList());
    assertEquals(List.of(3, 0, 255, 1), Arrays.stream(back.upstreams().get(0).request().coefficients()).boxed().toList());
    IllegalStateException e = assertThrows(IllegalStateException.class, back::coefficient);
    assertEquals("a step of 4 rows has no single coefficient", e.getMessage());
  }

  /** What every request looked like before multi-row steps, written field by field. */
  private static byte[] versionOne(boolean digest, BlockRef u, int coefficient, long length, int slice, int first,
      int stride, Endpoint up, byte[] upstream) throws IOException {
    java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream();
    try (java.io.DataOutputStream out = new java.io.DataOutputStream(b)) {
      out.writeBoolean(digest);
      out.writeUTF(u.pool());
      out.writeLong(u.blockId());
      out.writeLong(u.genStamp());
      out.writeLong(u.numBytes());
      out.writeShort(u.token().length);
      out.write(u.token());
      out.writeByte(coefficient);
      out.writeLong(0);
      out.writeLong(length);
      out.writeInt(slice);
      out.writeInt(first);
      out.writeInt(stride);
      out.writeShort(up == null ? 0 : 1);
      if (up != null) {
        out.writeUTF(up.host());
        out.writeInt(up.port());
        out.writeUTF(up.node());
        out.writeUTF(up.rack());
        out.write(upstream);
      }
    }
    return b.toByteArray();
  }

  @Test
  void aOneRowRequestIsStillVersionOneByteForByte() throws IOException {
    StepRequest head = new StepRequest(UNIT, 7, 300_000, 65536, 2, 3, List.of());
    StepRequest mid = new StepRequest(UNIT, 200, 300_000, 65536, 2, 3, List.of(new StepRequest.Upstream(UP, head)));
    byte[] v1 = versionOne(false, UNIT, 200, 300_000, 65536, 2, 3, UP,
        versionOne(false, UNIT, 7, 300_000, 65536, 2, 3, null, null));
    assertArrayEquals(v1, mid.toBytes());
    StepRequest oneRowEncode = StepRequest.encodeStep(UNIT, new int[] {200}, 300_000, 65536,
        List.of(new StepRequest.Upstream(UP, StepRequest.encodeStep(UNIT, new int[] {7}, 300_000, 65536, List.of()))));
    assertArrayEquals(versionOne(false, UNIT, 200, 300_000, 65536, 0, 1, UP,
        versionOne(false, UNIT, 7, 300_000, 65536, 0, 1, null, null)), oneRowEncode.toBytes(),
        "an encode's one-row step is a version 1 request");
    assertArrayEquals(versionOne(true, UNIT, 1, UNIT.numBytes(), 65536, 0, 1, null, null),
        StepRequest.digestOf(UNIT, 65536).toBytes());
    assertEquals(mid, StepRequest.parse(v1));
  }

  @Test
  void malformedMultiRowRequestsAreRefused() {
    byte[] good = StepRequest.encodeStep(UNIT, new int[] {1, 2}, 1000, 512, List.of()).toBytes();
    int rowsAt = 1 + 2 + UNIT.pool().length() + 24 + 2; // kind, pool, id, stamp, length, token length (no token)
    assertEquals(2, good[rowsAt]);
    byte[] unknown = good.clone();
    unknown[0] = 3;
    IOException e = assertThrows(IOException.class, () -> StepRequest.parse(unknown));
    assertTrue(e.getMessage().startsWith("step request of unknown kind 3"), e.getMessage());
    for (int rows : new int[] {0, 1, StepRequest.MAX_ROWS + 1}) {
      byte[] b = good.clone();
      b[rowsAt] = (byte) rows;
      e = assertThrows(IOException.class, () -> StepRequest.parse(b), rows + " rows");
      assertEquals("multi-row step request carries " + rows + " rows; 2 to " + StepRequest.MAX_ROWS, e.getMessage());
    }
    // A step of 2 rows that adds an upstream of 1: its sum would mix rows.
    IllegalArgumentException mixed = assertThrows(IllegalArgumentException.class, () -> StepRequest.encodeStep(UNIT,
        new int[] {1, 2}, 1000, 512, List.of(new StepRequest.Upstream(UP, new StepRequest(UNIT, 1, 1000, 512, 0, 1,
            List.of())))));
    assertEquals("bad step request: a step of 2 rows adds an upstream of 1 (10.0.0.1:9866)", mixed.getMessage());
    assertThrows(IllegalArgumentException.class, () -> new StepRequest(UNIT, new int[] {1, 2}, 0, 1000, 512, 0, 1,
        List.of(), true), "a digest carries one row");
  }
}
