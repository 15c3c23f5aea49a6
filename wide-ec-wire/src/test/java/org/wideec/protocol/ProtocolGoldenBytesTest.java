package org.wideec.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.wideec.archive.encode.EncodePlan;
import org.wideec.topology.Site;
import org.wideec.code.Codes;
import org.wideec.code.LinearCode;
import org.wideec.repair.BlockRef;
import org.wideec.repair.LinkWeights;
import org.wideec.repair.RepairScheme;
import org.wideec.repair.StripeRepair;
import org.wideec.repair.UnitLocation;
import org.wideec.topology.Endpoint;

/**
 * The bytes between DataNodes (and from clients and the NameNode) are a format: a DataNode of the previous release
 * must read what this one sends during a rolling upgrade. One representative message of every kind on the slice
 * port is pinned here as hex, and must read back to the same bytes.
 */
class ProtocolGoldenBytesTest {
  private static final BlockRef UNIT = new BlockRef("BP-1", 1073741825L, 1001, 4096, new byte[] {1, 2, 3});
  private static final Endpoint UP = new Endpoint("10.0.0.2", 7000, new Site("10.0.0.2:9866", "/r1"));

  private static String hex(byte[] b) {
    return HexFormat.of().formatHex(b);
  }

  private static StepRequest upstream(int rows) {
    int[] c = new int[rows];
    for (int i = 0; i < rows; i++) {
      c[i] = 3 + i;
    }
    return new StepRequest(new BlockRef("BP-1", 1073741826L, 1001, 4096), c, 0, 4096, 1024, 0, 1, List.of(), false);
  }

  @Test
  void aOneRowStepIsKindZeroAndItsBytesArePinned() throws Exception {
    StepRequest req = new StepRequest(UNIT, 7, 512, 2048, 1024, 1, 2,
        List.of(new StepRequest.Upstream(UP, upstream(1))), false);
    assertPinned("00000442502d31000000004000000100000000000003e900000000000010000003010203070000000000000200000000"
        + "00000008000000040000000001000000020001000831302e302e302e3200001b58000d31302e302e302e323a39383636"
        + "00032f723100000442502d31000000004000000200000000000003e90000000000001000000003000000000000000000"
        + "000000000010000000040000000000000000010000", req.toBytes());
    assertEquals(req, StepRequest.parse(req.toBytes()));
  }

  @Test
  void aDigestIsKindOneAndItsBytesArePinned() throws Exception {
    StepRequest req = StepRequest.digestOf(UNIT, 1024);
    assertPinned("01000442502d31000000004000000100000000000003e900000000000010000003010203010000000000000000000000"
        + "00000010000000040000000000000000010000", req.toBytes());
    assertEquals(req, StepRequest.parse(req.toBytes()));
  }

  /**
   * A digest that may be composed from stored checksums differs from the read-back one only in its coefficient byte
   * (0, after the token): a helper that predates it reads the replica, as for any digest.
   */
  @Test
  void aStoredChecksumDigestIsKindOneWithCoefficientZero() throws Exception {
    StepRequest req = StepRequest.storedDigestOf(UNIT, 1024);
    assertPinned("01000442502d31000000004000000100000000000003e900000000000010000003010203000000000000000000000000"
        + "00000010000000040000000000000000010000", req.toBytes());
    StepRequest back = StepRequest.parse(req.toBytes());
    assertEquals(req, back);
    assertTrue(back.digest() && back.fromStoredChecksums());
    assertFalse(StepRequest.digestOf(UNIT, 1024).fromStoredChecksums(), "a read-back digest is read");
    assertFalse(req.range(0, 1024).fromStoredChecksums(), "only a whole replica's CRC is composed");
  }

