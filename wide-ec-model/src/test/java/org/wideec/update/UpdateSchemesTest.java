package org.wideec.update;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.wideec.code.Codes;
import org.wideec.code.LinearCode;
import org.wideec.placement.CombinedLocalityPlanner;
import org.wideec.placement.PlacementPlan;

class UpdateSchemesTest {
  /** RackCU Figures 3-4: RS(6,4), two changed data units in each of R1-R3, two parities in each of R4, R5. */
  static final String FIGURE_3_RACKS = "R1:d0,d1;R2:d2,d3;R3:d4,d5;R4:p0,p1;R5:p2,p3";

  static UpdatePattern figure3() {
    LinearCode code = Codes.fromSpec("rs:k=6,m=4");
    UpdatePattern layout = RackLayout.parse(code, FIGURE_3_RACKS);
    return layout.withChanged(RackLayout.dataUnits(code, "d0-d5"));
  }

  /** Azure-LRC(6,2,2): data d0-d5 in groups d0-d2 and d3-d5, global parities p0, p1 (units 6, 7), locals p2, p3. */
  static final int GROUP_0_LOCAL_PARITY = 8;

  /** Azure-LRC(6,2,2) on combined locality with group 0 (d0-d2) deleted, its local parity not dropped. */
  static UpdatePattern group0Emptied() {
    PlacementPlan placement = new CombinedLocalityPlanner().plan(Codes.pinnedFromSpec("azure-lrc:k=6,l=2,g=2"));
    return UpdatePattern.of(placement, 0, 1, 2).clearing(0, 1, 2);
  }

  /** Every scheme's plan for a pattern, CAU's collectors given explicitly as well. */
  static List<UpdatePlan> everyPlan(UpdatePattern p) {
    List<UpdatePlan> plans = new ArrayList<>();
    for (String name : UpdateScheme.NAMES) {
      plans.add(UpdateScheme.byName(name).plan(p));
    }
    plans.add(new RackCoordinatedUpdate(java.util.stream.IntStream.range(0, p.racks()).toArray()).plan(p));
    return plans;
  }

  @Test
  void noSchemeSendsAnythingForALocalParityTheUpdateDrops() {
    UpdatePattern p = group0Emptied().dropping(GROUP_0_LOCAL_PARITY);
    assertArrayEquals(new int[] {GROUP_0_LOCAL_PARITY}, p.droppedParities());
    assertArrayEquals(new int[] {9}, p.localParities());
    for (UpdatePlan plan : everyPlan(p)) {
      assertTrue(plan.transfers().stream().noneMatch(t -> t.to().unit() == GROUP_0_LOCAL_PARITY
          || Arrays.stream(t.parities()).anyMatch(q -> q == GROUP_0_LOCAL_PARITY)), plan.describe());
    }
  }

  @Test
  void droppingAParityLowersEverySchemesCountByExactlyTheChunksThatRenewedIt() {
    UpdatePattern renewing = group0Emptied();
    List<UpdatePlan> before = everyPlan(renewing);
    List<UpdatePlan> after = everyPlan(renewing.dropping(GROUP_0_LOCAL_PARITY));
    int fell = 0;
    for (int i = 0; i < before.size(); i++) {
      UpdatePlan b = before.get(i);
      List<Transfer> forIt = b.transfers().stream()
          .filter(t -> Arrays.equals(t.parities(), new int[] {GROUP_0_LOCAL_PARITY})).toList();
      int cross = forIt.stream().filter(Transfer::crossRack).mapToInt(Transfer::chunks).sum();
      int inside = forIt.stream().filter(t -> !t.crossRack()).mapToInt(Transfer::chunks).sum();
      assertEquals(b.crossRackChunks() - cross, after.get(i).crossRackChunks(), b.scheme());
      assertEquals(b.intraRackChunks() - inside, after.get(i).intraRackChunks(), b.scheme());
      List<Transfer> rest = new ArrayList<>(b.transfers());
      rest.removeAll(forIt);
      assertEquals(rest, after.get(i).transfers(), b.scheme());
      fell += cross;
    }
    assertTrue(fell > 0, "the dropped parity cost no cross-rack chunk under any scheme: the test shows nothing");
  }

  @Test
  void aPatternThatDropsNothingPlansAndPrintsAsBefore() {
    UpdatePattern p = figure3();
    UpdatePattern same = p.dropping();
    assertEquals(p.toString(), same.toString());
    List<UpdatePlan> before = everyPlan(p);
    List<UpdatePlan> after = everyPlan(same);
    for (int i = 0; i < before.size(); i++) {
      assertEquals(before.get(i).describe(), after.get(i).describe());
      assertEquals(before.get(i).toJson(), after.get(i).toJson());
    }
    assertEquals(8, new RackCu().plan(same).crossRackChunks());
    assertEquals(24, new BaselineUpdate().plan(same).crossRackChunks());
  }

