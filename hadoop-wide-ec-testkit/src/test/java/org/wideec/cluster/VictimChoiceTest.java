package org.wideec.cluster;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.wideec.cli.Options;
import org.wideec.code.Codes;
import org.wideec.code.ReedSolomon;
import org.wideec.cluster.VictimChoice.Holding;

/** The bench's victim choice, a function of what each node holds: the same rule for every policy. */
class VictimChoiceTest {
  /** Nodes holding units that each read {@code width} helpers to rebuild (an MDS code's k). */
  private static Map<String, Holding> uniform(int width, Object... nodeAndUnits) {
    Map<String, Holding> m = new HashMap<>();
    for (int i = 0; i < nodeAndUnits.length; i += 2) {
      int units = (Integer) nodeAndUnits[i + 1];
      m.put((String) nodeAndUnits[i], new Holding(units, units * width));
    }
    return m;
  }

  @Test
  void theNodeHoldingClosestToTheTargetIsStruck() {
    Map<String, Holding> held = uniform(10, "dn1", 5, "dn2", 7, "dn3", 4, "dn4", 3, "dn5", 1);
    assertEquals("dn3", VictimChoice.closest(held, held.keySet(), 4, 10));
    assertEquals("dn2", VictimChoice.closest(held, held.keySet(), 9, 10));
    assertEquals("dn5", VictimChoice.closest(held, held.keySet(), 1, 10));
  }

  @Test
  void tiesGoToTheFirstNameInNaturalOrder() {
    // All three are one unit from 4; by plain string order dn10 would come first.
    Map<String, Holding> held = uniform(10, "dn10", 3, "dn9", 5, "dn2", 5);
    assertEquals("dn2", VictimChoice.closest(held, held.keySet(), 4, 10));
    assertEquals("dn9", VictimChoice.closest(uniform(10, "dn10", 3, "dn9", 5), Set.of("dn10", "dn9"), 4, 10));
  }

  @Test
  void theNodeWhoseRepairsReadWhatTheTargetsUnitsReadOnAverageIsStruck() {
    // Azure-LRC 12+2+2: 14 units read 6 helpers, the 2 global parities 12; the mean is 6.75: 54 reads for 8 units.
    double mean = (14 * 6 + 2 * 12) / 16.0;
    Map<String, Holding> held = Map.of(
        "dn1", new Holding(8, 48), // eight local-group units: the right count, 6 reads short
        "dn2", new Holding(8, 60), // two global parities among eight
        "dn3", new Holding(9, 54), // nine local-group units: the mean's reads, one unit more
        "dn4", new Holding(8, 54)); // one global parity among eight: the code's proportion
    assertEquals("dn4", VictimChoice.closest(held, held.keySet(), 8, mean));
    assertEquals("dn3", VictimChoice.closest(held, Set.of("dn1", "dn2", "dn3"), 8, mean));
    // As far from 54 either way: the costlier.
    assertEquals("dn2", VictimChoice.closest(held, Set.of("dn1", "dn2"), 8, mean));
    // Four units: 27 reads; one global parity (30) and none (24) are as far, and the one with a global parity reads more.
    Map<String, Holding> four = Map.of("dn1", new Holding(4, 36), "dn2", new Holding(4, 24),
        "dn3", new Holding(4, 30));
    assertEquals("dn3", VictimChoice.closest(four, four.keySet(), 4, mean));
  }

  @Test
  void repairReadsFollowTheCodesRepairPlans() {
    int[] lrc = VictimChoice.repairReads(Codes.fromSpec("azure-lrc:k=12,l=2,g=2"));
    assertEquals(16, lrc.length);
    assertEquals(14, java.util.Arrays.stream(lrc).filter(r -> r == 6).count());
    assertEquals(2, java.util.Arrays.stream(lrc).filter(r -> r == 12).count());
    int[] rs = VictimChoice.repairReads(ReedSolomon.create(10, 4));
    int[] tens = new int[14];
    java.util.Arrays.fill(tens, 10);
    assertArrayEquals(tens, rs);
  }

  @Test
  void onlyANodeHoldingADataUnitOfAFullGroupIsEligible() {
    // dn1 holds exactly 4 units, but parities or units of short groups only: the reads phase needs a lost data range.
    Map<String, Holding> held = uniform(10, "dn1", 4, "dn2", 6, "dn3", 1);
    assertEquals("dn2", VictimChoice.closest(held, Set.of("dn2", "dn3"), 4, 10));
    // A node listed eligible but holding nothing (restarted, its copies deleted as excess) is never struck.
    assertEquals("dn3", VictimChoice.closest(uniform(10, "dn3", 1), Set.of("dn3", "dn4"), 4, 10));
  }

  @Test
  void noEligibleNodeIsAClearError() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> VictimChoice.closest(uniform(10, "dn1", 4), Set.of(), 4, 10));
    assertEquals("no DataNode holds a data unit of a full group (nodes {dn1=Holding[units=4, repairReads=40]})",
        e.getMessage());
  }

  @Test
  void victimUnitsDefaultsToEightAndMustBePositive() {
    Options none = new Options(new String[0], ClusterBench.VALUED, ClusterBench.SWITCHES);
    assertEquals(new StripedWorkload.Settings(1L << 30, 64L << 20, 5, 10.0, 8), ClusterBench.workloadSettings(none));
    Options six = new Options(new String[] {"--victim-units", "6"}, ClusterBench.VALUED, ClusterBench.SWITCHES);
    assertEquals(6, ClusterBench.workloadSettings(six).victimUnits());
    Options zero = new Options(new String[] {"--victim-units", "0"}, ClusterBench.VALUED, ClusterBench.SWITCHES);
    Options.UsageException e = assertThrows(Options.UsageException.class, () -> ClusterBench.workloadSettings(zero));
    assertEquals("--victim-units must be at least 1 (a victim holds a data unit), got 0", e.getMessage());
  }
}
