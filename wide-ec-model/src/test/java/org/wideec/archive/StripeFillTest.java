package org.wideec.archive;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.wideec.code.Codes;
import org.wideec.code.LinearCode;
import org.wideec.topology.Site;
import org.wideec.topology.Topology;

/** Which new blocks go into which virtual slots of open stripes, and the parity update each fill is. */
class StripeFillTest {
  static final String LRC = "azure-lrc:k=6,l=2,g=2"; // data 0-5 (groups 0-2 and 3-5), globals 6-7, locals 8-9
  static final long BLOCK = 4096;

  /** Six racks of three nodes, n&lt;r&gt;-&lt;i&gt; in /r&lt;r&gt;. */
  static Topology topology() {
    Map<String, List<String>> byRack = new TreeMap<>();
    for (int r = 0; r < 6; r++) {
      for (int i = 0; i < 3; i++) {
        byRack.computeIfAbsent("/r" + r, x -> new ArrayList<>()).add("n" + r + "-" + i);
      }
    }
    return Topology.of(byRack);
  }

  /**
   * A trimmed short stripe: data units 0-2 stored (group 0), 3-5 virtual, so local parity 9 is virtual too; units in
   * racks r0 (0, 1), r1 (2, 8), r2 (6), r3 (7).
   */
  static ArchivedStripe openStripe(long id) {
    LinearCode code = Codes.pinnedFromSpec(LRC);
    List<StripeMember> m = new ArrayList<>();
    m.add(StripeMember.data(100, 5000, 1, BLOCK, "n0-0", "/r0").withCrc(1));
    m.add(StripeMember.data(101, 5001, 1, BLOCK, "n0-1", "/r0").withCrc(2));
    m.add(StripeMember.data(102, 5002, 1, 1000, "n1-0", "/r1").withCrc(3));
    for (int u = 3; u < 6; u++) {
      m.add(StripeMember.padding(code.role(u)));
    }
    m.add(new StripeMember(code.role(6), false, 206, 6006, 1, BLOCK, 6, "n2-0", "/r2"));
    m.add(new StripeMember(code.role(7), false, 207, 6007, 1, BLOCK, 7, "n3-0", "/r3"));
    m.add(new StripeMember(code.role(8), false, 208, 6008, 1, BLOCK, 8, "n1-1", "/r1"));
    m.add(StripeMember.padding(code.role(9)));
    return new ArchivedStripe(id, LRC, 1, StripeState.TRIMMED, "/.wideec/parity/9/" + id, 300 + id, m);
  }

  static SourceFile file(String path, long inode, long[] lengths, String... holders) {
    List<SourceFile.Block> blocks = new ArrayList<>();
    long total = 0;
    for (int i = 0; i < lengths.length; i++) {
      List<Site> at = new ArrayList<>();
      for (String h : holders) {
        at.add(new Site(h, "/r" + h.charAt(1)));
      }
      blocks.add(new SourceFile.Block(inode * 10 + i, 2, lengths[i], at));
      total += lengths[i];
    }
    return new SourceFile(path, inode, total, BLOCK, blocks);
  }

  @Test
  void oneNewBlockTakesTheLowestSlotOnAReplicaInAnEmptyRackAndBringsOnItsGroupsLocalParity() {
    SourceFile f = file("/d/new", 400, new long[] {3000}, "n5-2", "n0-2", "n1-2");
    StripeFill fill = StripeFill.plan(List.of(openStripe(0)), List.of(f), topology());
    assertEquals(List.of(f), fill.filled());
    assertEquals(Map.of(), fill.left());
    StripeMember slot = fill.slotsOf(0).get(3);
    assertEquals(StripeMember.data(400, 4000, 2, 3000, "n5-2", "/r5"), slot,
        "an empty rack, and of the empty racks r4 and r5 the one holding a replica: no move across racks");
    assertEquals(List.of(9), List.copyOf(fill.paritiesComingOn(0).keySet()));
    StripeMember parity = fill.paritiesComingOn(0).get(9);
    assertEquals("/r4", parity.plannedRack(), "the last rack holding none of the stripe's units");

    StripeUpdate up = StripeUpdate.filling(openStripe(0), fill.slotsOf(0), fill.paritiesComingOn(0));
    assertTrue(up.fills());
    assertArrayEquals(new int[] {3}, up.changedUnits());
    assertArrayEquals(new int[0], up.removedUnits());
    assertArrayEquals(new int[] {6, 7, 9}, up.rewrittenParities(), "the globals and the parity coming on, not 8");
    assertEquals(BLOCK, up.nextUnitLength());
  }

