package org.wideec.update;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Random;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.wideec.code.Codes;
import org.wideec.code.LinearCode;
import org.wideec.placement.CombinedLocalityPlanner;
import org.wideec.placement.GroupPerRackPlanner;
import org.wideec.placement.PlacementPlan;

/** Per-place roles derived from a plan compute what the reference executor computes, sending each chunk once. */
class UpdateRolesTest {
  private static final int CHUNK = 32;
  private static final List<String> STREAMED = List.of("baseline", "cau", "rackcu");

  @Test
  void rs12_4RolesOfEverySchemeAgreeWithTheReferenceExecutorAndSendExactlyThePlansChunks() {
    checkRandomUpdates(RackSeparatedPlacement.plan(Codes.pinnedFromSpec("rs:k=12,m=4"), 2), 30, 11L);
  }

  @Test
  void azureLrcOnCombinedLocalityRolesRenewGlobalAndLocalParities() {
    LinearCode code = Codes.pinnedFromSpec("azure-lrc:k=12,l=2,g=2");
    checkRandomUpdates(new CombinedLocalityPlanner().plan(code), 30, 12L);
  }

  @Test
  void uniLrcRolesSendAGlobalParitysDeltaToItsGroupsLocalParity() {
    checkRandomUpdates(new GroupPerRackPlanner(1).plan(Codes.fromSpec("unilrc:alpha=1,z=3")), 20, 13L);
  }

  @Test
  void cauOnRacksHoldingDataAndParityRunsThoughItsCollectorsFeedEachOther() {
    // Every rack collects its own deltas and forwards them to the others' parities: relay R1 feeds R2 and back, each
    // transfer using only rows that reached its relay before it.
    UpdatePattern p = UpdatePattern.of(new GroupPerRackPlanner(1).plan(Codes.fromSpec("unilrc:alpha=1,z=3")), 0, 4);
    UpdateRoles roles = UpdateRoles.of(new CauUpdate().plan(p));
    assertTrue(feedEachOther(roles), "the relays send to each other");
    checkOne(roles, new Random(15L));
  }

  /** Whether two places of the roles each send to the other. */
  static boolean feedEachOther(UpdateRoles roles) {
    for (UpdateRoles.Role r : roles.roles()) {
      for (UpdateRoles.Output o : r.outputs()) {
        if (roles.role(o.to()).outputs().stream().anyMatch(back -> back.to().equals(r.place()))) {
          return true;
        }
      }
    }
    return false;
  }

  @Test
  void figure3RackCuCollectorFansOutOneCopyOfItsInputsToEveryParityRack() {
    UpdatePattern p = UpdateSchemesTest.figure3();
    UpdateRoles roles = UpdateRoles.of(new RackCu().plan(p));
    UpdateRoles.Role collector = roles.roles().stream().filter(r -> r.place().isRelay() && r.outputs().size() > 1)
        .findFirst().orElseThrow();
    // Every delta the collector holds arrived once; it feeds several parity racks from that one copy.
    assertEquals(collector.inputs().size() + (collector.ownDelta() >= 0 ? 1 : 0), collector.heldRows());
    assertTrue(collector.outputs().stream().map(UpdateRoles.Output::to).distinct().count() > 1);
    checkOne(UpdateRoles.of(new RackCu().plan(p)), new Random(14L));
  }

  @Test
  void rewrittenParitiesAreEveryParityAPlanReaches() {
    UpdatePattern p = UpdatePattern.of(RackSeparatedPlacement.plan(Codes.pinnedFromSpec("rs:k=12,m=4"), 2), 0, 5);
    assertArrayEquals(new int[] {12, 13, 14, 15}, UpdateRoles.of(new RackCu().plan(p)).rewrittenParities());
  }

