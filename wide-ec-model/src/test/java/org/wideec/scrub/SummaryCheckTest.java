package org.wideec.scrub;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.wideec.code.Codes;
import org.wideec.code.LinearCode;
import org.wideec.coder.ErasureCoder;

class SummaryCheckTest {
  private static final int PAGE = 64;
  // Three whole pages and a short tail: the tail is where the zero padding must match the code's.
  private static final int UNIT = 3 * PAGE + 37;
  private static final int R = UnitSummary.multiplier(42);

  @ParameterizedTest
  @ValueSource(strings = {"rs:k=6,m=3", "rs:k=10,m=4", "azure-lrc:k=12,l=2,g=2", "azure-lrc:k=6,l=2,g=2",
      "unilrc:alpha=1,z=6"})
  void everySingleUnitCorruptionIsLocalizedToThatUnit(String spec) {
    LinearCode code = Codes.fromSpec(spec);
    byte[][] units = encodedStripe(code, new Random(spec.hashCode()));
    assertEquals(ScrubVerdict.CONSISTENT, SummaryCheck.check(code, summaries(units)));
    Random random = new Random(7);
    for (int u = 0; u < code.n(); u++) {
      for (int position : new int[] {0, PAGE - 1, 2 * PAGE + 5, UNIT - 1}) {
        byte[][] corrupt = copy(units);
        corrupt[u][position] ^= (byte) (1 + random.nextInt(255));
        assertEquals(ScrubVerdict.unitAtFault(u), SummaryCheck.check(code, summaries(corrupt)),
            spec + ": one byte changed at " + position + " of unit " + u);
      }
      byte[][] scattered = copy(units);
      for (int i = 0; i < 20; i++) {
        scattered[u][random.nextInt(UNIT)] ^= (byte) (1 + random.nextInt(255));
      }
      assertEquals(ScrubVerdict.unitAtFault(u), SummaryCheck.check(code, summaries(scattered)),
          spec + ": twenty bytes changed in unit " + u);
    }
  }

  @Test
  void twoCorruptUnitsAreReportedAsNoSingleUnitAtFault() {
    LinearCode code = Codes.fromSpec("azure-lrc:k=12,l=2,g=2");
    byte[][] units = encodedStripe(code, new Random(3));
    units[1][10] ^= 0x5a;
    units[13][PAGE + 3] ^= 0x11;
    assertEquals(new ScrubVerdict(ScrubVerdict.Outcome.UNDECIDABLE, new int[0]),
        SummaryCheck.check(code, summaries(units)));
  }

  @Test
  void aSingleParityCodeDetectsButCannotLocalize() {
    // Distance 2: every column of H is a multiple of every other, so any unit could be the one at fault.
    LinearCode code = Codes.fromSpec("rs:k=4,m=1");
    byte[][] units = encodedStripe(code, new Random(5));
    units[2][0] ^= 1;
    assertEquals(new ScrubVerdict(ScrubVerdict.Outcome.UNDECIDABLE, new int[] {0, 1, 2, 3, 4}),
        SummaryCheck.check(code, summaries(units)));
  }

  @Test
  void theFoldIsLinearAndIndependentOfHowBytesArrive() {
    Random random = new Random(11);
    byte[] a = new byte[UNIT];
    byte[] b = new byte[UNIT];
    random.nextBytes(a);
    random.nextBytes(b);
    byte[] sum = new byte[UNIT];
    for (int i = 0; i < UNIT; i++) {
      sum[i] = (byte) (a[i] ^ b[i]);
    }
    byte[] sa = UnitSummary.of(ByteBuffer.wrap(a), PAGE, R);
    byte[] sb = UnitSummary.of(ByteBuffer.wrap(b), PAGE, R);
    byte[] expected = new byte[PAGE];
    for (int i = 0; i < PAGE; i++) {
      expected[i] = (byte) (sa[i] ^ sb[i]);
    }
    assertArrayEquals(expected, UnitSummary.of(ByteBuffer.wrap(sum), PAGE, R));
    UnitSummary dribbled = new UnitSummary(PAGE, R);
    for (int off = 0; off < UNIT; off += 7) {
      dribbled.update(a, off, Math.min(7, UNIT - off));
    }
    assertArrayEquals(sa, dribbled.summary());
    assertEquals(UNIT, dribbled.bytes());
  }

  @Test
  void theSameBytesInTwoPagesDoNotCancel() {
    // An XOR fold (r = 1) would miss the same change made in two pages; a primitive r cannot.
    byte[] unit = new byte[2 * PAGE];
    unit[3] = 9;
    unit[PAGE + 3] = 9;
    assertNotEquals(0, UnitSummary.of(ByteBuffer.wrap(unit), PAGE, R)[3]);
  }

  @Test
  void theSeedsMultiplierIsPrimitive() {
    for (long seed = 0; seed < 50; seed++) {
      int r = UnitSummary.multiplier(seed);
      int x = r;
      int order = 1;
      while (x != 1) {
        x = org.wideec.gf.Gf256.multiply(x, r);
        order++;
      }
      assertEquals(255, order, "multiplier " + r + " of seed " + seed);
    }
  }

  @Test
  void summariesOfDifferentLengthsAreRefusedNamingTheUnit() {
    LinearCode code = Codes.fromSpec("rs:k=2,m=1");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> SummaryCheck.check(code, new byte[][] {new byte[4], new byte[4], new byte[5]}));
    assertEquals("rs:k=2,m=1: summary of unit 2 is 5 bytes, not 4", e.getMessage());
  }

  static byte[][] encodedStripe(LinearCode code, Random random) {
    ErasureCoder coder = ErasureCoder.java(code);
    ByteBuffer[] data = new ByteBuffer[code.k()];
    for (int i = 0; i < data.length; i++) {
      byte[] d = new byte[UNIT];
      random.nextBytes(d);
      data[i] = ByteBuffer.wrap(d);
    }
    int[] parityUnits = coder.encodedUnits();
    ByteBuffer[] parities = new ByteBuffer[parityUnits.length];
    for (int i = 0; i < parities.length; i++) {
      parities[i] = ByteBuffer.allocate(UNIT);
    }
    coder.encode(data, parities);
    byte[][] units = new byte[code.n()][];
    for (int i = 0; i < data.length; i++) {
      units[i] = data[i].array();
    }
    for (int i = 0; i < parityUnits.length; i++) {
      units[parityUnits[i]] = parities[i].array();
    }
    return units;
  }

  static byte[][] summaries(byte[][] units) {
    byte[][] s = new byte[units.length][];
    for (int u = 0; u < units.length; u++) {
      s[u] = UnitSummary.of(ByteBuffer.wrap(units[u]), PAGE, R);
    }
    return s;
  }

  static byte[][] copy(byte[][] units) {
    byte[][] c = new byte[units.length][];
    for (int u = 0; u < units.length; u++) {
      c[u] = units[u].clone();
    }
    return c;
  }
}