  @Test
  void theFilledStripeIsCommittedAgainWithEveryRacksLossStillDecodable() {
    SourceFile f = file("/d/new", 400, new long[] {BLOCK, 10}, "n0-2");
    StripeFill fill = StripeFill.plan(List.of(openStripe(0)), List.of(f), topology());
    StripeUpdate up = StripeUpdate.filling(openStripe(0), fill.slotsOf(0), fill.paritiesComingOn(0));
    Map<Integer, StripeMember> written = new TreeMap<>();
    for (int u : up.rewrittenParities()) {
      StripeMember p = up.after(u);
      written.put(u, new StripeMember(p.role(), false, 900 + u, 9000 + u, 1, BLOCK, 1, p.plannedNode(),
          p.plannedRack()));
    }
    for (int u : up.changedUnits()) {
      written.put(u, up.after(u).withCrc(u));
    }
    ArchivedStripe next = up.next(written);
    assertEquals(StripeState.COMMITTED, next.state(), "the new blocks are not trimmed yet");
    assertEquals(400, next.member(3).inodeId());
    assertEquals(400, next.member(4).inodeId());
    Map<String, List<Integer>> byRack = new LinkedHashMap<>();
    for (int u : next.storedUnits()) {
      byRack.computeIfAbsent(next.member(u).plannedRack(), r -> new ArrayList<>()).add(u);
    }
    for (Map.Entry<String, List<Integer>> e : byRack.entrySet()) {
      assertTrue(next.code().isDecodable(e.getValue().stream().mapToInt(Integer::intValue).toArray()),
          "the loss of " + e.getKey() + " " + e.getValue());
    }
  }

  @Test
  void aFileWhoseBlocksDoNotAllFitIsLeftWholeAndASmallerOneAfterItStillFills() {
    SourceFile big = file("/d/a-big", 400, new long[] {BLOCK, BLOCK, BLOCK, BLOCK}, "n0-2");
    SourceFile small = file("/d/b-small", 401, new long[] {BLOCK, 5}, "n0-2");
    StripeFill fill = StripeFill.plan(List.of(openStripe(0)), List.of(big, small), topology());
    assertEquals(List.of(small), fill.filled());
    assertEquals(Map.of("/d/a-big", "the stripes' open slots are taken (4 blocks needed)"), fill.left());
    assertEquals(List.of(3, 4), List.copyOf(fill.slotsOf(0).keySet()));
  }

  @Test
  void blocksOfOneFileMaySpanTwoOpenStripes() {
    SourceFile f = file("/d/f", 400, new long[] {BLOCK, BLOCK, BLOCK, BLOCK, 7}, "n0-2");
    StripeFill fill = StripeFill.plan(List.of(openStripe(0), openStripe(1)), List.of(f), topology());
    assertEquals(List.of(3, 4, 5), List.copyOf(fill.slotsOf(0).keySet()));
    assertEquals(List.of(3, 4), List.copyOf(fill.slotsOf(1).keySet()));
    assertEquals(4004, fill.slotsOf(1).get(4).blockId());
  }

  @Test
  void fillingRefusesAStoredUnitAndAMissingParity() {
    ArchivedStripe s = openStripe(0);
    StripeMember m = StripeMember.data(400, 4000, 2, 10, "n5-0", "/r5");
    IllegalArgumentException stored = assertThrows(IllegalArgumentException.class,
        () -> StripeUpdate.filling(s, Map.of(1, m), Map.of()));
    assertTrue(stored.getMessage().contains("only a virtual data unit takes a new stored data block"),
        stored.getMessage());
    IllegalArgumentException parity = assertThrows(IllegalArgumentException.class,
        () -> StripeUpdate.filling(s, Map.of(3, m), Map.of()));
    assertEquals("stripe 0: the slots [3] make virtual parities [9] non-zero, planned members given for []",
        parity.getMessage());
  }
}
