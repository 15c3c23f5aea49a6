package org.wideec.protocol;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import org.junit.jupiter.api.Test;

class CapsRequestTest {
  @Test
  void anOrderReadsBackAsItsRecordAndTheAnswerAsTheTwoCaps() throws Exception {
    CapsRequest req = new CapsRequest(CapsRequest.UNCHANGED, 0);
    assertEquals(req, MessageKind.decode(req.toBytes(), null));
    assertEquals(true, CapsRequest.isOne(req.toBytes()));
    assertArrayEquals(new long[] {5_000_000, 0}, CapsRequest.caps(CapsRequest.answer(5_000_000, 0)));
  }

  @Test
  void anOrderThatSetsNothingOrANegativeCapIsRefused() {
    assertThrows(IllegalArgumentException.class, () -> new CapsRequest(CapsRequest.UNCHANGED, CapsRequest.UNCHANGED));
    assertThrows(IllegalArgumentException.class, () -> new CapsRequest(-2, 0));
    byte[] bad = new CapsRequest(7, 0).toBytes();
    bad[2] = (byte) 0xff; // the node cap negative
    IOException e = assertThrows(IOException.class, () -> CapsRequest.parse(bad));
    assertEquals(true, e.getMessage().startsWith("malformed caps order: a cap is bytes per second"), e.getMessage());
    assertThrows(IOException.class, () -> CapsRequest.caps(new byte[3]));
  }
}
