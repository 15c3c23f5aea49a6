package org.wideec.placement.hdfs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.hdfs.server.blockmanagement.WideEcArchivedBlocks;
import org.junit.jupiter.api.Test;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.ArchivedStripeRepair;
import org.wideec.archive.StripeMember;
import org.wideec.archive.StripeState;
import org.wideec.code.UnitRole;
import org.wideec.topology.Site;

/**
 * The archived blocks a decommission counts, against the monitor's view of a stripe: the leaving nodes are taken as a
 * pass begins, the stripe is seen as it is when the pass looks at it.
 */
class LeavingArchivedBlocksTest {
  private static final String RS = "rs:k=4,m=2";
  private static final long BLOCK = 1 << 20;

  private final WideEcNameNodeMetrics metrics = new WideEcNameNodeMetrics();
  private final RebuildState state = new RebuildState(metrics, 1_000, 10_000, 1_000, null);
  private final Set<String> leavingNow = new HashSet<>();
  private final AtomicInteger asked = new AtomicInteger();
  private final LeavingArchivedBlocks archived = new LeavingArchivedBlocks(metrics, state, 1_000, null, null,
      new LinksInFlight(), () -> {
        asked.incrementAndGet();
        return Set.copyOf(leavingNow);
      });

  /** A trimmed RS(4,2) stripe, unit u's block 1000 + u planned on node "n{u}" of rack "/r{u}". */
  private static ArchivedStripe stripe() {
    List<StripeMember> members = new ArrayList<>();
    for (int u = 0; u < 6; u++) {
      members.add(new StripeMember(u < 4 ? UnitRole.DATA : UnitRole.GLOBAL_PARITY, false, u < 4 ? 16400 : 16500 + u,
          1000 + u, 1, BLOCK, 0x1234L + u, "n" + u, "/r" + u));
    }
    return new ArchivedStripe(0, RS, 1, StripeState.TRIMMED, "/.wideec/parity/16399/0", 16500, members);
  }

  /** The stripe as the monitor sees it with unit 0's only replica listed on {@code holder0}, not live in service. */
  private static ArchivedStripeNow unitZeroOnlyOn(ArchivedStripe s, String holder0) {
    Map<Long, WideEcArchivedBlocks.BlockView> views = new HashMap<>();
    Map<Integer, ArchivedStripeRepair.BlockNow> now = new HashMap<>();
    for (int u = 0; u < 6; u++) {
      List<Site> live = u == 0 ? List.of() : List.of(new Site("n" + u, "/r" + u));
      views.put(1000L + u, new WideEcArchivedBlocks.BlockView(1, BLOCK, live, Set.of(u == 0 ? holder0 : "n" + u),
          true));
      now.put(u, new ArchivedStripeRepair.BlockNow(1, BLOCK, live));
    }
    return new ArchivedStripeNow(views, ArchivedStripeRepair.of(s, now), Set.of());
  }

  @Test
  void aNodeThatStartsLeavingDuringAPassHasItsLostBlockCountedAndItsRebuildCounted() {
    ArchivedStripe s = stripe();
    archived.beginPass(Set.of()); // taken before n0 started leaving
    leavingNow.add("n0");
    archived.note(s, unitZeroOnlyOn(s, "n0"));
    archived.endPass();
    assertEquals(1, asked.get(), "asked once for the nodes leaving now");
    assertEquals(1, archived.left(), "blk_1000 held only on n0, leaving");
    archived.repaired(1000);
    assertEquals(1, metrics.decommissionArchivedBlocksRebuilt());
    assertEquals(1, metrics.decommissionUnitsRebuilt());
  }

  @Test
  void aBlockOnANodeThatIsNotLeavingIsNotTheDecommissionsAndTheNodesAreAskedOnceAPass() {
    ArchivedStripe s = stripe();
    archived.beginPass(Set.of());
    archived.note(s, unitZeroOnlyOn(s, "n0")); // n0 is listed but not leaving (decommissioned already, say)
    archived.note(s, unitZeroOnlyOn(s, "n0"));
    archived.endPass();
    assertEquals(1, asked.get());
    assertEquals(0, archived.left());
    archived.repaired(1000);
    assertEquals(0, metrics.decommissionArchivedBlocksRebuilt(), "an ordinary repair");
    archived.beginPass(Set.of());
    archived.note(s, unitZeroOnlyOn(s, "n0"));
    assertEquals(2, asked.get(), "asked again in the next pass");
  }

  @Test
  void aNodeTakenAsLeavingAtThePassStartNeedsNoAsking() {
    ArchivedStripe s = stripe();
    archived.beginPass(Set.of("n0"));
    archived.note(s, unitZeroOnlyOn(s, "n0"));
    archived.endPass();
    assertEquals(0, asked.get());
    assertEquals(1, archived.left());
  }
}
