package org.wideec.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.wideec.repair.BlockRef;
import org.wideec.topology.Endpoint;
import org.wideec.topology.Site;

class DialAheadRequestTest {
  private static final StepRequest STEP = new StepRequest(new BlockRef("BP-1", 7, 3, 4096, new byte[] {1, 2}), 5,
      4096, 1024, 0, 1, List.of(new StepRequest.Upstream(new Endpoint("10.0.0.2", 9873, new Site("10.0.0.2:9866", "/r2")),
          new StepRequest(new BlockRef("BP-1", 8, 3, 4096, new byte[0]), 9, 4096, 1024, 0, 1, List.of()))));

  @Test
  void roundTripsItsStepAndIsNoStep() throws IOException {
    byte[] b = new DialAheadRequest(STEP).toBytes();
    assertTrue(DialAheadRequest.isOne(b));
    assertFalse(DialAheadRequest.isOne(STEP.toBytes()));
    StepRequest back = DialAheadRequest.parse(b).step();
    assertEquals(STEP.unit().blockId(), back.unit().blockId());
    assertEquals(STEP.upstreams().get(0).endpoint(), back.upstreams().get(0).endpoint());
    assertEquals(9, back.upstreams().get(0).request().coefficient());
    assertEquals(DialAheadRequest.class, MessageKind.decode(b, null).getClass());
    // A step parser (an earlier release's helper) refuses it as a step of unknown kind, never runs it.
    IOException e = assertThrows(IOException.class, () -> StepRequest.parse(b));
    assertTrue(e.getMessage().contains("unknown kind 68"), e.getMessage());
  }

  @Test
  void aTruncatedOneNamesItsStep() {
    byte[] b = new DialAheadRequest(STEP).toBytes();
    IOException e = assertThrows(IOException.class, () -> DialAheadRequest.parse(Arrays.copyOf(b, b.length - 3)));
    assertTrue(e.getMessage().contains("step request"), e.getMessage());
  }
}