  @Test
  void onlyAParityUnitCanBeDropped() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> figure3().dropping(3));
    assertEquals("rs:k=6,m=4: dropped unit 3 is not a parity unit (6..9)", e.getMessage());
  }

  @Test
  void figure3BaselineSendsEveryDeltaToEveryParity24Chunks() {
    assertEquals(24, new BaselineUpdate().plan(figure3()).crossRackChunks());
  }

  @Test
  void figure3CollectorsR2AndR4Cost10ChunksFourCollectingAndSixUpdating() {
    UpdatePattern p = figure3();
    UpdatePlan plan = new RackCoordinatedUpdate(RackLayout.collectors(p, "R1:R2,R3:R4")).plan(p);
    assertEquals(10, plan.crossRackChunks());
    assertEquals(4, plan.crossRackChunks(Transfer.Phase.DELTA_COLLECTING));
    assertEquals(6, plan.crossRackChunks(Transfer.Phase.PARITY_UPDATE));
    assertArrayEquals(new int[] {1, 3}, plan.collectorRacks());
  }

  @Test
  void figure4RackCuCollectsInR1AndSendsFourParityDeltas8Chunks() {
    UpdatePlan plan = new RackCu().plan(figure3());
    assertEquals(8, plan.crossRackChunks());
    assertArrayEquals(new int[] {0}, plan.collectorRacks());
    assertEquals(4, plan.crossRackChunks(Transfer.Phase.DELTA_COLLECTING));
    assertTrue(plan.transfers().stream().filter(t -> t.crossRack() && t.phase() == Transfer.Phase.PARITY_UPDATE)
        .allMatch(t -> t.kind() == Transfer.Kind.PARITY_DELTA));
  }

  @Test
  void figure3CauPaysMinOfChangedAndParitiesPerRackPairAndParixTwoChunksPerFirstUpdate() {
    assertEquals(3 * 2 * 2, new CauUpdate().plan(figure3()).crossRackChunks());
    assertEquals(6 * 4 * 2, new ParixUpdate().plan(figure3()).crossRackChunks());
    assertEquals(6 * 4, new ParixUpdate().plan(figure3(), UpdateHistory.of(0, 1, 2, 3, 4, 5)).crossRackChunks());
  }

  @Test
  void parityRackBecomesTheCollectorWhenItHoldsMoreParitiesThanAnyRackHasChanges() {
    // Three parities in R3 outnumber the single change per data rack (Algorithm 1, line 7).
    LinearCode code = Codes.fromSpec("rs:k=4,m=3");
    UpdatePattern p = RackLayout.parse(code, "R1:d0,d1;R2:d2,d3;R3:p0,p1,p2").withChanged(0, 2);
    UpdatePlan plan = new RackCu().plan(p);
    assertArrayEquals(new int[] {2}, plan.collectorRacks());
    assertEquals(2, plan.crossRackChunks());
  }

  @Test
  void rackCuMatchesTheBruteForceOptimumOverEveryCollectorChoiceOnRandomInstances() {
    Random rnd = new Random(20231121L);
    for (int trial = 0; trial < 300; trial++) {
      Instance in = Instance.random(rnd);
      UpdatePattern pattern = in.pattern();
      int best = bruteForce(in);
      assertEquals(best, new RackCu().plan(pattern).crossRackChunks(), "instance " + in);
      assertTrue(new CauUpdate().plan(pattern).crossRackChunks() >= best, "CAU beats the optimum on " + in);
      assertTrue(new BaselineUpdate().plan(pattern).crossRackChunks() >= best, "baseline beats the optimum on " + in);
    }
  }

  @Test
  void eq4CostOfAGivenCollectorChoiceEqualsThePlansCrossRackChunks() {
    Random rnd = new Random(7L);
    for (int trial = 0; trial < 200; trial++) {
      Instance in = Instance.random(rnd);
      int[] collectorOf = in.randomValidAssignment(rnd);
      UpdatePlan plan = new RackCoordinatedUpdate(collectorOf).plan(in.pattern());
      assertEquals(in.eq4(collectorOf), plan.crossRackChunks(), "instance " + in + " collectors " + Arrays.toString(collectorOf));
    }
  }

  @Test
  void aCollectorThatSendsItsOwnChangesElsewhereIsRefusedNamingTheRack() {
    UpdatePattern p = figure3();
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> new RackCoordinatedUpdate(new int[] {1, 0, 1, -1, -1}).plan(p));
    assertEquals("collector rack R2 has changed units of its own but sends them to R1", e.getMessage());
  }

  /**
   * The seed's optimum by exhaustion (§III-B): every assignment of data racks to collectors (a data rack that
   * collects keeps its own deltas), and for each collector and parity rack both the data-delta and the parity-delta
   * choice. The choices of different (collector, parity rack) pairs are independent, so taking the cheaper of the
   * two per pair is the exhaustive minimum over all combinations.
   */
  static int bruteForce(Instance in) {
    int racks = in.u.length;
    int[] senders = java.util.stream.IntStream.range(0, racks).filter(x -> in.u[x] > 0).toArray();
    int[] a = new int[racks];
    Arrays.fill(a, -1);
    int best = Integer.MAX_VALUE;
    int combos = (int) Math.pow(racks, senders.length);
    for (int code = 0; code < combos; code++) {
      int c = code;
      for (int s : senders) {
        a[s] = c % racks;
        c /= racks;
      }
      if (in.valid(a)) {
        best = Math.min(best, in.eq4(a));
      }
    }
    return best;
  }

  /** A stripe under the seed's assumptions: racks hold data or parity only, at most m units each. */
  record Instance(int k, int m, int[] rackOf, int[] changed, int[] u, int[] t) {
    /** A random instance small enough to enumerate (at most 50,000 collector assignments). */
    static Instance random(Random rnd) {
      while (true) {
        Instance in = draw(rnd);
        long senders = Arrays.stream(in.u).filter(x -> x > 0).count();
        if (Math.pow(in.u.length, senders) <= 50_000) {
          return in;
        }
      }
    }

    private static Instance draw(Random rnd) {
      int m = 2 + rnd.nextInt(3);
      int k = 2 + rnd.nextInt(9);
      int[] rackOf = new int[k + m];
      int rack = -1;
      int room = 0;
      for (int d = 0; d < k; d++) {
        if (room == 0) {
          rack++;
          room = 1 + rnd.nextInt(m);
        }
        rackOf[d] = rack;
        room--;
      }
      room = 0;
      for (int p = k; p < k + m; p++) {
        if (room == 0) {
          rack++;
          room = 1 + rnd.nextInt(m);
        }
        rackOf[p] = rack;
        room--;
      }
      int[] changed = java.util.stream.IntStream.range(0, k).filter(d -> rnd.nextInt(3) > 0).toArray();
      if (changed.length == 0) {
        changed = new int[] {rnd.nextInt(k)};
      }
      int[] u = new int[rack + 1];
      int[] t = new int[rack + 1];
      for (int d : changed) {
        u[rackOf[d]]++;
      }
      for (int p = k; p < k + m; p++) {
        t[rackOf[p]]++;
      }
      return new Instance(k, m, rackOf, changed, u, t);
    }

    UpdatePattern pattern() {
      LinearCode code = Codes.fromSpec("rs:k=" + k + ",m=" + m);
      return UpdatePattern.of(new PlacementPlan("test", code, rackOf), changed);
    }

    boolean valid(int[] a) {
      for (int x = 0; x < u.length; x++) {
        if (u[x] > 0 && u[a[x]] > 0 && a[a[x]] != a[x]) {
          return false;
        }
      }
      return true;
    }

    /** Eq. (4): deltas collected across racks, plus per collector and other parity rack min(l', t). */
    int eq4(int[] a) {
      int cost = 0;
      int[] held = new int[u.length];
      for (int x = 0; x < u.length; x++) {
        if (u[x] > 0) {
          held[a[x]] += u[x];
          cost += a[x] == x ? 0 : u[x];
        }
      }
      for (int c = 0; c < u.length; c++) {
        for (int y = 0; y < u.length; y++) {
          if (held[c] > 0 && t[y] > 0 && y != c) {
            cost += Math.min(held[c], t[y]);
          }
        }
      }
      return cost;
    }

    int[] randomValidAssignment(Random rnd) {
      int[] a = new int[u.length];
      while (true) {
        Arrays.fill(a, -1);
        for (int x = 0; x < u.length; x++) {
          if (u[x] > 0) {
            a[x] = rnd.nextInt(u.length);
          }
        }
        if (valid(a)) {
          return a;
        }
      }
    }

    @Override
    public String toString() {
      return "RS(" + k + "," + m + ") racks " + Arrays.toString(rackOf) + " changed " + Arrays.toString(changed);
    }
  }
}
