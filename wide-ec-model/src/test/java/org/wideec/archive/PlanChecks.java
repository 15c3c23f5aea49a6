package org.wideec.archive;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.wideec.code.Codes;
import org.wideec.code.LinearCode;
import org.wideec.code.LocalGroup;
import org.wideec.code.MinimumDistance;
import org.wideec.code.UnitRole;
import org.wideec.placement.PlacementPlan;
import org.wideec.topology.Site;

/** Everything an emitted archival plan must satisfy, checked from the request alone. */
final class PlanChecks {
  private PlanChecks() {}

  static void assertHolds(ArchivalRequest req, ArchivalPlan plan) {
    LinearCode code = Codes.pinnedFromSpec(req.codeSpec());
    PlacementPlan base = req.placement().planner().plan(code);
    List<DataBlock> all = new ArrayList<>();
    for (SourceFile f : req.files()) {
      for (int i = 0; i < f.blocks().size(); i++) {
        all.add(new DataBlock(f, i));
      }
    }
    assertEquals((all.size() + code.k() - 1) / code.k(), plan.stripes().size(), "stripes");
    for (int s = 0; s < plan.stripes().size(); s++) {
      PlannedStripe stripe = plan.stripes().get(s);
      String what = "stripe " + stripe.stripeId();
      assertEquals(req.firstStripeId() + s, stripe.stripeId());
      // Grouped by racks, a stripe's blocks are its own choice (CoreRackGroupingTest checks each block is in one).
      List<DataBlock> blocks = plan.grouping() == ArchiveGrouping.RACKS
          ? stripe.units().stream().filter(PlannedUnit::isStoredData).map(PlannedUnit::block).toList()
          : all.subList(s * code.k(), Math.min(all.size(), (s + 1) * code.k()));
      int real = blocks.size();
      long unitLength = blocks.stream().mapToLong(DataBlock::length).max().orElseThrow();
      assertEquals(unitLength, stripe.unitLength(), what);
      Set<String> nodes = new HashSet<>();
      Map<String, List<Integer>> byRack = new TreeMap<>();
      for (int u = 0; u < code.n(); u++) {
        PlannedUnit p = stripe.unit(u);
        String unit = what + " unit " + u;
        assertEquals(u, p.unit(), unit);
        assertEquals(code.role(u), p.role(), unit);
        boolean virtual = u < code.k() ? u >= real : ArchivedStripe.zeroParity(code, u, d -> d >= real);
        assertEquals(virtual, !p.stored(), unit + " virtual");
        if (!p.stored()) {
          continue;
        }
        assertTrue(req.topology().nodes(p.rack()).contains(p.node()), unit + ": " + p.node() + " not in " + p.rack());
        assertTrue(nodes.add(p.node()), unit + ": node " + p.node() + " holds two units");
        byRack.computeIfAbsent(p.rack(), r -> new ArrayList<>()).add(u);
        if (u < code.k()) {
          DataBlock b = blocks.get(u);
          assertEquals(b, p.block(), unit);
          assertEquals(b.length(), p.length(), unit);
          Set<String> replicas = new HashSet<>(b.block().replicas().stream().map(Site::node).toList());
          if (p.action() == PlannedUnit.Action.KEEP) {
            assertTrue(replicas.contains(p.node()), unit + " keeps a replica it does not have");
          } else {
            assertEquals(PlannedUnit.Action.MOVE, p.action(), unit);
            assertTrue(replicas.contains(p.fromNode()), unit + " moves from a node without its replica");
            assertTrue(req.topology().nodes(p.fromRack()).contains(p.fromNode()), unit + " moves from a dead node");
            assertFalse(replicas.contains(p.node()), unit + " moves onto a node that already had it");
          }
        } else {
          assertEquals(PlannedUnit.Action.WRITE, p.action(), unit);
          assertEquals(unitLength, p.length(), unit);
          assertNull(p.block(), unit);
        }
      }
      assertSamePlanRacks(code, base, stripe, byRack, what);
      assertKindRules(code, req.placement(), stripe, byRack, what);
      for (Map.Entry<String, List<Integer>> e : byRack.entrySet()) {
        assertTrue(code.isDecodable(e.getValue().stream().mapToInt(Integer::intValue).toArray()),
            what + ": losing rack " + e.getKey() + " " + e.getValue() + " is not decodable");
      }
      assertTrue(stripe.crossRackBytesPlanned() <= stripe.crossRackBytesWithFewestMoves(), what);
      assertTrue(stripe.bytesMoved() <= stripe.bytesMovedWithPlanRacks(), what);
      assertNotNull(stripe.classic().encoderNode(), what);
    }
    StripeManifest manifest = plan.toManifest(id -> "/.wideec/parity/" + id);
    try {
      assertEquals(manifest, StripeManifest.parse(manifest.toBytes(), "plan manifest"));
    } catch (CorruptManifestException e) {
      throw new AssertionError("the plan's manifest does not parse: " + e.getMessage(), e);
    }
  }

  /**
   * The real racks hold what the plan's racks hold, up to interchanging data units of the same local groups: per
   * rack, the same count of each class of data unit and the same parities.
   */
  private static void assertSamePlanRacks(LinearCode code, PlacementPlan base, PlannedStripe stripe,
      Map<String, List<Integer>> byRack, String what) {
    List<String> planned = new ArrayList<>();
    for (int r = 0; r < base.racks(); r++) {
      List<Integer> stored = new ArrayList<>();
      for (int u : base.units(r)) {
        if (stripe.unit(u).stored()) {
          stored.add(u);
        }
      }
      if (!stored.isEmpty()) {
        planned.add(signature(code, stored));
      }
    }
    List<String> actual = new ArrayList<>(byRack.values().stream().map(units -> signature(code, units)).toList());
    planned.sort(null);
    actual.sort(null);
    assertEquals(planned, actual, what + ": the racks do not realise the placement plan");
  }

  private static String signature(LinearCode code, List<Integer> units) {
    List<String> parts = new ArrayList<>();
    for (int u : units) {
      if (code.role(u) == UnitRole.DATA) {
        StringBuilder c = new StringBuilder("d");
        code.groupsOf(u).forEach(g -> c.append(g.index()).append(','));
        parts.add(c.toString());
      } else {
        parts.add("p" + u);
      }
    }
    parts.sort(null);
    return String.join(" ", parts);
  }

  private static void assertKindRules(LinearCode code, PlacementKind kind, PlannedStripe stripe,
      Map<String, List<Integer>> byRack, String what) {
    switch (kind) {
      case CL -> {
        int f = MinimumDistance.of(code).faultsTolerated();
        byRack.forEach((rack, units) -> assertTrue(units.size() <= f, what + ": rack " + rack + " holds " + units
            + ", more than f = " + f));
      }
      case FLAT -> byRack.forEach((rack, units) -> assertEquals(1, units.size(), what + ": rack " + rack));
      case UNILRC -> {
        for (LocalGroup g : code.localGroups()) {
          Set<String> racks = new HashSet<>();
          for (int u : g.members()) {
            if (stripe.unit(u).stored()) {
              racks.add(stripe.unit(u).rack());
            }
          }
          assertTrue(racks.size() <= 1, what + ": local group " + g + " spans racks " + racks);
        }
      }
    }
  }
}
