package org.wideec.code;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.wideec.coder.ErasureCoder;

/** The wrong-matrix bug class (SeaweedFS #9958: shards of a custom-ratio volume rebuilt with RS(10,4)'s matrix). */
class WrongCodeExceptionTest {
  private static final LinearCode STRIPE = Codes.pinnedFromSpec("rs:k=6,m=3");

  @Test
  void decodingWithAnotherCodesMatrixRebuildsWrongBytesSoTheGuardRefusesIt() {
    // What the guard prevents: a unit rebuilt from the same survivors by another code of the same shape differs.
    LinearCode other = Codes.pinnedFromSpec("azure-lrc:k=6,l=2,g=1");
    assertEquals(STRIPE.n(), other.n());
    byte[][] units = encoded(STRIPE);
    assertFalse(Arrays.equals(units[0], rebuildUnit0(other, units)), "another code's matrix rebuilt the right bytes");
    assertEquals(Arrays.toString(units[0]), Arrays.toString(rebuildUnit0(STRIPE, units)));

    WrongCodeException e = assertThrows(WrongCodeException.class,
        () -> WrongCodeException.requireStripeCode(STRIPE, other, "stripe 7"));
    assertEquals("stripe 7 is coded with rs:k=6,m=3 (code format 1) but the decoder was handed azure-lrc:k=6,l=2,g=1:"
        + " refusing to decode, another code's matrix would rebuild wrong bytes", e.getMessage());
  }

  @Test
  void theSameSpecWithCoefficientsOfNoFormatIsRefused() {
    LinearCode constructed = Codes.construct("azure-lrc:k=12,l=2,g=2");
    LinearCode pinned = Codes.pinnedFromSpec("azure-lrc:k=12,l=2,g=2");
    WrongCodeException e = assertThrows(WrongCodeException.class,
        () -> WrongCodeException.requireStripeCode(pinned, constructed, "block group blk_-9223372036854775792"));
    assertEquals("block group blk_-9223372036854775792 is coded with azure-lrc:k=12,l=2,g=2 (code format 1) but the"
        + " decoder's coefficients are of code format 0, not 1: refusing to decode, another code's matrix would"
        + " rebuild wrong bytes", e.getMessage());
  }

  @Test
  void theStripesOwnCodePasses() {
    assertDoesNotThrow(() -> WrongCodeException.requireStripeCode(STRIPE, Codes.pinnedFromSpec("rs:m=3,k=6"), "s"));
  }

  private static byte[][] encoded(LinearCode code) {
    Random random = new Random(9);
    ErasureCoder coder = ErasureCoder.java(code);
    byte[][] units = new byte[code.n()][100];
    ByteBuffer[] data = new ByteBuffer[code.k()];
    for (int i = 0; i < code.k(); i++) {
      random.nextBytes(units[i]);
      data[i] = ByteBuffer.wrap(units[i]);
    }
    int[] parity = coder.encodedUnits();
    ByteBuffer[] out = new ByteBuffer[parity.length];
    for (int i = 0; i < parity.length; i++) {
      out[i] = ByteBuffer.wrap(units[parity[i]]);
    }
    coder.encode(data, out);
    return units;
  }

  /**
   * Unit 0 rebuilt by {@code code} from data units 1..5 and unit 7 (RS's second parity; the LRC's first local
   * parity: the two codes share their first parity row, so unit 6 would not tell them apart).
   */
  private static byte[] rebuildUnit0(LinearCode code, byte[][] units) {
    ByteBuffer[] in = new ByteBuffer[code.n()];
    for (int u : new int[] {1, 2, 3, 4, 5, 7}) {
      in[u] = ByteBuffer.wrap(units[u]);
    }
    ByteBuffer out = ByteBuffer.allocate(100);
    ErasureCoder.java(code).reconstruct(in, new int[] {0}, new ByteBuffer[] {out});
    return out.array();
  }
}
