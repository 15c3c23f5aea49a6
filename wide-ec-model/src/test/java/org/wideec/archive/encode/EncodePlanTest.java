package org.wideec.archive.encode;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.wideec.code.Codes;
import org.wideec.code.LinearCode;
import org.wideec.code.LocalGroup;
import org.wideec.placement.PlacementPlan;
import org.wideec.topology.Site;

/** Encode plans (pure): who sends which rows where, and their exact cost. */
class EncodePlanTest {
  static final long MIB = 1 << 20;
  static final int SLICE = 64 * 1024;
  static final int FRAME = 4 << 20;

  private static long[] full(int k) {
    long[] l = new long[k];
    Arrays.fill(l, MIB);
    return l;
  }

  private static int dataRacks(EncodeStripe s, int[] units) {
    Set<String> racks = new TreeSet<>();
    for (int u : units) {
      racks.add(s.holders().get(u).rack());
    }
    return racks.size();
  }

  @Test
  void onlyPinnedSystematicCodesMayEncodeStoredData() {
    LinearCode unpinned = Codes.fromSpec("rs:k=20,m=4");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> new EncodeStripe("s1", unpinned, Map.of(), full(20), Map.of()));
    assertEquals("stripe s1: rs:k=20,m=4 is not a code of an on-disk format (its coefficients are not pinned, "
        + "code/CodeFormat): refusing to encode stored data with it", e.getMessage());
    LinearCode rapid = Codes.pinnedFromSpec("rapidraid:n=16,k=11");
    e = assertThrows(IllegalArgumentException.class, () -> new EncodeStripe("s2", rapid, Map.of(), full(11), Map.of()));
    assertTrue(e.getMessage().startsWith("stripe s2: rapidraid:n=16,k=11 is not systematic"), e.getMessage());
    EncodeStripe ok = EncodeLayouts.stripe("s3", "rs:k=6,m=3", full(6));
    Map<Integer, Site> noHolder = new HashMap<>(ok.holders());
    noHolder.remove(4);
    e = assertThrows(IllegalArgumentException.class,
        () -> new EncodeStripe("s3", ok.code(), noHolder, full(6), ok.targets()));
    assertEquals("stripe s3: data unit 4 (1048576 bytes) has no holder", e.getMessage());
    Map<Integer, Site> noTarget = new HashMap<>(ok.targets());
    noTarget.remove(7);
    e = assertThrows(IllegalArgumentException.class,
        () -> new EncodeStripe("s3", ok.code(), ok.holders(), full(6), noTarget));
    assertEquals("stripe s3: parity unit 7 (GLOBAL_PARITY) has no target", e.getMessage());
  }

  /**
   * RS(64,4) under combined locality: 4 units per rack, data in racks r0..r15, the 4 parities in r16. The chain
   * carries the 4 parity rows through every holder (one stream in, one out: 4 row-streams, where the classic
   * collector receives 64) and crosses each of the 16 rack boundaries on its way to r16 once: 16 x 4 units.
   */
  @Test
  void aChainOfRs64CarriesFourRowsThroughEveryHolder() {
    EncodeStripe s = EncodeLayouts.stripe("rs64", "rs:k=64,m=4", full(64));
    assertEquals(16, dataRacks(s, s.nonEmptyDataUnits()));
    EncodePlan classic = EncodePlanner.classic(s, SLICE, FRAME);
    EncodePlan chain = EncodePlanner.chain(s, EncodePlan.Shape.CHAIN, SLICE, FRAME);
    EncodePlan tree = EncodePlanner.chain(s, EncodePlan.Shape.RACK_TREE, SLICE, FRAME);

    assertEquals(64, classic.maxRowStreams());
    assertEquals(1, classic.depth());
    assertEquals(64 * MIB, classic.crossRackStreamBytes(), "every data unit crosses into r16 once");
    assertEquals(0, classic.crossRackDeliveryBytes(), "the other parities are in the collector's rack");

    assertEquals(1, chain.trees().size());
    assertArrayEquals(new int[] {64, 65, 66, 67}, chain.trees().get(0).rows());
    assertEquals(4, chain.maxRowStreams());
    assertEquals(64, chain.depth());
    assertEquals(16 * 4 * MIB, chain.crossRackBytes());
    assertEquals(3, chain.deliveries().size());
    assertEquals(3 * MIB, chain.deliveryBytes());
    assertEquals(0, chain.crossRackDeliveryBytes());
    assertEquals((64 - 16) * 4 * MIB, chain.inRackStreamBytes(), "the 48 hops inside racks");
    assertEquals(SLICE, chain.sliceBytes(), "4 rows of 64 KiB fit a 4 MiB frame");

    // Rack heads join: 4 steps in the first rack, then the heads of the 15 others.
    assertEquals(4 + 15, tree.depth());
    assertEquals(8, tree.maxRowStreams(), "a rack head receives its rack's stream and the previous head's");
    assertEquals(chain.crossRackBytes(), tree.crossRackBytes());
    // A 26 MB/s node link: classic waits for 64 units into one node, the chain for 4 (8 through a rack head).
    long rate = 26_000_000;
    assertEquals(64.0 * MIB / rate, classic.busiestLinkSeconds(rate, 0), 1e-9);
    assertEquals(4.0 * MIB / rate, chain.busiestLinkSeconds(rate, 0), 1e-9);
    assertEquals(8.0 * MIB / rate, tree.busiestLinkSeconds(rate, 0), 1e-9);
    // Rack uplinks (one link each for what leaves and enters a rack): the classic collector's rack takes in 64 units;
    // a rack in the chain's middle takes in 4 rows and sends 4 on.
    long uplink = rate / 10;
    assertEquals(64.0 * MIB / uplink, classic.busiestLinkSeconds(0, uplink), 1e-9);
    assertEquals(8.0 * MIB / uplink, chain.busiestLinkSeconds(0, uplink), 1e-9);
    assertEquals(8.0 * MIB / uplink, chain.busiestLinkSeconds(rate, uplink), 1e-9);
  }

  /**
   * Azure-LRC(64,4,4) under combined locality (f = 5): each group of 16 data units and its local parity spans racks of
   * 5, 5, 5 and 2 units (the last holding data unit 15 + 16j and the local parity); the 4 global parities have a rack
   * of their own. The global tree carries 4 rows across the 16 data racks into the global rack: 16 x 4 units. Each
   * local parity's row is zero outside its group, so it has a tree of its own collected at its target, in the group's
   * last rack: 3 boundaries, 1 row each. Total 64 + 4 x 3 = 76 units; the local rows never leave their group's racks.
   */
  @Test
  void azureLrcLocalParitiesAreFinishedInsideTheirGroupsRacks() {
    EncodeStripe s = EncodeLayouts.stripe("lrc64", "azure-lrc:k=64,l=4,g=4", full(64));
    LinearCode code = s.code();
    EncodePlan chain = EncodePlanner.chain(s, EncodePlan.Shape.CHAIN, SLICE, FRAME);
    assertEquals(5, chain.trees().size());
    assertArrayEquals(new int[] {64, 65, 66, 67}, chain.trees().get(0).rows());
    assertEquals(64, chain.trees().get(0).steps().size());
    for (int j = 0; j < 4; j++) {
      EncodePlan.Tree t = chain.trees().get(1 + j);
      LocalGroup g = code.localGroups().get(j);
      assertArrayEquals(new int[] {g.localParity()}, t.rows());
      assertEquals(s.targets().get(g.localParity()), t.collector(), "finished at its own target: no delivery");
      int[] groupData = Arrays.stream(g.members()).filter(u -> u < code.k()).toArray();
      assertArrayEquals(groupData, t.steps().stream().mapToInt(EncodePlan.Step::unit).sorted().toArray());
      Set<String> groupRacks = new TreeSet<>();
      Arrays.stream(g.members()).forEach(u -> groupRacks.add(("r" + EncodeLayouts.placement(code).rackOf(u))));
      for (int i = 0; i < t.steps().size(); i++) {
        assertTrue(groupRacks.contains(t.downstreamOf(i).rack()), "local row of group " + j + " stays in its racks");
      }
      assertEquals(4, dataRacks(s, groupData));
    }
    assertEquals(3, chain.deliveries().size(), "the global collector sends the other 3 globals within its rack");
    assertEquals((16 * 4 + 4 * 3) * MIB, chain.crossRackBytes());
    assertEquals(0, chain.crossRackDeliveryBytes());
    assertEquals(5, chain.maxRowStreams(), "a holder sends 4 global rows and its group's local row");

    // Classic: collected in the global rack (64 units in, 4 local parities out) rather than beside a local parity
    // (63 in, 3 locals and 4 globals out).
    EncodePlan classic = EncodePlanner.classic(s, SLICE, FRAME);
    assertEquals("r" + EncodeLayouts.placement(code).rackOf(64), classic.trees().get(0).collector().rack());
    assertEquals((64 + 4) * MIB, classic.crossRackBytes());
    assertEquals(64, classic.maxRowStreams());
  }

  /**
   * A chain that reads in a core rack (EAR, as the archiver's {@code auto} grouping chooses when it costs less across
   * racks): Azure-LRC(12,2,2)'s data on the four nodes of one rack, three units each, unit u on node u mod 4, the global
   * parities and the first local one written in that rack, the second local one in another. Each tree enters and leaves
   * each node once however many of its units the node holds, so a node sends each of its trees' rows once: in unit
   * order the sum went back and forth between the four nodes, a stream per unit.
   */
  @Test
  void aChainVisitsEachNodeOnceHoweverManyOfItsUnitsTheNodeHolds() {
    LinearCode code = Codes.pinnedFromSpec("azure-lrc:k=12,l=2,g=2");
    Map<Integer, Site> holders = new HashMap<>();
    for (int u = 0; u < 12; u++) {
      holders.put(u, new Site("n" + u % 4, "core"));
    }
    Map<Integer, Site> targets = Map.of(12, new Site("n0", "core"), 13, new Site("n1", "core"),
        14, new Site("n2", "core"), 15, new Site("p", "other"));
    EncodeStripe s = EncodeStripe.archival("ear", code, holders, full(12), targets);
    EncodePlan chain = EncodePlanner.chain(s, EncodePlan.Shape.CHAIN, SLICE, FRAME);
    assertEquals(3, chain.trees().size());
    for (EncodePlan.Tree t : chain.trees()) {
      List<String> visits = new java.util.ArrayList<>();
      for (int i = 0; i < t.steps().size(); i++) {
        String node = t.steps().get(i).site().node();
        if (visits.isEmpty() || !visits.get(visits.size() - 1).equals(node)) {
          visits.add(node);
        }
        String next = t.downstreamOf(i).node();
        assertTrue(next.equals(node) || i == t.steps().size() - 1 || !t.steps().get(i + 1).site().node().equals(node),
            "a node's units follow one another");
      }
      assertEquals(Set.copyOf(visits).size(), visits.size(), "tree " + Arrays.toString(t.rows()) + " visits " + visits);
      if (holders.containsValue(t.collector())) {
        assertEquals(t.collector().node(), visits.get(visits.size() - 1), "the collector's node last");
      }
    }
    // n0..n3 each send the global tree's 2 rows at most once and each local tree's row at most once.
    for (EncodePlan.NodeLoad l : chain.nodeLoads().values()) {
      assertTrue(l.rowsOut() <= 4 && l.streamsOut() <= 3, l.toString());
    }
    assertEquals(MIB, chain.crossRackBytes(), "only the second local row leaves the rack");
  }

  /**
   * UniLRC §3.2 Step 4: a local parity is the XOR of its group's data and its global parity, so its row spans all the
   * data; it rides with the global rows: one tree of 6 + 6 rows.
   */
  @Test
  void uniLrcLocalParitiesRideWithTheGlobalRows() {
    EncodeStripe s = EncodeLayouts.stripe("uni", "unilrc:alpha=1,z=6", full(30));
    EncodePlan chain = EncodePlanner.chain(s, EncodePlan.Shape.CHAIN, SLICE, FRAME);
    assertEquals(1, chain.trees().size());
    assertEquals(12, chain.trees().get(0).rows().length);
    assertEquals(12, chain.maxRowStreams());
    assertEquals(SLICE, chain.sliceBytes(), "12 rows of 64 KiB fit a 4 MiB frame");
  }

  @Test
  void aFrameOfEveryRowBoundsTheSlice() {
    EncodeStripe s = EncodeLayouts.stripe("rs64", "rs:k=64,m=4", full(64));
    assertEquals(256 * 1024, EncodePlanner.chain(s, EncodePlan.Shape.CHAIN, 1 << 20, 1 << 20).sliceBytes());
    assertEquals(1 << 20, EncodePlanner.classic(s, 1 << 20, 1 << 20).sliceBytes());
    assertEquals(1024, EncodePlanner.chain(s, EncodePlan.Shape.CHAIN, 1 << 20, 4 * 1024 + 100).sliceBytes());
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> EncodePlanner.chain(s, EncodePlan.Shape.CHAIN, 1 << 20, 2000));
    assertEquals("stripe rs64: 4 rows of at least 512-byte slices (asked for 1048576) do not fit frames of 2000 bytes "
        + "(wide-ec.transport.max-frame.bytes)", e.getMessage());
  }

  @Test
  void paddingUnitsAreNeverReadAndAnEmptyGroupsLocalParityIsAllZeros() {
    long[] lengths = new long[12];
    Arrays.fill(lengths, 0, 5, MIB); // the short last stripe of a directory: group 2 (units 6..11) is all padding
    EncodeStripe s = EncodeLayouts.stripe("short", "azure-lrc:k=12,l=2,g=2", lengths);
    EncodePlan chain = EncodePlanner.chain(s, EncodePlan.Shape.CHAIN, SLICE, FRAME);
    List<Integer> read = chain.trees().stream().flatMap(t -> t.steps().stream()).map(EncodePlan.Step::unit).toList();
    assertTrue(read.stream().allMatch(u -> u < 5), "only units with bytes are read: " + read);
    EncodePlan.Tree empty = chain.trees().get(2);
    assertEquals(List.of(), empty.steps(), "group 2's local parity: no step, its collector writes zeros");
    EncodePlan classic = EncodePlanner.classic(s, SLICE, FRAME);
    assertEquals(5, classic.trees().get(0).steps().size());
  }

  @Test
  void describeNamesEveryStepDeliveryAndCost() {
    EncodeStripe s = EncodeLayouts.stripe("small", "rs:k=6,m=3", full(6));
    PlacementPlan p = EncodeLayouts.placement(s.code());
    String text = EncodePlanner.chain(s, EncodePlan.Shape.CHAIN, SLICE, FRAME).describe();
    assertTrue(text.startsWith("encode plan of stripe small (rs:k=6,m=3): chain encoder, chain shape, 6 data units, "
        + "parities of 1048576 bytes, slices of 65536 bytes\n"), text);
    assertTrue(text.contains("tree 0: parities [6, 7, 8] collected at "), text);
    assertTrue(text.contains("  unit 0 at n0 (r" + p.rackOf(0) + ") x [" + String.join(", ",
        Arrays.stream(new int[] {6, 7, 8}).mapToObj(r -> "" + s.code().generator().get(r, 0)).toList()) + "] -> "), text);
    assertTrue(text.contains("deliver parity "), text);
    assertTrue(text.contains("busiest node carries 3 row-streams; deepest request nests 6\n"), text);
  }
}
