package org.wideec.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.wideec.protocol.RapidRaidStepRequest;
import org.wideec.protocol.StepRequest;
import org.wideec.repair.BlockRef;
import org.wideec.topology.Endpoint;
import org.wideec.topology.Site;

/**
 * Every request the step service takes is one shape of step: a helper's rows all go downstream, a RapidRAID position
 * is two rows over its pieces (x_i forwarded, c_i to the local sink) with the upstream's x added into both.
 */
class SliceStepTest {
  private static final BlockRef A = new BlockRef("BP", 1, 2, 3000);
  private static final BlockRef B = new BlockRef("BP", 2, 2, 1000);
  private static final Endpoint UP = new Endpoint("127.0.0.1", 9, new Site("a", "r1"));

  @Test
  void aHelpersStepForwardsEveryRowAndHasNoSink() {
    StepRequest up = new StepRequest(B, new int[] {4, 5}, 0, 3000, 1024, 0, 1, List.of(), false);
    SliceStep step = SliceStep.of(new StepRequest(A, new int[] {2, 3}, 0, 3000, 1024, 0, 1,
        List.of(new StepRequest.Upstream(UP, up)), false));
    assertEquals(List.of(A), step.locals());
    assertArrayEquals(new int[][] {{2}, {3}}, step.coefficients());
    assertEquals(2, step.forwardRows());
    assertEquals(2, step.upstreams().get(0).rows(), "the upstream carries the same two rows");
    assertFalse(step.sinks());
    assertFalse(step.padsShortLocals(), "a helper's unit is read exactly: a short one is an error, not zeros");
  }

  @Test
  void aStepFoldsItsUpstreamsOnTheSameNodeAndAsksTheirsInstead() {
    BlockRef c = new BlockRef("BP", 3, 2, 3000);
    BlockRef d = new BlockRef("BP", 4, 2, 3000);
    Endpoint self = new Endpoint("127.0.0.1", 9, new Site("n1", "r1"));
    Endpoint other = new Endpoint("127.0.0.2", 9, new Site("n2", "r1"));
    // Chain d (n2) -> c (n1) -> b (n1) -> a (n1): n1's step for a reads a, b and c, and asks d's stream.
    StepRequest atD = new StepRequest(d, new int[] {1, 2}, 0, 3000, 1024, 0, 1, List.of(), false);
    StepRequest atC = new StepRequest(c, new int[] {6, 7}, 0, 3000, 1024, 0, 1,
        List.of(new StepRequest.Upstream(other, atD)), false);
    StepRequest atB = new StepRequest(B, new int[] {4, 5}, 0, 3000, 1024, 0, 1,
        List.of(new StepRequest.Upstream(self, atC)), false);
    StepRequest atA = new StepRequest(A, new int[] {2, 3}, 0, 3000, 1024, 0, 1,
        List.of(new StepRequest.Upstream(self, atB)), false);
    SliceStep step = SliceStep.of(atA, "n1");
    assertEquals(List.of(A, B, c), step.locals());
    assertArrayEquals(new int[][] {{2, 4, 6}, {3, 5, 7}}, step.coefficients(), "rows by locals");
    assertEquals(1, step.upstreams().size());
    assertEquals(other, step.upstreams().get(0).endpoint(), "d's stream, asked by n1's one step");
    assertEquals(2, step.forwardRows());

    assertEquals(List.of(A), SliceStep.of(atA, "n2").locals(), "another node folds nothing");
    assertEquals(List.of(A), SliceStep.of(atA).locals(), "as asked: every upstream a stream");
    StepRequest range = new StepRequest(B, new int[] {4, 5}, 0, 2048, 1024, 0, 1, List.of(), false);
    StepRequest otherRange = new StepRequest(A, new int[] {2, 3}, 0, 3000, 1024, 0, 1,
        List.of(new StepRequest.Upstream(self, range)), false);
    assertEquals(List.of(A), SliceStep.of(otherRange, "n1").locals(), "an upstream over other slices stays a stream");
  }

  @Test
  void aRapidRaidPositionIsATwoRowStepWhoseSecondRowGoesToTheSink() {
    RapidRaidStepRequest first = new RapidRaidStepRequest("o", 0, List.of(new RapidRaidStepRequest.Piece(A, 5, 6)),
        3000, 1024, null, true, null, 2, 512);
    RapidRaidStepRequest second = new RapidRaidStepRequest("o", 1, List.of(new RapidRaidStepRequest.Piece(A, 7, 8),
        new RapidRaidStepRequest.Piece(B, 9, 10)), 3000, 1024, new RapidRaidStepRequest.Upstream(UP, first), true,
        null, 2, 512);
    SliceStep step = SliceStep.of(second);
    assertArrayEquals(new int[][] {{7, 9}, {8, 10}}, step.coefficients(), "row 0 = psi (x_i), row 1 = xi (c_i)");
    assertEquals(1, step.forwardRows(), "x_i goes downstream");
    assertTrue(step.sinks(), "c_i, the second row, goes to the local sink");
    assertEquals(1, step.upstreams().get(0).rows(), "x_{i-1}, added into both rows");
    assertTrue(step.padsShortLocals(), "a piece shorter than the codeword reads as zeros");
    assertEquals(3, step.slices());
  }

  @Test
  void theLastPositionComputesOnlyItsCodewordAndForwardsNothing() {
    RapidRaidStepRequest first = new RapidRaidStepRequest("o", 0, List.of(new RapidRaidStepRequest.Piece(A, 5, 6)),
        3000, 1024, null, true, null, 2, 512);
    RapidRaidStepRequest last = new RapidRaidStepRequest("o", 1, List.of(new RapidRaidStepRequest.Piece(B, 7, 8)),
        3000, 1024, new RapidRaidStepRequest.Upstream(UP, first), false, null, 2, 512);
    SliceStep step = SliceStep.of(last);
    assertArrayEquals(new int[][] {{8}}, step.coefficients());
    assertEquals(0, step.forwardRows());
    assertTrue(step.sinks());
  }
}
