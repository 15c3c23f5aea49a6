package org.wideec.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;
import org.wideec.protocol.DialAheadRequest;
import org.wideec.protocol.StepRequest;
import org.wideec.repair.BlockRef;
import org.wideec.topology.Endpoint;
import org.wideec.topology.Site;
import org.wideec.transport.SliceTransport;
import org.wideec.transport.TrafficCounters;
import org.wideec.transport.TrafficShaper;
import org.wideec.transport.TransportConf;

/** Which helpers of a plan a requestor tells ahead: every inner one that dials upstreams, never a head or a leaf. */
class DialAheadTest {
  private static StepRequest step(int unit, StepRequest.Upstream... ups) {
    return new StepRequest(new BlockRef("BP-1", unit, 1, 4096), 1, 4096, 1024, 0, 1, List.of(ups));
  }

  private static StepRequest.Upstream from(int node, StepRequest req) {
    return new StepRequest.Upstream(new Endpoint("10.0.0." + node, 9873, new Site("10.0.0." + node + ":9866", "/r")),
        req);
  }

  @Test
  void tellsTheInnerHelpersOfChainsAndTrees() throws IOException {
    // A chain 3 -> 2 -> 1 -> head 0, and a tree: 6 and 7 feed 5, which with 8 feeds head 4.
    StepRequest chain = step(0, from(1, step(1, from(2, step(2, from(3, step(3)))))));
    StepRequest tree = step(4, from(5, step(5, from(6, step(6)), from(7, step(7)))), from(8, step(8)));
    ExecutorService workers = Executors.newSingleThreadExecutor();
    TransportConf conf = new TransportConf("127.0.0.1", 0, "a cluster secret for tests".getBytes(StandardCharsets.UTF_8),
        1024, 2, 1 << 20, 1000, 1000, TrafficShaper.OFF, null);
    try (SliceTransport t = new SliceTransport(conf, "req", TrafficCounters.NONE, workers)) {
      List<SliceTransport.Ask> asks = new DialAhead(t).asks(List.of(from(0, chain), from(4, tree)));
      assertEquals(List.of("10.0.0.1", "10.0.0.2", "10.0.0.5"), asks.stream().map(a -> a.peer().host()).toList());
      assertEquals(List.of(1L, 2L, 5L), asks.stream().map(a -> {
        try {
          return DialAheadRequest.parse(a.body()).step().unit().blockId();
        } catch (IOException e) {
          throw new AssertionError(e);
        }
      }).toList(), "each is told its own step");
      assertEquals(List.of(), new DialAhead(t).asks(List.of(from(9, step(9, from(1, step(1)))))), "a head and a leaf only");
      // Node 1 runs steps 1 and 2 in turn: its step 1 reads unit 2 itself, so step 2 is never asked, nor told.
      StepRequest folded = step(0, from(1, step(1, from(1, step(2, from(3, step(3, from(4, step(4)))))))));
      assertEquals(List.of("10.0.0.1", "10.0.0.3"),
          new DialAhead(t).asks(List.of(from(0, folded))).stream().map(a -> a.peer().host()).toList());
    } finally {
      workers.shutdownNow();
    }
  }
}
