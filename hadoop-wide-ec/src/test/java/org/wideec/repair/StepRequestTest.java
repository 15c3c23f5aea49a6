package org.wideec.repair;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.wideec.transport.Endpoint;

class StepRequestTest {
  static final BlockRef UNIT = new BlockRef("BP-1", 42, 1001, 300_000);

  @Test
  void aChainOfRequestsSurvivesTheWire() throws IOException {
    StepRequest head = new StepRequest(UNIT, 7, 300_000, 65536, 2, 3, List.of());
    StepRequest mid = new StepRequest(new BlockRef("BP-1", 43, 1001, 250_000, new byte[] {9, 8, 7}), 200, 300_000, 65536, 2, 3,
        List.of(new StepRequest.Upstream(new Endpoint("10.0.0.1", 9999, "10.0.0.1:9866", "/rack1"), head)));
    StepRequest back = StepRequest.parse(mid.toBytes());
    assertEquals(mid, back);
    assertEquals(5, back.slices());
    assertEquals(300_000 - 4 * 65536, back.sliceLength(4));
    assertTrue(back.carries(2) && back.carries(5) && !back.carries(3) && !back.carries(0));
    StepRequest range = StepRequest.parse(mid.range(131072, 70_000).toBytes());
    assertEquals(mid.range(131072, 70_000), range);
    assertEquals(131072, range.upstreams().get(0).request().offset());
    assertEquals(70_000, range.upstreams().get(0).request().length());
    assertEquals(List.of((byte) 9, (byte) 8, (byte) 7), List.of(range.unit().token()[0], range.unit().token()[1], range.unit().token()[2]));
    StepRequest digest = StepRequest.digestOf(UNIT, 65536);
    assertEquals(digest, StepRequest.parse(digest.toBytes()));
    assertTrue(StepRequest.parse(digest.toBytes()).digest());
  }

  @Test
  void malformedRequestsAreRefused() {
    byte[] good = new StepRequest(UNIT, 1, 1000, 512, 0, 1, List.of()).toBytes();
    assertThrows(IOException.class, () -> StepRequest.parse(Arrays.copyOf(good, good.length - 3)), "truncated");
    assertThrows(IOException.class, () -> StepRequest.parse(Arrays.copyOf(good, good.length + 1)), "trailing bytes");
    byte[] badStride = new StepRequest(UNIT, 1, 1000, 512, 0, 1, List.of()).toBytes();
    badStride[badStride.length - 6] = (byte) 0x80; // the stride's high byte (before the 2-byte upstream count)
    IOException e = assertThrows(IOException.class, () -> StepRequest.parse(badStride));
    assertTrue(e.getMessage().contains("malformed step request"), e.getMessage());
  }
}