  @Test
  void aMultiRowStepIsKindTwoAndItsBytesArePinned() throws Exception {
    StepRequest req = new StepRequest(UNIT, new int[] {9, 10}, 0, 4096, 1024, 0, 1,
        List.of(new StepRequest.Upstream(UP, upstream(2))), false);
    assertPinned("02000442502d31000000004000000100000000000003e90000000000001000000301020302090a000000000000000000"
        + "000000000010000000040000000000000000010001000831302e302e302e3200001b58000d31302e302e302e323a3938"
        + "363600032f723102000442502d31000000004000000200000000000003e9000000000000100000000203040000000000"
        + "00000000000000000010000000040000000000000000010000", req.toBytes());
    assertEquals(req, StepRequest.parse(req.toBytes()));
  }

  private static StripeRepair repair(int[] lost) {
    LinearCode code = Codes.pinnedFromSpec("azure-lrc:k=6,l=2,g=2");
    Map<Integer, UnitLocation> survivors = new LinkedHashMap<>();
    Map<Integer, BlockRef> blocks = new LinkedHashMap<>();
    for (int u : new int[] {2, 3, 6}) {
      survivors.put(u, new UnitLocation(u, new Site("10.0.0." + u + ":9866", "/r" + u)));
      blocks.put(u, new BlockRef("BP-1", 1073741900L + u, 1001, 4096, new byte[] {(byte) u}));
    }
    long[] lengths = new long[lost.length];
    java.util.Arrays.fill(lengths, 4096);
    return new StripeRepair("stripe 7 of /x", code, lost, lengths, survivors, blocks, Set.of(5),
        RepairScheme.PIPELINED, LinkWeights.UNIFORM, Comparator.reverseOrder());
  }

  private static Map<String, Endpoint> endpoints(StripeRepair r) {
    Map<String, Endpoint> eps = new LinkedHashMap<>();
    r.survivors().values().forEach(h -> eps.put(h.node(), new Endpoint("127.0.0.1", 5000 + h.unit(), h.site())));
    return eps;
  }

  @Test
  void aOneUnitRebuildIsKindThreeAndItsBytesArePinned() throws Exception {
    StripeRepair r = repair(new int[] {0});
    RebuildRequest req = new RebuildRequest(r, endpoints(r), new BlockRef("BP-1", 1073741900L, 1001, 4096,
        new byte[] {4, 5}), "DISK", "DS-1", 0xFFFFFFFEL);
    assertPinned("03000e7374726970652037206f66202f780015617a7572652d6c72633a6b3d362c6c3d322c673d320000000442502d31"
        + "000000004000004c00000000000003e900000000000010000002040500044449534b000444532d31fffffffe00010005"
        + "0003000600093132372e302e302e310000138e000d31302e302e302e363a3938363600032f7236000442502d31000000"
        + "004000005200000000000003e90000000000001000000106000300093132372e302e302e310000138b000d31302e302e"
        + "302e333a3938363600032f7233000442502d31000000004000004f00000000000003e900000000000010000001030002"
        + "00093132372e302e302e310000138a000d31302e302e302e323a3938363600032f7232000442502d3100000000400000"
        + "4e00000000000003e90000000000001000000102", req.toBytes());
    assertEquals(hex(req.toBytes()), hex(RebuildRequest.parse(req.toBytes(), RepairScheme.PIPELINED).toBytes()));
  }

