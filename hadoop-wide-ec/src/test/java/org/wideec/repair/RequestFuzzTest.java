package org.wideec.repair;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.wideec.transport.Endpoint;

/**
 * The step-request parser and its bounds under a seeded fuzzer (random bytes, mutations of valid request trees up to
 * a stripe deep or wide): a malformed request is an IOException and nothing else, parsing finishes at once whatever
 * a length field claims, and whatever parses is then held to RequestLimits before a helper acts on it.
 */
class RequestFuzzTest {
  static final long SEED = Long.getLong("wideec.fuzz.seed", 20261123L);
  static final int CASES = Integer.getInteger("wideec.fuzz.cases", 10_000);

  static StepRequest tree(Random r, int depth) {
    List<StepRequest.Upstream> ups = new ArrayList<>();
    int fanOut = depth > 3 ? 0 : r.nextInt(4);
    for (int i = 0; i < fanOut; i++) {
      String host = "10.0." + r.nextInt(256) + "." + r.nextInt(256);
      ups.add(new StepRequest.Upstream(new Endpoint(host, 1 + r.nextInt(65535), host + ":9866", "/r" + r.nextInt(9)),
          tree(r, depth + 1)));
    }
    byte[] token = new byte[r.nextInt(3) == 0 ? 0 : r.nextInt(200)];
    r.nextBytes(token);
    long length = r.nextInt(1 << 20);
    return new StepRequest(new BlockRef("BP-" + r.nextInt(), r.nextLong(), r.nextLong() & Long.MAX_VALUE, length, token),
        r.nextInt(256), 512L * r.nextInt(100), length, 512 * (1 + r.nextInt(512)), r.nextInt(4), 1 + r.nextInt(4), ups,
        r.nextInt(8) == 0);
  }

  @Test
  void aMalformedRequestIsAnIOExceptionAndNothingElse() {
    Random r = new Random(SEED);
    RequestLimits limits = RequestLimits.forFrames(4 << 20);
    for (int c = 0; c < CASES; c++) {
      byte[] input = r.nextInt(4) == 0 ? org.wideec.transport.ProtocolFuzzAccess.random(r, 2000)
          : org.wideec.transport.ProtocolFuzzAccess.mutate(tree(r, 0).toBytes(), r);
      long start = System.nanoTime();
      try {
        limits.check(StepRequest.parse(input));
      } catch (IOException refused) {
        // malformed or beyond a bound: said so
      } catch (RuntimeException | StackOverflowError | OutOfMemoryError e) {
        fail("case " + c + " (seed " + SEED + "): " + e, e);
      }
      assertTrue(System.nanoTime() - start < 1_000_000_000L, "case " + c + " (seed " + SEED + ") took over a second");
    }
  }
}
