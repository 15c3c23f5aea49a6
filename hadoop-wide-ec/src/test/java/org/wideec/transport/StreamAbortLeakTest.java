package org.wideec.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.wideec.minicluster.Eventually;
import org.wideec.topology.Endpoint;
import org.wideec.topology.Site;

/**
 * Streams cut short at random points, the way aborted repairs cut them: the consumer closes mid-stream, the producer's
 * transport closes under its consumers, the consumer's own transport closes first. Producers are shaped, so slices
 * wait in the producer's queue for the emulated links when the stream ends, and are in flight on the consumer's side
 * while it closes. Every slice a producer allocated must come back to its allocator (counted exactly), and every
 * buffer of either side must be released (PARANOID leak detection for the class).
 */
@ExtendWith(NettyLeakCheck.class)
class StreamAbortLeakTest {
  static final long SEED = Long.getLong("wideec.fuzz.seed", 20261123L);
  static final int SLICES = 64;
  static final int SLICE = 4096;

  // Counts the bytes of every slice producers still hold: UnpooledByteBufAllocator keeps exact metrics. Direct
  // buffers, as only those it hands to the leak detector (an unpooled heap buffer is never tracked).
  private final UnpooledByteBufAllocator slices = new UnpooledByteBufAllocator(false);
  private final ExecutorService workers = Executors.newCachedThreadPool();
  private final AtomicInteger served = new AtomicInteger();
  private final AtomicInteger finished = new AtomicInteger();
  private final List<SliceTransport> transports = new ArrayList<>();

  @AfterEach
  void tearDown() {
    transports.forEach(SliceTransport::close);
    transports.clear();
    workers.shutdownNow();
  }

  private SliceTransport transport(String node) throws IOException {
    // 8 MB/s per node: a 4 KiB slice leaves every ~0.5 ms, so the window's slices queue for the links. Short stall
    // timeout: a producer whose consumer vanished gives up quickly.
    TransportConf conf = new TransportConf("127.0.0.1", 0, null, SLICE, 8, 1 << 16, 500, 2000,
        new TrafficShaper(8_000_000, 0), null);
    SliceTransport t = new SliceTransport(conf, node, TrafficCounters.NONE, workers);
    transports.add(t);
    return t;
  }

  /** A producer that streams SLICES slices from the counting allocator (each released by whoever takes it). */
  private int serve(SliceTransport t) throws IOException {
    return t.start((id, body, d) -> {
      served.incrementAndGet();
      try {
        Producers.sendAll(d, SLICES, s -> slices.directBuffer(SLICE, SLICE).writerIndex(SLICE));
      } finally {
        finished.incrementAndGet();
      }
    });
  }

  /** Takes slices [from, to) (fewer if the stream fails), then leaves the rest as a failed repair does. */
  private static void consume(PeerStream s, int from, int to) throws InterruptedException {
    try (s) {
      take(s, from, to);
    } catch (PeerFailure expected) {
      // the producer or the connection went away first: the stream is closed all the same
    }
  }

  private static void take(PeerStream s, int from, int to) throws PeerFailure, InterruptedException {
    for (int i = from; i < to; i++) {
      s.next(i).release();
      s.credit();
    }
  }

  @Test
  void consumersThatLeaveMidStreamLeaveNothingBehind() throws Exception {
    Random r = new Random(SEED);
    SliceTransport server = transport("abort-producer");
    Endpoint at = new Endpoint("127.0.0.1", serve(server), new Site("abort-producer", "/r1"));
    SliceTransport client = transport("abort-consumer");
    for (int c = 0; c < 150; c++) {
      // Half leave at once or after a few slices (slices in flight either way); the rest read up to the whole stream.
      int take = r.nextBoolean() ? r.nextInt(4) : r.nextInt(SLICES + 1);
      consume(client.open(at, "abort-consumer", "/r2", c, new byte[0]), 0, take);
    }
    assertEquals(150, awaitProducersReleasedEverything(), "every stream reached its producer");
  }

  @Test
  void aProducerClosedUnderItsConsumersLeavesNothingBehind() throws Exception {
    Random r = new Random(SEED + 1);
    SliceTransport client = transport("abort-consumer");
    for (int round = 0; round < 10; round++) {
      SliceTransport server = transport("abort-producer-" + round);
      Endpoint at = new Endpoint("127.0.0.1", serve(server), new Site("abort-producer-" + round, "/r1"));
      List<PeerStream> open = new ArrayList<>();
      int[] took = new int[4];
      for (int i = 0; i < 4; i++) {
        PeerStream s = client.open(at, "abort-consumer", "/r2", round * 10L + i, new byte[0]);
        open.add(s);
        took[i] = 1 + r.nextInt(3); // the producer is running (and its window refilled) before it closes
        take(s, 0, took[i]);
      }
      Thread.sleep(r.nextInt(5));
      server.close(); // its event loops end with slices queued for the links and unwritten
      for (int i = 0; i < 4; i++) {
        consume(open.get(i), took[i], SLICES);
      }
    }
    assertEquals(40, awaitProducersReleasedEverything(), "every stream reached its producer");
  }

  @Test
  void aConsumerWhoseTransportClosesFirstLeavesNothingBehind() throws Exception {
    Random r = new Random(SEED + 2);
    SliceTransport server = transport("abort-producer");
    Endpoint at = new Endpoint("127.0.0.1", serve(server), new Site("abort-producer", "/r1"));
    for (int round = 0; round < 10; round++) {
      SliceTransport client = transport("abort-consumer-" + round);
      List<PeerStream> open = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        open.add(client.open(at, "abort-consumer-" + round, "/r2", round * 10L + i, new byte[0]));
      }
      Thread.sleep(r.nextInt(5)); // slices arrive and are queued, unread
      client.close(); // the consumer's node shuts down before its repairs close their streams
      for (PeerStream s : open) {
        consume(s, 0, SLICES);
      }
    }
    assertEquals(40, awaitProducersReleasedEverything(), "every stream reached its producer");
  }

  /**
   * Waits until every request that reached a producer has run to its end and every slice producers allocated went
   * back to the allocator; returns how many requests there were.
   */
  private int awaitProducersReleasedEverything() {
    Eventually.await("seed " + SEED + ": every producer finished and every slice released", Duration.ofSeconds(10),
        () -> finished.get() + " of " + served.get() + " producers finished; producers still hold "
            + slices.metric().usedDirectMemory() + " bytes of slices",
        seen -> finished.get() >= served.get() && slices.metric().usedDirectMemory() == 0);
    return served.get();
  }
}