  @Test
  void aJointRebuildIsKindFourAndItsBytesArePinned() throws Exception {
    StripeRepair r = repair(new int[] {0, 1});
    RebuildRequest.RemoteNode far = new RebuildRequest.RemoteNode("10.0.0.9", "dn9", "uuid-9", 9866, 9864, 0, 9867,
        new Endpoint("10.0.0.9", 7001, new Site("10.0.0.9:9866", "/r9")));
    RebuildRequest req = new RebuildRequest(r, endpoints(r), List.of(
        new RebuildRequest.Target(0, new BlockRef("BP-1", 1073741900L, 1001, 4096, new byte[] {9}), "DISK", "DS-a", 11,
            null),
        new RebuildRequest.Target(1, new BlockRef("BP-1", 1073741901L, 1001, 4096, new byte[] {8}), "SSD", "DS-b",
            0xFFFFFFFFL, far)));
    assertPinned("04000e7374726970652037206f66202f780015617a7572652d6c72633a6b3d362c6c3d322c673d320002000000044250"
        + "2d31000000004000004c00000000000003e9000000000000100000010900044449534b000444532d610000000b000001"
        + "000442502d31000000004000004d00000000000003e900000000000010000001080003535344000444532d62ffffffff"
        + "01000831302e302e302e390003646e390006757569642d390000268a00002688000000000000268b000831302e302e30"
        + "2e3900001b59000d31302e302e302e393a3938363600032f7239000100050003000600093132372e302e302e31000013"
        + "8e000d31302e302e302e363a3938363600032f7236000442502d31000000004000005200000000000003e90000000000"
        + "001000000106000300093132372e302e302e310000138b000d31302e302e302e333a3938363600032f7233000442502d"
        + "31000000004000004f00000000000003e90000000000001000000103000200093132372e302e302e310000138a000d31"
        + "302e302e302e323a3938363600032f7232000442502d31000000004000004e00000000000003e9000000000000100000"
        + "0102", req.toBytes());
    assertEquals(hex(req.toBytes()), hex(RebuildRequest.parse(req.toBytes(), RepairScheme.PIPELINED).toBytes()));
  }

  @Test
  void aRebuildOfAUnitWhoseCrcNobodyHoldsIsKindFiveAndItsBytesArePinned() throws Exception {
    StripeRepair r = repair(new int[] {0});
    RebuildRequest req = new RebuildRequest(r, endpoints(r), List.of(new RebuildRequest.Target(0,
        new BlockRef("BP-1", 1073741900L, 1001, 4096, new byte[] {4, 5}), "DISK", "DS-1", RebuildRequest.NO_CRC, null)));
    assertPinned("05000e7374726970652037206f66202f780015617a7572652d6c72633a6b3d362c6c3d322c673d3200010000000442502d"
        + "31000000004000004c00000000000003e900000000000010000002040500044449534b000444532d310000000000000100"
        + "050003000600093132372e302e302e310000138e000d31302e302e302e363a3938363600032f7236000442502d31000000"
        + "004000005200000000000003e90000000000001000000106000300093132372e302e302e310000138b000d31302e302e30"
        + "2e333a3938363600032f7233000442502d31000000004000004f00000000000003e9000000000000100000010300020009"
        + "3132372e302e302e310000138a000d31302e302e302e323a3938363600032f7232000442502d31000000004000004e0000"
        + "0000000003e90000000000001000000102", req.toBytes());
    RebuildRequest back = RebuildRequest.parse(req.toBytes(), RepairScheme.PIPELINED);
    assertEquals(RebuildRequest.NO_CRC, back.expectedCrc());
    assertEquals(req.targets(), back.targets());
    assertEquals(hex(req.toBytes()), hex(back.toBytes()));
    assertThrows(IllegalArgumentException.class, () -> new RebuildRequest(repair(new int[] {0, 1}), endpoints(r),
        List.of(new RebuildRequest.Target(0, new BlockRef("BP-1", 1073741900L, 1001, 4096, new byte[0]), "DISK", "DS-1",
            RebuildRequest.NO_CRC, null), new RebuildRequest.Target(1, new BlockRef("BP-1", 1073741901L, 1001, 4096,
            new byte[0]), "DISK", "DS-2", 7, null))), "units with and without a CRC32C in one order");
  }

