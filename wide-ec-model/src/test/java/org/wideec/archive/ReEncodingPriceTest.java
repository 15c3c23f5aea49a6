package org.wideec.archive;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.wideec.archive.encode.EncodePlan;
import org.wideec.code.Codes;
import org.wideec.code.LinearCode;
import org.wideec.update.CauUpdate;
import org.wideec.update.RackCu;
import org.wideec.update.ReEncoding;
import org.wideec.update.UpdateChooser;
import org.wideec.update.UpdateScheme;

/**
 * One price of re-encoding a stripe: the update model's ({@link ReEncoding}, what the product sweep reports) and the
 * updater's ({@link UpdateChoice}, what the DataNodes run) are the same chain, byte for byte, on the product bench's
 * stripe ({@code bench update --product --quick}: RS(6,3) placed with combined locality, ECWide §3.4, so data 0-2 in
 * one rack, data 3-5 in another, the three parities in a third; one-block files of 1 MiB, every third one half a
 * block and a few bytes). The sweep removes 1, 2 and 4 of its units; the 4 units leaving two data racks with one
 * unit each are the case where the two prices disagreed (the model's RackCU-style read of the two kept units into
 * the parity rack, 2 chunks, against the chain the updater runs, 3 rows out of each data rack).
 */
class ReEncodingPriceTest {
  private static final String RS = "rs:k=6,m=3";
  private static final long MIB = 1 << 20;
  private static final EncodePlan.Shape CHAIN = EncodePlan.Shape.CHAIN;

  /** The bench's stripe: file i in unit i, 1 MiB, or half a block plus i bytes for every third file. */
  static ArchivedStripe benchStripe() {
    LinearCode code = Codes.pinnedFromSpec(RS);
    List<StripeMember> members = new ArrayList<>();
    for (int u = 0; u < code.k(); u++) {
      long length = u % 3 == 2 ? MIB / 2 + u : MIB;
      members.add(StripeMember.data(100 + u, 5000 + u, 1, length, "dn" + u, "/r" + u / 3).withCrc(u));
    }
    for (int u = code.k(); u < code.n(); u++) {
      members.add(new StripeMember(code.role(u), false, 200 + u, 6000 + u, 1, MIB, u, "dn" + u, "/r2"));
    }
    return new ArchivedStripe(1, RS, 1, StripeState.TRIMMED, "/.wideec/parity/1/1", 300, members);
  }

  private static StripeUpdate removing(int... units) {
    Set<Long> inodes = new HashSet<>();
    for (int u : units) {
      inodes.add(100L + u);
    }
    return StripeUpdate.removing(benchStripe(), inodes);
  }

  /**
   * The prices of removing these units: the scheme's delta plan and re-encoding, as the updater prices them, each
   * checked against the update model's plan of the same pattern (chunks of the unit length after the update).
   */
  private static long[] prices(StripeUpdate up, UpdateScheme scheme) {
    UpdateChoice c = UpdateChoice.of(up, scheme, Set.of(), CHAIN);
    long unit = up.nextUnitLength();
    assertEquals((long) scheme.plan(up.pattern()).crossRackChunks() * unit, c.deltaCrossRackBytes(), scheme.name());
    assertEquals((long) new ReEncoding().plan(up.pattern()).crossRackChunks() * unit, c.reEncodeCrossRackBytes(),
        "the model prices the chain the updater runs: " + c.reEncode().describe());
    boolean modelReEncodes = new UpdateChooser(scheme).choose(up.pattern()).scheme().equals("reencode");
    assertEquals(modelReEncodes, c.reEncodes(), "the model's decision is the updater's");
    return new long[] {c.deltaCrossRackBytes(), c.reEncodeCrossRackBytes()};
  }

  @Test
  void oneRemovedUnitKeepsTheDeltaUpdate() {
    // d0 leaves: its delta to the parity rack, 1 MiB; the chain reads d1, d2 then d3-d5: 3 rows out of each data rack.
    StripeUpdate up = removing(0);
    assertEquals(MIB, up.nextUnitLength());
    assertArrayEquals(new long[] {MIB, 6 * MIB}, prices(up, new RackCu()));
    assertArrayEquals(new long[] {MIB, 6 * MIB}, prices(up, new CauUpdate()));
  }

  @Test
  void twoRemovedUnitsKeepTheDeltaUpdate() {
    StripeUpdate up = removing(0, 1);
    assertArrayEquals(new long[] {2 * MIB, 6 * MIB}, prices(up, new RackCu()));
    assertArrayEquals(new long[] {2 * MIB, 6 * MIB}, prices(up, new CauUpdate()));
  }

  @Test
  void fourRemovedUnitsLeavingOneRackReEncode() {
    // d4 and d5 stay, in one rack: one crossing of the 3 rows (3 MiB) against 4 deltas (4 MiB).
    StripeUpdate up = removing(0, 1, 2, 3);
    assertEquals(MIB, up.nextUnitLength());
    assertArrayEquals(new long[] {4 * MIB, 3 * MIB}, prices(up, new RackCu()));
    assertArrayEquals(new long[] {4 * MIB, 3 * MIB}, prices(up, new CauUpdate()));
    assertEquals(true, UpdateChoice.of(up, new RackCu(), Set.of(), CHAIN).reEncodes());
  }

  @Test
  void fourRemovedUnitsLeavingTwoRacksKeepTheDeltaUpdate() {
    // d2 and d5 stay, one in each data rack, both half a block: every price is in units of the longer, 524,293 B.
    // The chain crosses twice with 3 rows (6 units) against 4 deltas; the old model read the two units into the
    // parity rack (2 units) and said re-encode.
    StripeUpdate up = removing(0, 1, 3, 4);
    long unit = MIB / 2 + 5;
    assertEquals(unit, up.nextUnitLength());
    assertArrayEquals(new long[] {4 * unit, 6 * unit}, prices(up, new RackCu()));
    assertArrayEquals(new long[] {4 * unit, 6 * unit}, prices(up, new CauUpdate()));
    assertEquals(false, UpdateChoice.of(up, new RackCu(), Set.of(), CHAIN).reEncodes());
  }

  private static void assertArrayEquals(long[] expected, long[] actual) {
    org.junit.jupiter.api.Assertions.assertArrayEquals(expected, actual,
        "delta, re-encode: " + java.util.Arrays.toString(actual));
  }
}
