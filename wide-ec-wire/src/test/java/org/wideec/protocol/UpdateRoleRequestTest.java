package org.wideec.protocol;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.wideec.repair.BlockRef;
import org.wideec.topology.Endpoint;
import org.wideec.topology.Site;

/** The update role and fetch messages: round trips, bounds, and an older node's refusal of their kinds. */
class UpdateRoleRequestTest {
  private static final BlockRef OLD = new BlockRef("BP-1", 1073741825L, 1001, 4096, new byte[] {1, 2});
  private static final BlockRef NEW = new BlockRef("BP-1", 1073741830L, 1002, 3000, new byte[] {3});
  private static final BlockRef NEW_PARITY = new BlockRef("BP-1", 1073741840L, 1003, 4096, new byte[] {4});
  private static final EncodeTreeRequest.TargetNode TARGET = new EncodeTreeRequest.TargetNode("10.0.0.9", "dn9",
      "uuid-9", 9866, 9864, 0, 9867, "DISK", "DS-9");
  private static final Endpoint FROM = new Endpoint("10.0.0.2", 9877, new Site("10.0.0.2:9866", "/r2"));

  private static UpdateRoleRequest parityRole() {
    return new UpdateRoleRequest(42L, "stripe 3 of /a (version 5)", "p0@/r4", 65536, 4096, OLD, NEW,
        List.of(new UpdateRoleRequest.Input(7, 2, FROM)), List.of(new UpdateRoleRequest.Output(9,
            new int[][] {{1, 0, 0}, {3, 5, 7}})), new int[] {0, 11, 13}, OLD,
        new EncodeTreeRequest.ParityOutput(-1, NEW_PARITY, TARGET), 2, 512, null);
  }

  @Test
  void aRoleRoundTripsEveryField() throws IOException {
    UpdateRoleRequest r = parityRole();
    UpdateRoleRequest back = (UpdateRoleRequest) MessageKind.decode(r.toBytes(), null);
    assertEquals(r.toString(), back.toString());
    assertEquals(3, back.heldRows());
    assertEquals(r.inputs(), back.inputs());
    assertArrayEquals(r.outputs().get(0).rows(), back.outputs().get(0).rows());
    assertArrayEquals(r.parityDelta(), back.parityDelta());
    assertEquals(r.newParity().target(), back.newParity().target());
    assertEquals(NEW, back.newData());
    assertArrayEquals(r.toBytes(), back.toBytes());
  }

  @Test
  void aRoleWithEveryOldUnitABlockKeepsVersionOnesBytes() {
    byte[] b = parityRole().toBytes();
    assertEquals(UpdateRoleRequest.KIND, b[0]);
    assertEquals(1, b[1]);
    assertEquals(42L, java.nio.ByteBuffer.wrap(b, 2, 8).getLong(), "the update key follows the version byte");
  }