  @Test
  void rolesOfAnUpdateThatDropsALocalParityLeaveItOutAndAgreeWithTheReferenceExecutor() {
    UpdatePattern dropping = UpdateSchemesTest.group0Emptied().dropping(UpdateSchemesTest.GROUP_0_LOCAL_PARITY);
    Random rnd = new Random(15L);
    for (String name : STREAMED) {
      UpdateRoles roles = UpdateRoles.of(UpdateScheme.byName(name).plan(dropping));
      assertArrayEquals(new int[] {6, 7}, roles.rewrittenParities(), name);
      assertTrue(roles.roles().stream().noneMatch(r -> r.place().unit() == UpdateSchemesTest.GROUP_0_LOCAL_PARITY),
          name);
      checkOne(roles, rnd);
    }
    // The same units changing without the group emptied still renew the local parity, on random patterns too.
    assertArrayEquals(new int[] {6, 7, 8},
        UpdateRoles.of(new RackCu().plan(UpdateSchemesTest.group0Emptied())).rewrittenParities());
    PlacementPlan placement = dropping.placement();
    for (int trial = 0; trial < 20; trial++) {
      int[] changed = IntStream.range(0, 6).filter(d -> d < 3 || rnd.nextBoolean()).toArray();
      UpdatePattern p = UpdatePattern.of(placement, changed).clearing(0, 1, 2)
          .dropping(UpdateSchemesTest.GROUP_0_LOCAL_PARITY);
      for (String name : STREAMED) {
        checkOne(UpdateRoles.of(UpdateScheme.byName(name).plan(p)), rnd);
      }
    }
  }