  @Test
  void aRebuildAlongAPlannedRackChainIsKindSixAndItsBytesArePinned() throws Exception {
    StripeRepair r = repair(new int[] {0}).withRackChain(List.of("/r6", "/r2"));
    RebuildRequest req = new RebuildRequest(r, endpoints(r), List.of(new RebuildRequest.Target(0,
        new BlockRef("BP-1", 1073741900L, 1001, 4096, new byte[] {4, 5}), "DISK", "DS-1", RebuildRequest.NO_CRC, null)));
    assertPinned("06000e7374726970652037206f66202f780015617a7572652d6c72633a6b3d362c6c3d322c673d320100010000000442"
        + "502d31000000004000004c00000000000003e900000000000010000002040500044449534b000444532d310000000000"
        + "000100050003000600093132372e302e302e310000138e000d31302e302e302e363a3938363600032f7236000442502d"
        + "31000000004000005200000000000003e90000000000001000000106000300093132372e302e302e310000138b000d31"
        + "302e302e302e333a3938363600032f7233000442502d31000000004000004f00000000000003e9000000000000100000"
        + "0103000200093132372e302e302e310000138a000d31302e302e302e323a3938363600032f7232000442502d31000000"
        + "004000004e00000000000003e90000000000001000000102000200032f723600032f7232", req.toBytes());
    RebuildRequest back = RebuildRequest.parse(req.toBytes(), RepairScheme.RACK_AGGREGATED);
    assertEquals(List.of("/r6", "/r2"), back.repair().rackChain());
    assertEquals(req.targets(), back.targets());
    assertEquals(hex(req.toBytes()), hex(back.toBytes()));
    // With a known CRC32C the same kind carries it, flagged as checked.
    RebuildRequest checked = new RebuildRequest(r, endpoints(r), List.of(new RebuildRequest.Target(0,
        new BlockRef("BP-1", 1073741900L, 1001, 4096, new byte[] {4, 5}), "DISK", "DS-1", 0xFFFFFFFEL, null)));
    assertEquals(RebuildRequest.KIND_CHAINED, checked.toBytes()[0]);
    assertEquals(0xFFFFFFFEL, RebuildRequest.parse(checked.toBytes(), RepairScheme.RACK_AGGREGATED).expectedCrc());
    // Without a chain the order keeps the kind an older DataNode reads.
    assertEquals(RebuildRequest.KIND_UNCHECKED, new RebuildRequest(repair(new int[] {0}), endpoints(r), req.targets())
        .toBytes()[0]);
  }

  @Test
  void aRackChainNamingARackTwiceIsRefused() throws Exception {
    StripeRepair r = repair(new int[] {0}).withRackChain(List.of("/r6", "/r6"));
    RebuildRequest req = new RebuildRequest(r, endpoints(r), List.of(new RebuildRequest.Target(0,
        new BlockRef("BP-1", 1073741900L, 1001, 4096, new byte[0]), "DISK", "DS-1", RebuildRequest.NO_CRC, null)));
    java.io.IOException e = assertThrows(java.io.IOException.class,
        () -> RebuildRequest.parse(req.toBytes(), RepairScheme.RACK_AGGREGATED));
    assertEquals(true, e.getMessage().contains("rack /r6 twice"), e.getMessage());
  }

  @Test
  void anArchivedReadIsKind0x41AndItsBytesArePinned() throws Exception {
    ArchivedReadRequest req = new ArchivedReadRequest(16390, UNIT, 100, 2000, 1024);
    assertPinned("41010000000000004006000442502d31000000004000000100000000000003e900000000000010000003010203000000"
        + "000000006400000000000007d000000400", req.toBytes());
    assertEquals(req, ArchivedReadRequest.parse(req.toBytes()));
  }

  private static EncodeTreeRequest.ParityOutput output(int unit) {
    return new EncodeTreeRequest.ParityOutput(unit, new BlockRef("BP-1", 1073742000L + unit, 1002, 4096,
        new byte[] {6}), new EncodeTreeRequest.TargetNode("10.0.1." + unit, "host" + unit, "uuid-" + unit, 9866, 9864,
        0, 9867, "DISK", "DS-" + unit));
  }

