package org.wideec.repair;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Predicate;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.RepetitionInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.wideec.code.Codes;
import org.wideec.code.LinearCode;
import org.wideec.coder.ErasureCoder;
import org.wideec.placement.CombinedLocalityPlanner;
import org.wideec.placement.FlatPlanner;
import org.wideec.placement.PlacementPlan;
import org.wideec.topology.Site;

class RepairPlanningTest {

  /** Units placed per the plan, node "n{u}" in rack "r{rack}". */
  static Map<Integer, UnitLocation> locations(PlacementPlan plan, int lost) {
    Map<Integer, UnitLocation> m = new HashMap<>();
    for (int u = 0; u < plan.code().n(); u++) {
      if (u != lost) {
        m.put(u, new UnitLocation(u, new Site("n" + u, "r" + plan.rackOf(u))));
      }
    }
    return m;
  }

  static byte[][] codeword(LinearCode code, int len, Random r) {
    byte[][] data = new byte[code.k()][len];
    for (byte[] d : data) {
      r.nextBytes(d);
    }
    return encode(code, data);
  }

  /** All n units of the codeword whose data units are data[0..k). */
  static byte[][] encode(LinearCode code, byte[][] data) {
    int len = data[0].length;
    ErasureCoder coder = ErasureCoder.java(code);
    java.nio.ByteBuffer[] in = new java.nio.ByteBuffer[code.k()];
    for (int i = 0; i < in.length; i++) {
      in[i] = java.nio.ByteBuffer.wrap(data[i]);
    }
    java.nio.ByteBuffer[] out = new java.nio.ByteBuffer[coder.encodedUnits().length];
    for (int i = 0; i < out.length; i++) {
      out[i] = java.nio.ByteBuffer.allocate(len);
    }
    coder.encode(in, out);
    byte[][] units = new byte[code.n()][];
    int[] enc = coder.encodedUnits();
    for (int i = 0; i < enc.length; i++) {
      units[enc[i]] = out[i].array();
    }
    for (int u = 0; u < code.k(); u++) {
      if (units[u] == null) {
        units[u] = data[u];
      }
    }
    return units;
  }

  @ParameterizedTest
  @EnumSource(RepairScheme.class)
  void everySchemeComputesTheLostUnit(RepairScheme scheme) {
    Random r = new Random(scheme.ordinal());
    for (String spec : new String[] {"rs:k=10,m=4", "azure-lrc:k=12,l=2,g=2", "azure-lrc:k=20,r=5,g=2", "unilrc:alpha=1,z=4"}) {
      LinearCode code = Codes.fromSpec(spec);
      PlacementPlan plan = code.localGroups().isEmpty() ? new FlatPlanner().plan(code) : new CombinedLocalityPlanner().plan(code);
      byte[][] units = codeword(code, 777, r);
      for (int lost : new int[] {0, code.k() - 1, code.n() - 1}) {
        LinkWeights w = (a, b) -> (a.hashCode() * 31 + b.hashCode() & 0xff) / 16.0;
        RepairGraph g = SingleUnitRepairPlanner.plan(scheme, code, lost, locations(plan, lost), "req", "r" + plan.rackOf(lost),
            w, Comparator.naturalOrder());
        byte[][] visible = units.clone();
        visible[lost] = null;
        if (scheme == RepairScheme.CYCLIC) {
          List<RepairGraph> rotations = SingleUnitRepairPlanner.cyclic(g);
          assertEquals(Math.max(1, g.helpers() - 1), rotations.size());
          assertArrayEquals(units[lost], RepairSimulation.runCyclic(rotations, visible, 64), spec + " lost " + lost);
        } else {
          assertArrayEquals(units[lost], RepairSimulation.run(g, visible), spec + " " + scheme + " lost " + lost);
        }
        long helperRacks = g.steps().stream().map(st -> st.helper().rack()).distinct().count();
        assertEquals(scheme == RepairScheme.CONVENTIONAL ? g.helpers() : scheme == RepairScheme.RACK_STAR
            ? (int) helperRacks : 1, g.maxFanIn());
      }
    }
  }