  @Test
  void aPlanThatStillRenewsADroppedParityIsRefusedNamingIt() {
    UpdatePattern renewing = UpdateSchemesTest.group0Emptied();
    UpdatePlan stale = new UpdatePlan("stale", renewing.dropping(UpdateSchemesTest.GROUP_0_LOCAL_PARITY),
        new int[0], new RackCu().plan(renewing).transfers(), false);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> UpdateRoles.of(stale));
    assertTrue(e.getMessage().endsWith("renews parity p2, which the update drops"), e.getMessage());
  }

  @Test
  void reEncodingAndParixPlansAreRefusedNamingWhy() {
    UpdatePattern p = UpdatePattern.of(RackSeparatedPlacement.plan(Codes.pinnedFromSpec("rs:k=12,m=4"), 2), 0, 5);
    IllegalArgumentException re = assertThrows(IllegalArgumentException.class,
        () -> UpdateRoles.of(new ReEncoding().plan(p)));
    assertTrue(re.getMessage().startsWith("reencode: a re-encoding plan"), re.getMessage());
    IllegalArgumentException parix = assertThrows(IllegalArgumentException.class,
        () -> UpdateRoles.of(new ParixUpdate().plan(p)));
    assertTrue(parix.getMessage().contains("only data and parity deltas are streamed"), parix.getMessage());
  }

  @Test
  void aPlanThatForgetsAParityIsRefusedNamingIt() {
    UpdatePattern p = UpdatePattern.of(RackSeparatedPlacement.plan(Codes.pinnedFromSpec("rs:k=12,m=4"), 2), 0);
    UpdatePlan full = new BaselineUpdate().plan(p);
    UpdatePlan partial = new UpdatePlan("broken", p, new int[0], List.of(full.transfers().get(0),
        full.transfers().get(1), full.transfers().get(2), transferWithout(full.transfers().get(3))), false);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> UpdateRoles.of(partial));
    assertTrue(e.getMessage().startsWith("broken: parity p3 would receive coefficients"), e.getMessage());
  }

  @Test
  void placesThatFeedEachOtherRunWhenEachTransferUsesRowsThatArrivedBeforeIt() {
    UpdatePattern p = UpdatePattern.of(RackSeparatedPlacement.plan(Codes.pinnedFromSpec("rs:k=12,m=4"), 2), 0, 2);
    int r0 = p.rackOf(0);
    int r2 = p.rackOf(2);
    Place a = Place.relay(r0);
    Place b = Place.relay(r2);
    int[] g = p.globalParities();
    List<Transfer> ts = new java.util.ArrayList<>(List.of(
        new Transfer(Transfer.Phase.DELTA_COLLECTING, Place.unit(0, r0), a, Transfer.Kind.DATA_DELTA, new int[] {0}, g),
        new Transfer(Transfer.Phase.DELTA_COLLECTING, Place.unit(2, r2), b, Transfer.Kind.DATA_DELTA, new int[] {2}, g),
        new Transfer(Transfer.Phase.PARITY_UPDATE, a, b, Transfer.Kind.DATA_DELTA, new int[] {0}, g),
        new Transfer(Transfer.Phase.PARITY_UPDATE, b, a, Transfer.Kind.DATA_DELTA, new int[] {2}, g)));
    for (int parity : g) { // a sends b d0 before it takes d2 from b, then sums both for every parity
      ts.add(new Transfer(Transfer.Phase.PARITY_UPDATE, a, Place.unit(parity, p.rackOf(parity)),
          Transfer.Kind.PARITY_DELTA, new int[] {0, 2}, new int[] {parity}));
    }
    UpdateRoles roles = UpdateRoles.of(new UpdatePlan("loop", p, new int[0], ts, false));
    assertTrue(feedEachOther(roles));
    checkOne(roles, new Random(16L));
  }

  @Test
  void aTransferOfARowThatArrivesOnlyLaterIsRefusedNamingIt() {
    UpdatePattern p = UpdatePattern.of(RackSeparatedPlacement.plan(Codes.pinnedFromSpec("rs:k=12,m=4"), 2), 0, 2);
    Place a = Place.relay(p.rackOf(0));
    Place b = Place.relay(p.rackOf(2));
    int[] g = p.globalParities();
    // b forwards d0 to a before a has sent it to b: b cannot hold it yet, whatever comes later.
    List<Transfer> ts = List.of(
        new Transfer(Transfer.Phase.DELTA_COLLECTING, Place.unit(0, p.rackOf(0)), a, Transfer.Kind.DATA_DELTA,
            new int[] {0}, g),
        new Transfer(Transfer.Phase.PARITY_UPDATE, b, a, Transfer.Kind.DATA_DELTA, new int[] {0}, g),
        new Transfer(Transfer.Phase.PARITY_UPDATE, a, b, Transfer.Kind.DATA_DELTA, new int[] {0}, g));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> UpdateRoles.of(new UpdatePlan("loop", p, new int[0], ts, false)));
    assertTrue(e.getMessage().contains(" does not hold the delta of d0"), e.getMessage());
  }

  /** The same transfer serving no parity it reaches: parity p3 is left without d0's delta. */
  private static Transfer transferWithout(Transfer t) {
    return new Transfer(t.phase(), t.from(), Place.relay(t.to().rack()), Transfer.Kind.DATA_DELTA, t.units(),
        t.parities());
  }

  private static void checkRandomUpdates(PlacementPlan placement, int trials, long seed) {
    checkRandomUpdates(placement, trials, seed, STREAMED);
  }

  private static void checkRandomUpdates(PlacementPlan placement, int trials, long seed, List<String> schemes) {
    LinearCode code = placement.code();
    Random rnd = new Random(seed);
    for (int trial = 0; trial < trials; trial++) {
      int[] changed = IntStream.range(0, code.k()).filter(d -> rnd.nextInt(3) == 0).toArray();
      if (changed.length == 0) {
        changed = new int[] {rnd.nextInt(code.k())};
      }
      UpdatePattern p = UpdatePattern.of(placement, changed);
      for (String name : schemes) {
        checkOne(UpdateRoles.of(UpdateScheme.byName(name).plan(p)), rnd);
      }
    }
  }

  /** Roles and the reference executor give the same stripe; each transfer sent exactly its chunks. */
  private static void checkOne(UpdateRoles roles, Random rnd) {
    UpdatePlan plan = roles.plan();
    LinearCode code = plan.pattern().code();
    byte[][] data = new byte[code.k()][CHUNK];
    for (byte[] d : data) {
      rnd.nextBytes(d);
    }
    byte[][] stripe = UpdateAlgebraTest.encode(code, data);
    byte[][] newData = new byte[code.k()][];
    for (int u : plan.pattern().changed()) {
      newData[u] = new byte[CHUNK];
      rnd.nextBytes(newData[u]);
    }
    int[] sent = new int[plan.transfers().size()];
    byte[][] after = roles.apply(stripe, newData, sent);
    byte[][] expected = UpdateExecution.apply(plan, stripe, newData, new UpdateExecution.ParixLog());
    for (int u = 0; u < code.n(); u++) {
      assertArrayEquals(expected[u], after[u], plan.scheme() + " unit " + plan.pattern().unitName(u) + " on "
          + plan.pattern());
    }
    for (int t = 0; t < sent.length; t++) {
      assertEquals(plan.transfers().get(t).chunks(), sent[t], plan.scheme() + " transfer " + plan.transfers().get(t));
    }
  }
}