  @Test
  void anEncodeTreeIsKind0x45AndItsBytesArePinned() throws Exception {
    Map<Integer, Site> holders = Map.of(0, new Site("10.0.0.1:9866", "/r1"), 1, new Site("10.0.0.2:9866", "/r2"));
    Map<Integer, Site> targets = Map.of(2, new Site("10.0.0.3:9866", "/r3"));
    EncodeTreeRequest req = new EncodeTreeRequest("stripe 3", "rs:k=2,m=1", EncodePlan.Shape.CHAIN, 65536, 0,
        new long[] {4096, 1000}, holders, targets, List.of(UP), Map.of(0, UNIT, 1, UNIT.withToken(new byte[0])),
        List.of(output(2)), 2, 512);
    assertPinned("450100087374726970652033000a72733a6b3d322c6d3d31010001000000000000000200000000000010000000000000"
        + "0003e800020000000d31302e302e302e313a3938363600032f72310001000d31302e302e302e323a3938363600032f72"
        + "3200010002000d31302e302e302e333a3938363600032f72330001000831302e302e302e3200001b58000d31302e302e"
        + "302e323a3938363600032f723100020000000442502d31000000004000000100000000000003e9000000000000100000"
        + "030102030001000442502d31000000004000000100000000000003e90000000000001000000000010002000442502d31"
        + "00000000400000b200000000000003ea0000000000001000000106000831302e302e312e320005686f73743200067575"
        + "69642d320000268a00002688000000000000268b00044449534b000444532d320000000200000200", req.toBytes());
    assertEquals(hex(req.toBytes()), hex(EncodeTreeRequest.parse(req.toBytes()).toBytes()));
    byte[] result = EncodeTreeRequest.resultBytes(List.of(new EncodeTreeRequest.Stored(2, 4096, 0xCAFEL)));
    assertPinned("000100020000000000001000000000000000cafe", result);
    assertEquals(EncodeTreeRequest.resultLength(1), result.length);
  }

  @Test
  void aPinOrderIsKind0x50AndItsBytesArePinned() throws Exception {
    PinRequest req = new PinRequest(List.of(UNIT, new BlockRef("BP-1", 1073741830L, 1005, 10)));
    assertPinned("500002000442502d31000000004000000100000000000003e900000000000010000003010203000442502d3100000000"
        + "4000000600000000000003ed000000000000000a0000", req.toBytes());
    assertEquals(req, PinRequest.parse(req.toBytes()));
    assertPinned("0004", PinRequest.answer(List.of(PinRequest.Outcome.PINNED, PinRequest.Outcome.FAILED)));
  }

  @Test
  void aRapidRaidPositionIsKind0x52AndItsBytesArePinned() throws Exception {
    RapidRaidStepRequest first = new RapidRaidStepRequest("o", 0, List.of(new RapidRaidStepRequest.Piece(
        new BlockRef("BP-1", 1, 2, 3000, new byte[] {7}), 5, 6)), 3000, 65536, null, true, null, 2, 512);
    RapidRaidStepRequest second = new RapidRaidStepRequest("o", 1, List.of(new RapidRaidStepRequest.Piece(
        new BlockRef("BP-1", 2, 2, 3000), 0, 9), new RapidRaidStepRequest.Piece(UNIT, 1, 2)), 3000, 65536,
        new RapidRaidStepRequest.Upstream(UP, first), false, output(1), 2, 512);
    assertPinned("520100016f000102000442502d31000000000000000200000000000000020000000000000bb800000009000442502d31"
        + "000000004000000100000000000003e90000000000001000000301020301020000000000000bb8000100000001000100"
        + "0442502d3100000000400000b100000000000003ea0000000000001000000106000831302e302e312e310005686f7374"
        + "310006757569642d310000268a00002688000000000000268b00044449534b000444532d310000000200000200010008"
        + "31302e302e302e3200001b58000d31302e302e302e323a3938363600032f7231520100016f000001000442502d310000"
        + "00000000000100000000000000020000000000000bb800010705060000000000000bb800010000010000000002000002"
        + "0000", second.toBytes());
    assertEquals(hex(second.toBytes()), hex(RapidRaidStepRequest.parse(second.toBytes()).toBytes()));
  }