  @Test
  void rackAggregatedRepairUnderCombinedLocalitySendsRPlusOneOverFMinusOneChunksAcrossRacks() {
    for (String spec : new String[] {"azure-lrc:k=20,r=5,g=2", "azure-lrc:k=12,l=2,g=2", "azure-lrc:k=128,r=27,g=3"}) {
      LinearCode code = Codes.fromSpec(spec);
      PlacementPlan plan = new CombinedLocalityPlanner().plan(code);
      int f = plan.maxUnitsPerRack();
      for (int lost = 0; lost < code.k(); lost++) {
        RepairGraph g = SingleUnitRepairPlanner.plan(RepairScheme.RACK_AGGREGATED, code, lost, locations(plan, lost),
            "req", "r" + plan.rackOf(lost), LinkWeights.UNIFORM, Comparator.naturalOrder());
        int groupSize = code.repairPlan(lost).cost() + 1;
        int racksOfGroup = (int) java.util.Arrays.stream(code.groupsOf(lost).get(0).members())
            .map(plan::rackOf).distinct().count();
        assertEquals(racksOfGroup - 1, g.crossRackTransfers(), spec + " unit " + lost);
        if (groupSize % f == 0) {
          assertEquals(groupSize / f - 1, g.crossRackTransfers(), spec + ": ECWide's (r+1)/f - 1");
        }
        // The same helpers in unit order cross racks more often (or as often) than grouped by rack.
        RepairGraph chain = SingleUnitRepairPlanner.plan(RepairScheme.PIPELINED, code, lost, locations(plan, lost),
            "req", "r" + plan.rackOf(lost), LinkWeights.UNIFORM, Comparator.naturalOrder());
        assertTrue(g.crossRackTransfers() <= chain.crossRackTransfers());
      }
    }
  }

  @Test
  void aRackStarSendsOnePartialSumPerRackStraightToTheRequestorAndNoneFromRackToRack() {
    LinearCode code = Codes.fromSpec("azure-lrc:k=12,l=2,g=2");
    PlacementPlan plan = new CombinedLocalityPlanner().plan(code);
    for (int lost = 0; lost < code.k(); lost++) {
      Map<Integer, UnitLocation> at = locations(plan, lost);
      RepairGraph star = SingleUnitRepairPlanner.plan(RepairScheme.RACK_STAR, code, lost, at, "client", "elsewhere",
          LinkWeights.UNIFORM, Comparator.naturalOrder());
      RepairGraph chain = SingleUnitRepairPlanner.plan(RepairScheme.RACK_AGGREGATED, code, lost, at, "client",
          "elsewhere", LinkWeights.UNIFORM, Comparator.naturalOrder());
      assertArrayEquals(chain.helperUnits(), star.helperUnits(), "the same helpers in the same order, unit " + lost);
      Map<String, Integer> toRequestor = new HashMap<>();
      for (RepairStep st : star.steps()) {
        if (st.next() == RepairStep.REQUESTOR) {
          toRequestor.merge(st.helper().rack(), 1, Integer::sum);
        } else {
          assertEquals(st.helper().rack(), star.steps().get(st.next()).helper().rack(),
              "unit " + lost + ": a step sends to a helper only inside its rack");
        }
      }
      long racks = star.steps().stream().map(st -> st.helper().rack()).distinct().count();
      assertEquals(racks, toRequestor.size(), "unit " + lost + ": every helper rack sends to the requestor");
      assertTrue(toRequestor.values().stream().allMatch(n -> n == 1), "one partial sum per rack: " + toRequestor);
      assertEquals(chain.crossRackTransfers(), star.crossRackTransfers(), "as many cross-rack chunks as the chain");
    }
  }

  @Test
  void aDegradedReadTakesTheRackStarFromAtMostTwoRacksBesidesTheClientsAndTheChainFromMore() {
    // Local groups of six, three units a rack: a data unit's helpers sit in two racks.
    LinearCode code = Codes.fromSpec("azure-lrc:k=10,l=2,g=2");
    PlacementPlan plan = new CombinedLocalityPlanner().plan(code);
    int lost = 0;
    int globalParity = code.k();
    Map<Integer, UnitLocation> at = locations(plan, lost);
    StripeRepair local = StripeRepair.of("local", code, new int[] {lost}, new long[] {1}, at, Map.of(),
        java.util.Set.of(), RepairScheme.RACK_AGGREGATED);
    long localRacks = java.util.Arrays.stream(code.repairPlan(lost).helpers()).mapToObj(h -> at.get(h).rack())
        .distinct().count();
    assertTrue(localRacks <= DegradedReadShape.MAX_STAR_RACKS, "a local group under combined locality: " + localRacks);
    assertEquals(RepairScheme.RACK_STAR, DegradedReadShape.of(local, "client", "elsewhere"));
    assertEquals(RepairScheme.RACK_STAR, DegradedReadShape.of(local, "client", "r" + plan.rackOf(lost)));
    Map<Integer, UnitLocation> wide = locations(plan, globalParity);
    StripeRepair global = StripeRepair.of("global", code, new int[] {globalParity}, new long[] {1}, wide, Map.of(),
        java.util.Set.of(), RepairScheme.RACK_AGGREGATED);
    RepairGraph g = SingleUnitRepairPlanner.plan(RepairScheme.RACK_AGGREGATED, code, globalParity, wide, "client",
        "elsewhere", LinkWeights.UNIFORM, Comparator.naturalOrder());
    assertTrue(g.steps().stream().map(st -> st.helper().rack()).distinct().count() > DegradedReadShape.MAX_STAR_RACKS,
        "a global parity's repair spans more racks");
    assertEquals(RepairScheme.RACK_AGGREGATED, DegradedReadShape.of(global, "client", "elsewhere"));
  }

