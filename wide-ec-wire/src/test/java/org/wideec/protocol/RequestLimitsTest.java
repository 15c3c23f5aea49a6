package org.wideec.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.wideec.topology.Endpoint;
import org.wideec.repair.BlockRef;
import org.wideec.topology.Site;

class RequestLimitsTest {
  private static final BlockRef UNIT = new BlockRef("bp", 1, 1, 1 << 20);
  private static final RequestLimits LIMITS = RequestLimits.forFrames(4 << 20);

  private static StepRequest chain(int helpers, int slice) {
    StepRequest r = new StepRequest(UNIT, 1, UNIT.numBytes(), slice, 0, 1, List.of());
    for (int i = 1; i < helpers; i++) {
      r = new StepRequest(UNIT, 1, UNIT.numBytes(), slice, 0, 1,
          List.of(new StepRequest.Upstream(new Endpoint("h" + i, 1, new Site("n" + i, "/r")), r)));
    }
    return r;
  }

  @Test
  void aChainThroughEveryUnitOfTheWidestStripeIsAccepted() throws IOException {
    LIMITS.check(StepRequest.parse(chain(RequestLimits.STRIPE_UNITS, 64 * 1024).toBytes()));
  }

  @Test
  void aSliceLargerThanAFrameIsRefusedBeforeAnyBufferIsAllocated() {
    IOException e = assertThrows(IOException.class, () -> LIMITS.check(chain(1, Integer.MAX_VALUE)));
    assertEquals("step request asks for slices of 2147483647 bytes; at most 4194304 (wide-ec.transport.max-frame.bytes)",
        e.getMessage());
  }

  @Test
  void aRequestDeeperThanAnyStripeIsRefused() {
    IOException e = assertThrows(IOException.class, () -> LIMITS.check(chain(RequestLimits.STRIPE_UNITS + 2, 65536)));
    assertEquals("step request tree has 256 steps; at most 255 (units in a stripe: a repair or encode asks each helper "
        + "once)", e.getMessage());
  }

  @Test
  void aShallowTreeWithMoreStepsThanAStripeHasUnitsIsRefused() throws IOException {
    // 1 + 16 + 16 x 16 = 273 steps, two deep and 16 wide: within the depth and fan-out bounds, beyond any stripe.
    List<StepRequest.Upstream> heads = new java.util.ArrayList<>();
    for (int i = 0; i < 16; i++) {
      List<StepRequest.Upstream> leaves = new java.util.ArrayList<>();
      for (int j = 0; j < 16; j++) {
        leaves.add(new StepRequest.Upstream(new Endpoint("h", 1, new Site("fake" + i + "-" + j, "/r")),
            chain(1, 65536)));
      }
      heads.add(new StepRequest.Upstream(new Endpoint("h", 1, new Site("fake" + i, "/r")),
          new StepRequest(UNIT, 1, UNIT.numBytes(), 65536, 0, 1, leaves)));
    }
    StepRequest tree = new StepRequest(UNIT, 1, UNIT.numBytes(), 65536, 0, 1, heads);
    IOException e = assertThrows(IOException.class, () -> LIMITS.check(StepRequest.parse(tree.toBytes())));
    assertEquals("step request tree has 256 steps; at most 255 (units in a stripe: a repair or encode asks each helper "
        + "once)", e.getMessage());
  }

  @Test
  void aLengthNearTheLargestLongIsRefusedNotWrapped() {
    // length + slice - 1 wraps negative here; the slice count is still 2^63 / 512, far beyond an int.
    StepRequest r = new StepRequest(UNIT, 1, 0, Long.MAX_VALUE, 512, 0, 1, List.of(), false);
    IOException e = assertThrows(IOException.class, () -> LIMITS.check(r));
    assertEquals("step request reads 9223372036854775807 bytes in slices of 512: more than 2147483647 slices",
        e.getMessage());
  }

  @Test
  void aRangePastTheLargestOffsetIsRefused() {
    StepRequest r = new StepRequest(UNIT, 1, Long.MAX_VALUE - 100, 1 << 20, 65536, 0, 1, List.of(), false);
    IOException e = assertThrows(IOException.class, () -> LIMITS.check(r));
    assertEquals("step request reads 1048576 bytes from offset 9223372036854775707: past the largest offset a replica "
        + "can have", e.getMessage());
  }

  private static StepRequest askingFor(Endpoint upstream) {
    return new StepRequest(UNIT, 1, UNIT.numBytes(), 65536, 0, 1,
        List.of(new StepRequest.Upstream(upstream, new StepRequest(UNIT, 1, UNIT.numBytes(), 65536, 0, 1, List.of()))));
  }

  @Test
  void upstreamsMustBeSlicePortsOnTheHostOfTheDataNodeTheyName() throws IOException {
    LIMITS.check(askingFor(new Endpoint("10.0.0.7", 9870, new Site("10.0.0.7:9866", "/r1"))));
    IOException elsewhere = assertThrows(IOException.class,
        () -> LIMITS.check(askingFor(new Endpoint("169.254.169.254", 80, new Site("10.0.0.7:9866", "/r1")))));
    assertEquals("request names upstream 10.0.0.7:9866 (/r1, slice port 169.254.169.254:80) on another host than "
        + "DataNode 10.0.0.7:9866: a node dials only slice ports of this cluster's DataNodes", elsewhere.getMessage());
    IOException port = assertThrows(IOException.class,
        () -> LIMITS.check(askingFor(new Endpoint("10.0.0.7", 0, new Site("10.0.0.7:9866", "/r1")))));
    assertEquals("request names upstream 10.0.0.7:9866 (/r1, slice port 10.0.0.7:0): not a host and port",
        port.getMessage());
  }

  @Test
  void aMultiRowStepsFrameMustFitTheBound() throws IOException {
    StepRequest wide = StepRequest.encodeStep(UNIT, new int[] {1, 2, 3, 4}, UNIT.numBytes(), 2 << 20, List.of());
    IOException e = assertThrows(IOException.class, () -> LIMITS.check(wide));
    assertEquals("step request asks for 4 rows of 2097152-byte slices: frames of 8388608 bytes; at most 4194304 "
        + "(wide-ec.transport.max-frame.bytes)", e.getMessage());
    int[] most = new int[StepRequest.MAX_ROWS];
    java.util.Arrays.fill(most, 7);
    LIMITS.check(StepRequest.encodeStep(UNIT, most, UNIT.numBytes(), (4 << 20) / StepRequest.MAX_ROWS, List.of()));
    // An encode's chain through every unit of the widest stripe, 4 rows a frame.
    StepRequest r = StepRequest.encodeStep(UNIT, new int[] {1, 2, 3, 4}, UNIT.numBytes(), 1 << 20, List.of());
    for (int i = 1; i < RequestLimits.STRIPE_UNITS; i++) {
      r = StepRequest.encodeStep(UNIT, new int[] {1, 2, 3, 4}, UNIT.numBytes(), 1 << 20,
          List.of(new StepRequest.Upstream(new Endpoint("h" + i, 1, new Site("n" + i, "/r")), r)));
    }
    LIMITS.check(StepRequest.parse(r.toBytes()));
  }
}
