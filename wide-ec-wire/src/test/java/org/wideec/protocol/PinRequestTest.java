package org.wideec.protocol;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.wideec.repair.BlockRef;

/** The NameNode's pin order and the DataNode's answer on the wire. */
class PinRequestTest {
  private static PinRequest order(int n) {
    List<BlockRef> blocks = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      blocks.add(new BlockRef("BP-1", 1073741825L + i, 1001 + i, 4096 - i, new byte[] {(byte) i, 7}));
    }
    return new PinRequest(blocks);
  }

  @Test
  void anOrderRoundTripsAndIsToldApartFromOtherKinds() throws IOException {
    PinRequest req = order(3);
    byte[] bytes = req.toBytes();
    assertTrue(PinRequest.isOne(bytes));
    assertFalse(RebuildRequest.is(bytes));
    assertFalse(ArchivedReadRequest.isOne(bytes));
    assertFalse(PinRequest.isOne(new byte[] {(byte) RebuildRequest.KIND}));
    assertEquals(req, PinRequest.parse(bytes));
  }

  @Test
  void theAnswerHasOneOutcomePerBlock() throws IOException {
    PinRequest req = order(3);
    List<PinRequest.Outcome> outcomes = List.of(PinRequest.Outcome.PINNED, PinRequest.Outcome.NOT_HELD,
        PinRequest.Outcome.PINNING_OFF);
    assertEquals(outcomes, req.outcomes(PinRequest.answer(outcomes)));
    assertThrows(IOException.class, () -> req.outcomes(new byte[2]));
    assertThrows(IOException.class, () -> req.outcomes(new byte[] {0, 1, 99}));
  }

  @Test
  void malformedOrdersAreRefusedWithAReason() {
    byte[] ok = order(2).toBytes();
    IOException truncated = assertThrows(IOException.class,
        () -> PinRequest.parse(java.util.Arrays.copyOf(ok, ok.length - 1)));
    assertTrue(truncated.getMessage().contains("truncated"), truncated.getMessage());
    byte[] trailing = java.util.Arrays.copyOf(ok, ok.length + 1);
    assertTrue(assertThrows(IOException.class, () -> PinRequest.parse(trailing)).getMessage().contains("trailing"));
    byte[] none = {(byte) PinRequest.KIND, 0, 0};
    assertThrows(IOException.class, () -> PinRequest.parse(none));
    assertThrows(IllegalArgumentException.class, () -> order(PinRequest.MAX_BLOCKS + 1));
    assertArrayEquals(new byte[] {0}, PinRequest.answer(List.of(PinRequest.Outcome.PINNED)));
  }
}