  @Test
  void aFillsZeroOldUnitsAreSaidExplicitlyInVersionTwoWhichAVersionOneParserRefuses() throws IOException {
    UpdateRoleRequest slot = new UpdateRoleRequest(42L, "stripe 3", "d3@/r1", 65536, 4096, null, NEW, List.of(),
        List.of(new UpdateRoleRequest.Output(9, new int[][] {{1}})), null, null, null, 2, 512, null, true, false);
    UpdateRoleRequest comingOn = new UpdateRoleRequest(42L, "stripe 3", "p3@/r2", 65536, 4096, null, null,
        List.of(new UpdateRoleRequest.Input(9, 1, FROM)), List.of(), new int[] {7}, null,
        new EncodeTreeRequest.ParityOutput(-1, NEW_PARITY, TARGET), 2, 512, OLD, false, true);
    for (UpdateRoleRequest r : List.of(slot, comingOn)) {
      byte[] b = r.toBytes();
      assertEquals(UpdateRoleRequest.VERSION_2, b[1]);
      UpdateRoleRequest back = UpdateRoleRequest.parse(b);
      assertEquals(r.oldDataZero(), back.oldDataZero());
      assertEquals(r.oldParityZero(), back.oldParityZero());
      assertEquals(1, back.heldRows());
      assertArrayEquals(b, back.toBytes());
      // A DataNode of version 1 only: the kind it knows, a version it does not, refused rather than misread.
      IOException e = assertThrows(IOException.class, () -> WireCodec.decode(b, "update role",
          in -> {
            WireCodec.requireKind(in, MessageKind.UPDATE_ROLE, UpdateRoleRequest.VERSION, "an update role");
            return null;
          }));
      assertTrue(e.getMessage().contains("not an update role of version 1 (kind 85, version 2)"), e.getMessage());
    }
    assertNull(comingOn.oldParity());
    assertEquals(List.of(OLD), comingOn.readTokens(), "fed by others only, it proves the stripe by a relay token");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new UpdateRoleRequest(1L, "s",
        "d3@/r1", 1024, 100, OLD, NEW, List.of(), List.of(new UpdateRoleRequest.Output(1, new int[][] {{1}})), null,
        null, null, 2, 512, null, true, false));
    assertEquals("bad update role d3@/r1 of s: a unit whose old content is zeros takes its new block and no old one",
        e.getMessage());
  }

  @Test
  void aRelayRoleReadsNoBlockOfItsOwnButCarriesAReadTokenOfItsStripe() throws IOException {
    UpdateRoleRequest relay = relay(OLD);
    UpdateRoleRequest back = UpdateRoleRequest.parse(relay.toBytes());
    assertNull(back.oldData());
    assertNull(back.parityDelta());
    assertEquals(1, back.heldRows());
    assertEquals(List.of(OLD), back.readTokens());
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> relay(null));
    assertEquals("bad update role relay@/r1 of stripe 1: a relay without a block token of its stripe", e.getMessage());
  }

  private static UpdateRoleRequest relay(BlockRef token) {
    return new UpdateRoleRequest(1L, "stripe 1", "relay@/r1", 1024, 100, null, null,
        List.of(new UpdateRoleRequest.Input(0, 1, FROM)), List.of(new UpdateRoleRequest.Output(1, new int[][] {{1}})),
        null, null, null, 2, 512, token);
  }

  @Test
  void aCombinationOverRowsTheRoleDoesNotHoldIsRefused() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new UpdateRoleRequest(1L, "s",
        "relay@/r1", 1024, 100, null, null, List.of(new UpdateRoleRequest.Input(0, 1, FROM)),
        List.of(new UpdateRoleRequest.Output(1, new int[][] {{1, 2}})), null, null, null, 2, 512, OLD));
    assertEquals("bad update role relay@/r1 of s: output transfer 1 combines 2 rows, the role holds 1",
        e.getMessage());
  }

  @Test
  void aFetchRoundTrips() throws IOException {
    UpdateFetchRequest f = new UpdateFetchRequest(42L, 7, 2, 65536, 1 << 20);
    assertEquals(f, MessageKind.decode(f.toBytes(), null));
    assertEquals(16, f.slices());
    assertEquals(1, f.toBytes()[1], "an unbound fetch keeps version 1's bytes");
    UpdateFetchRequest bound = new UpdateFetchRequest(42L, 7, 2, 65536, 1 << 20, 0x7a11e7L);
    assertEquals(bound, MessageKind.decode(bound.toBytes(), null));
    assertEquals(UpdateFetchRequest.VERSION_BOUND, bound.toBytes()[1]);
    assertEquals("fetch of transfer 7 (2 rows, 16 slices)", bound.toString(), "no key in what is logged");
  }

  @Test
  void everyTransferBoundToItsConsumerRoundTripsInVersionTwoAndNoKeyIsPrinted() throws IOException {
    UpdateRoleRequest r = new UpdateRoleRequest(42L, "stripe 3", "relay@/r1", 1024, 100, null, null,
        List.of(new UpdateRoleRequest.Input(0, 1, FROM, 0x1111L)),
        List.of(new UpdateRoleRequest.Output(1, new int[][] {{1}}, "10.0.0.7:9866", 0x2222L)), null, null, null, 2,
        512, OLD);
    byte[] b = r.toBytes();
    assertEquals(UpdateRoleRequest.VERSION_2, b[1]);
    UpdateRoleRequest back = UpdateRoleRequest.parse(b);
    assertEquals(r.inputs(), back.inputs());
    assertEquals("10.0.0.7:9866", back.outputs().get(0).consumer());
    assertEquals(0x2222L, back.outputs().get(0).key());
    assertArrayEquals(b, back.toBytes());
    String shown = back.inputs() + " " + back.outputs() + " " + back;
    assertTrue(!shown.contains("1111") && !shown.contains("2222") && !shown.contains("4369")
        && !shown.contains("8738"), shown);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new UpdateRoleRequest(1L, "s",
        "relay@/r1", 1024, 100, null, null, List.of(new UpdateRoleRequest.Input(0, 1, FROM)),
        List.of(new UpdateRoleRequest.Output(1, new int[][] {{1}}, "10.0.0.7:9866", 0x2222L)), null, null, null, 2,
        512, OLD));
    assertEquals("bad update role relay@/r1 of s: some transfers bound to their consumers and some not",
        e.getMessage());
  }

  @Test
  void aParityTheChangesDoNotTouchIsCarriedOverHoldingNoRowAndRoundTrips() throws IOException {
    UpdateRoleRequest carried = new UpdateRoleRequest(42L, "stripe 3", "p2@/r4", 65536, 4096, null, null, List.of(),
        List.of(), new int[0], OLD, new EncodeTreeRequest.ParityOutput(-1, NEW_PARITY, TARGET), 2, 512, null);
    UpdateRoleRequest back = UpdateRoleRequest.parse(carried.toBytes());
    assertEquals(0, back.heldRows());
    assertEquals(0, back.parityDelta().length);
    assertEquals(List.of(OLD), back.readTokens());
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new UpdateRoleRequest(1L, "s",
        "d0@/r1", 1024, 100, null, null, List.of(), List.of(), null, null, null, 2, 512, OLD));
    assertTrue(e.getMessage().endsWith("it holds 0 rows; 1..255 (units in a stripe), or none for a parity carried"
        + " over to a new length"), e.getMessage());
  }

  @Test
  void aNodeThatKnowsOnlyStepsRefusesBothKindsByName() {
    // Before these kinds a DataNode's router sent every unknown byte to the step parser.
    for (byte[] body : List.of(parityRole().toBytes(), new UpdateFetchRequest(1L, 0, 1, 1024, 1).toBytes())) {
      IOException e = assertThrows(IOException.class, () -> StepRequest.parse(body));
      assertTrue(e.getMessage().contains("step request of unknown kind"), e.getMessage());
    }
  }

  @Test
  void aRequestHoldingMoreRowsThanAStripeHasUnitsIsRefusedBeforeItsRowsAreRead() {
    // Two inputs of 254 rows each: 508 held rows, and an output would allocate a row that wide per row it lists.
    byte[] body = WireCodec.encode(out -> {
      out.writeByte(UpdateRoleRequest.KIND);
      out.writeByte(UpdateRoleRequest.VERSION);
      out.writeLong(1L);
      out.writeUTF("s");
      out.writeUTF("p0@/r1");
      out.writeInt(1024);
      out.writeLong(100);
      out.writeBoolean(false);
      out.writeBoolean(false);
      out.writeShort(2);
      for (int t = 0; t < 2; t++) {
        out.writeInt(t);
        out.writeShort(254);
        WireCodec.writeEndpoint(out, FROM);
      }
    });
    IOException e = assertThrows(IOException.class, () -> UpdateRoleRequest.parse(body));
    assertTrue(e.getMessage().contains("holds 508 rows; at most 255 (units in a stripe)"), e.getMessage());
  }

  @Test
  void outputsSendingMoreRowsThanAStripeHasUnitsAreRefused() {
    List<UpdateRoleRequest.Output> outputs = new java.util.ArrayList<>();
    for (int t = 0; t < 128; t++) {
      outputs.add(new UpdateRoleRequest.Output(t, new int[][] {{1}, {1}}));
    }
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new UpdateRoleRequest(1L, "s",
        "d0@/r1", 1024, 100, OLD, NEW, List.of(), outputs, null, null, null, 2, 512, null));
    assertEquals("bad update role d0@/r1 of s: its outputs send 256 rows; at most 255 (units in a stripe)",
        e.getMessage());
  }

  @Test
  void aChecksumHdfsDoesNotWriteOrOfMoreThan64KiBPerChunkIsRefused() {
    for (int[] bad : new int[][] {{7, 512}, {0, 512}, {2, 0}, {2, Integer.MAX_VALUE}}) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new UpdateRoleRequest(1L, "s",
          "d0@/r1", 1024, 100, OLD, NEW, List.of(), List.of(new UpdateRoleRequest.Output(1, new int[][] {{1}})),
          null, null, null, bad[0], bad[1], null));
      assertEquals("bad update role d0@/r1 of s: checksum type " + bad[0] + " with " + bad[1] + " bytes per checksum;"
          + " HDFS writes CRC32 (1) or CRC32C (2) over 1..65536 bytes", e.getMessage());
    }
  }

  @Test
  void aLengthOfMoreSlicesThanAnIntCountsOrPastTheNewParityIsRefused() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new UpdateRoleRequest(1L, "s",
        "d0@/r1", 1, Long.MAX_VALUE, OLD, NEW, List.of(), List.of(new UpdateRoleRequest.Output(1, new int[][] {{1}})),
        null, null, null, 2, 512, null));
    assertEquals("bad update role d0@/r1 of s: length " + Long.MAX_VALUE + " in slices of 1: more than 2147483647"
        + " slices", e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> new UpdateRoleRequest(1L, "s", "p0@/r4", 65536, 4097,
        OLD, NEW, List.of(new UpdateRoleRequest.Input(7, 2, FROM)), List.of(), new int[] {0, 11, 13}, OLD,
        new EncodeTreeRequest.ParityOutput(-1, NEW_PARITY, TARGET), 2, 512, null));
    assertTrue(e.getMessage().endsWith("length 4097 past its new parity block " + NEW_PARITY + " of 4096 bytes"),
        e.getMessage());
  }
}