  @RepeatedTest(25)
  void weightedPathSelectionFindsTheBruteForceOptimum(RepetitionInfo info) {
    Random r = new Random(info.getCurrentRepetition());
    int n = 5 + r.nextInt(4);
    int k = 2 + r.nextInt(Math.min(4, n - 2));
    List<UnitLocation> candidates = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      candidates.add(new UnitLocation(i, new Site("n" + i, "r0")));
    }
    Map<String, Double> w = new HashMap<>();
    LinkWeights weights = (a, b) -> w.computeIfAbsent(a + ">" + b, x -> (double) r.nextInt(100));
    Predicate<List<UnitLocation>> any = set -> true;
    List<UnitLocation> best = WeightedPathSelection.optimal(candidates, "req", k, weights, any);
    assertNotNull(best);
    double brute = brute(candidates, new ArrayList<>(), k, weights);
    assertEquals(brute, WeightedPathSelection.bottleneck(best, "req", weights), 1e-12);
  }

  private static double brute(List<UnitLocation> all, List<UnitLocation> chain, int k, LinkWeights w) {
    if (chain.size() == k) {
      return WeightedPathSelection.bottleneck(chain, "req", w);
    }
    double best = Double.POSITIVE_INFINITY;
    for (UnitLocation c : all) {
      if (!chain.contains(c)) {
        chain.add(c);
        best = Math.min(best, brute(all, chain, k, w));
        chain.remove(chain.size() - 1);
      }
    }
    return best;
  }

  @Test
  void leastRecentlySelectedSchedulingSpreadsFullNodeRecoveryLoad() {
    LinearCode code = Codes.fromSpec("rs:k=6,m=3");
    Random r = new Random(5);
    List<FullNodeScheduler.StripeLoss> stripes = new ArrayList<>();
    // Data units on nodes 0..11, parities on nodes 12..17 (a layout where parity holders sit idle when helpers
    // are always the first k surviving units); each stripe lost one data unit.
    for (int s = 0; s < 60; s++) {
      List<Integer> dataNodes = new ArrayList<>();
      List<Integer> parityNodes = new ArrayList<>();
      for (int i = 0; i < 12; i++) {
        dataNodes.add(i);
      }
      for (int i = 12; i < 18; i++) {
        parityNodes.add(i);
      }
      java.util.Collections.shuffle(dataNodes, r);
      java.util.Collections.shuffle(parityNodes, r);
      int lost = r.nextInt(code.k());
      Map<Integer, UnitLocation> survivors = new HashMap<>();
      for (int u = 0; u < code.n(); u++) {
        if (u != lost) {
          int node = u < code.k() ? dataNodes.get(u) : parityNodes.get(u - code.k());
          survivors.put(u, new UnitLocation(u, new Site("node" + node, "r0")));
        }
      }
      stripes.add(new FullNodeScheduler.StripeLoss("s" + s, code, lost, survivors));
    }
    List<UnitLocation> requestors = List.of(new UnitLocation(-1, new Site("req0", "r0")),
        new UnitLocation(-1, new Site("req1", "r0")));
    int plain = max(FullNodeScheduler.helperLoad(new FullNodeScheduler(requestors, false, RepairScheme.PIPELINED).schedule(stripes)));
    int lrs = max(FullNodeScheduler.helperLoad(new FullNodeScheduler(requestors, true, RepairScheme.PIPELINED).schedule(stripes)));
    assertTrue(lrs < plain, "busiest helper: " + lrs + " with LRS, " + plain + " without");
    List<FullNodeScheduler.Assignment> a = new FullNodeScheduler(requestors, true, RepairScheme.PIPELINED).schedule(stripes);
    assertEquals(30, a.stream().filter(x -> x.requestor().node().equals("req0")).count());
  }

  private static int max(Map<String, Integer> load) {
    return load.values().stream().mapToInt(Integer::intValue).max().orElse(0);
  }
}