  @Test
  void anUpdateRoleIsKind0x55VersionOneUnboundAndVersionTwoBoundOrWithZerosAndTheirBytesArePinned() throws Exception {
    BlockRef old = new BlockRef("BP-1", 1073741825L, 1001, 4096, new byte[] {1, 2});
    BlockRef parity = new BlockRef("BP-1", 1073741840L, 1003, 4096, new byte[] {4});
    EncodeTreeRequest.ParityOutput target = output(1);
    UpdateRoleRequest v1 = new UpdateRoleRequest(42L, "s", "p0@/r4", 65536, 4096, null, null,
        List.of(new UpdateRoleRequest.Input(7, 1, UP)), List.of(), new int[] {3}, old,
        new EncodeTreeRequest.ParityOutput(-1, parity, target.target()), 2, 512, null);
    assertPinned(V1_ROLE, v1.toBytes());
    assertEquals(hex(v1.toBytes()), hex(UpdateRoleRequest.parse(v1.toBytes()).toBytes()));
    UpdateRoleRequest v2 = new UpdateRoleRequest(42L, "s", "d3@/r1", 65536, 4096, null, old,
        List.of(new UpdateRoleRequest.Input(7, 1, UP, 0x1111L)),
        List.of(new UpdateRoleRequest.Output(9, new int[][] {{1, 5}}, "10.0.0.7:9866", 0x2222L)), null, null, null,
        2, 512, null, true, false);
    assertPinned(V2_ROLE, v2.toBytes());
    assertEquals(hex(v2.toBytes()), hex(UpdateRoleRequest.parse(v2.toBytes()).toBytes()));
  }

  @Test
  void anUpdateFetchIsKind0x56VersionOneUnboundAndVersionTwoBoundAndTheirBytesArePinned() throws Exception {
    UpdateFetchRequest v1 = new UpdateFetchRequest(42L, 7, 2, 65536, 4096);
    assertPinned(V1_FETCH, v1.toBytes());
    assertEquals(v1, UpdateFetchRequest.parse(v1.toBytes()));
    UpdateFetchRequest v2 = new UpdateFetchRequest(42L, 7, 2, 65536, 4096, 0x2222L);
    assertPinned(V2_FETCH, v2.toBytes());
    assertEquals(v2, UpdateFetchRequest.parse(v2.toBytes()));
  }

  /** Version 1 as the release before bound transfers wrote it (computed with that release's class). */
  private static final String V1_ROLE =
      "5501000000000000002a00017300067030402f723400010000000000000000100000000001000000070001000831302e"
      + "302e302e3200001b58000d31302e302e302e323a3938363600032f723100000103000442502d31000000004000000100"
      + "000000000003e9000000000000100000020102000442502d31000000004000001000000000000003eb00000000000010"
      + "00000104000831302e302e312e310005686f7374310006757569642d310000268a00002688000000000000268b000444"
      + "49534b000444532d310000000200000200";
  /** Version 2: flags (old data zeros), each input's key, each output's consumer and key. */
  private static final String V2_ROLE =
      "550201000000000000002a00017300066433402f72310001000000000000000010000001000442502d31000000004000"
      + "000100000000000003e90000000000001000000201020001000000070001000831302e302e302e3200001b58000d3130"
      + "2e302e302e323a3938363600032f72310000000000001111000100000009000d31302e302e302e373a39383636000000"
      + "000000222200010105000000000200000200";
  private static final String V1_FETCH = "5601000000000000002a000000070002000100000000000000001000";
  private static final String V2_FETCH = "5602000000000000002a0000000700020001000000000000000010000000000000002222";

  @Test
  void aCapsOrderIsKindCAndItsBytesArePinned() throws Exception {
    CapsRequest req = new CapsRequest(1_048_576, CapsRequest.UNCHANGED);
    assertPinned("43010000000000100000ffffffffffffffff", req.toBytes());
    assertEquals(req, CapsRequest.parse(req.toBytes()));
    assertPinned("00000000001000000000000000000000", CapsRequest.answer(1_048_576, 0));
  }

  private static void assertPinned(String golden, byte[] actual) {
    assertEquals(golden, hex(actual));
  }
}
