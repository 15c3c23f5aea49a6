package org.wideec.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.wideec.cli.Options;

/** The bench's victim choice, a function of node to unit counts: the same rule for every policy. */
class VictimChoiceTest {
  @Test
  void theNodeHoldingClosestToTheTargetIsStruck() {
    Map<String, Integer> units = Map.of("dn1", 5, "dn2", 7, "dn3", 4, "dn4", 3, "dn5", 1);
    assertEquals("dn3", VictimChoice.closest(units, units.keySet(), 4));
    assertEquals("dn2", VictimChoice.closest(units, units.keySet(), 9));
    assertEquals("dn5", VictimChoice.closest(units, units.keySet(), 1));
  }

  @Test
  void tiesGoToTheFirstNameInNaturalOrder() {
    // All three are one unit from 4; by plain string order dn10 would come first.
    Map<String, Integer> units = Map.of("dn10", 3, "dn9", 5, "dn2", 5);
    assertEquals("dn2", VictimChoice.closest(units, units.keySet(), 4));
    assertEquals("dn9", VictimChoice.closest(Map.of("dn10", 3, "dn9", 5), Set.of("dn10", "dn9"), 4));
  }

  @Test
  void onlyANodeHoldingADataUnitOfAFullGroupIsEligible() {
    // dn1 holds exactly 4 units, but parities or units of short groups only: the reads phase needs a lost data range.
    Map<String, Integer> units = Map.of("dn1", 4, "dn2", 6, "dn3", 1);
    assertEquals("dn2", VictimChoice.closest(units, Set.of("dn2", "dn3"), 4));
    // A node listed eligible but holding nothing (restarted, its copies deleted as excess) is never struck.
    assertEquals("dn3", VictimChoice.closest(Map.of("dn3", 1), Set.of("dn3", "dn4"), 4));
  }

  @Test
  void noEligibleNodeIsAClearError() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> VictimChoice.closest(Map.of("dn1", 4), Set.of(), 4));
    assertEquals("no DataNode holds a data unit of a full group (nodes {dn1=4})", e.getMessage());
  }

  @Test
  void victimUnitsDefaultsToFourAndMustBePositive() {
    Options none = new Options(new String[0], ClusterBench.VALUED, ClusterBench.SWITCHES);
    assertEquals(new StripedWorkload.Settings(512L << 20, 64L << 20, 5, 10.0, 4), ClusterBench.workloadSettings(none));
    Options six = new Options(new String[] {"--victim-units", "6"}, ClusterBench.VALUED, ClusterBench.SWITCHES);
    assertEquals(6, ClusterBench.workloadSettings(six).victimUnits());
    Options zero = new Options(new String[] {"--victim-units", "0"}, ClusterBench.VALUED, ClusterBench.SWITCHES);
    Options.UsageException e = assertThrows(Options.UsageException.class, () -> ClusterBench.workloadSettings(zero));
    assertEquals("--victim-units must be at least 1 (a victim holds a data unit), got 0", e.getMessage());
  }
}
