package org.wideec.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.wideec.topology.Endpoint;
import org.wideec.topology.Site;

/**
 * The window of a background stream is its hop's bandwidth-delay product in whole slices, between the configured
 * window and max-credits; a user's stream keeps its 2 MiB; a round trip of 0 gives background work the configured
 * window, as before the link sized it. Over a real connection, a consumer that takes nothing holds exactly its window
 * of slices from the producer (counted by the stream, {@link PeerStream#mostSlicesHeld}).
 */
@ExtendWith(NettyLeakCheck.class)
class BackgroundWindowTest {
  /** The candidate setting: 100 ms of the narrowest link (the default is off). */
  private static final BackgroundWindow CANDIDATE = new BackgroundWindow(0, 0, 100);
  static final int KIB256 = 256 * 1024;
  private final ExecutorService workers = Executors.newCachedThreadPool();

  @AfterEach
  void tearDown() {
    TrafficShaper.emulate(null);
    workers.shutdownNow();
  }

  @Test
  void theWindowIsTheLinksBandwidthDelayProductInWholeSlices() {
    assertEquals(0, BackgroundWindow.DEFAULT.roundTripMs(), "off by default");
    BackgroundWindow w = new BackgroundWindow(0, 0, 100);
    // 25 MB/s x 100 ms = 2,500,000 bytes = 9.54 slices of 256 KiB: 10.
    assertEquals(10, w.slices(25_000_000, KIB256, 4, 64));
    // Exactly 10 slices' worth is 10, not 11.
    assertEquals(10, w.slices(26_214_400, KIB256, 4, 64));
    assertEquals(11, w.slices(26_214_410, KIB256, 4, 64));
    // 1 Gbit/s x 100 ms = 12,500,000 bytes = 47.7 slices: 48.
    assertEquals(48, w.slices(125_000_000, KIB256, 4, 64));
    // Small slices of a fast link: bounded by what producers accept.
    assertEquals(64, w.slices(125_000_000, 16 * 1024, 4, 64));
    assertEquals(32, w.slices(125_000_000, 16 * 1024, 4, 32));
    // A slow link needs less than the configured window, which stays the least.
    assertEquals(4, w.slices(2_500_000, KIB256, 4, 64));
    assertEquals(1, w.slices(2_500_000, KIB256, 1, 64));
    // 50 ms of a 25 MB/s link: 1,250,000 bytes, 4.77 slices: 5.
    assertEquals(5, new BackgroundWindow(0, 0, 50).slices(25_000_000, KIB256, 4, 64));
    // No overflow for absurd rates: max-credits.
    assertEquals(64, new BackgroundWindow(0, 0, 1000).slices(Long.MAX_VALUE, 512, 4, 64));
  }

  @Test
  void aRoundTripOfZeroKeepsTheConfiguredWindow() {
    BackgroundWindow off = new BackgroundWindow(0, 0, 0);
    assertEquals(4, off.slices(125_000_000, KIB256, 4, 64));
    assertEquals(7, off.slices(125_000_000, 16 * 1024, 7, 64));
  }

  @Test
  void thePathsNarrowestLinkIsConfiguredElseEmulatedElseOneGigabitAndNoUplink() {
    TrafficShaper shaped = new TrafficShaper(25_000_000, 2_500_000);
    assertEquals(30_000_000, new BackgroundWindow(30_000_000, 0, 100).link(shaped, false));
    assertEquals(2_500_000, new BackgroundWindow(30_000_000, 0, 100).link(shaped, true), "the emulated uplink");
    assertEquals(10_000_000, new BackgroundWindow(30_000_000, 10_000_000, 100).link(shaped, true));
    assertEquals(30_000_000, new BackgroundWindow(30_000_000, 40_000_000, 100).link(shaped, true),
        "an uplink wider than the node links narrows nothing");
    assertEquals(25_000_000, BackgroundWindow.DEFAULT.link(shaped, false));
    assertEquals(2_500_000, BackgroundWindow.DEFAULT.link(shaped, true));
    assertEquals(125_000_000, BackgroundWindow.DEFAULT.link(TrafficShaper.OFF, false));
    assertEquals(125_000_000, BackgroundWindow.DEFAULT.link(TrafficShaper.OFF, true), "no uplink known: none");
    TrafficShaper.emulate(new long[] {20_000_000, 0}); // what an embedded benchmark imposes between runs
    assertEquals(20_000_000, BackgroundWindow.DEFAULT.link(TrafficShaper.OFF, true));
    assertEquals(20_000_000, BackgroundWindow.DEFAULT.link(shaped, true), "the emulation replaces the configured rates");
  }

  @Test
  void badValuesNameTheirKey() {
    IllegalArgumentException node = assertThrows(IllegalArgumentException.class, () -> new BackgroundWindow(-1, 0, 100));
    assertTrue(node.getMessage().contains(BackgroundWindow.NODE_LINK), node.getMessage());
    IllegalArgumentException rack = assertThrows(IllegalArgumentException.class, () -> new BackgroundWindow(0, -1, 100));
    assertTrue(rack.getMessage().contains(BackgroundWindow.RACK_LINK), rack.getMessage());
    IllegalArgumentException rtt = assertThrows(IllegalArgumentException.class, () -> new BackgroundWindow(0, 0, -1));
    assertTrue(rtt.getMessage().contains(BackgroundWindow.ROUND_TRIP), rtt.getMessage());
  }

  private SliceTransport transport(TrafficShaper shaper, BackgroundWindow w) throws Exception {
    return new SliceTransport(new TransportConf("127.0.0.1", 0, null, KIB256, 4, 4 << 20, 5000, 5000, shaper, null,
        PeerLimits.DEFAULTS, FrameMac.DEFAULT, w), "n", TrafficCounters.NONE, workers);
  }

  @Test
  void theTransportGivesBackgroundStreamsTheLinksWindowAndUsersTheirs() throws Exception {
    long background = BackgroundWork.id(true);
    long user = BackgroundWork.id(false);
    try (SliceTransport t = transport(new TrafficShaper(25_000_000, 2_500_000), CANDIDATE)) {
      assertEquals(10, t.windowFor(background, KIB256, false), "25 MB/s x 100 ms in slices of 256 KiB");
      assertEquals(4, t.windowFor(background, KIB256, true), "2.5 MB/s x 100 ms: 1 slice, the configured 4");
      assertEquals(16, t.windowFor(background, 16 * 1024, true), "250,000 bytes in slices of 16 KiB: 15.3");
      assertEquals(8, t.windowFor(user, KIB256, false), "2 MiB in slices of 256 KiB");
      assertEquals(8, t.windowFor(user, KIB256, true), "a user's window is the same between racks");
      assertEquals(64, t.windowFor(background, 4096, false), "max-credits");
      assertEquals(64, t.windowFor(user, 4096, true), "max-credits");
      assertEquals(4, t.windowFor(background, 0, false), "no slice size: the configured window");
    }
    try (SliceTransport t = transport(TrafficShaper.OFF, CANDIDATE)) {
      assertEquals(48, t.windowFor(background, KIB256, true), "unshaped: 1 Gbit/s x 100 ms");
    }
    try (SliceTransport t = transport(TrafficShaper.OFF, new BackgroundWindow(0, 0, 0))) {
      assertEquals(4, t.windowFor(background, KIB256, false), "round trip 0: the configured window");
      assertEquals(8, t.windowFor(user, KIB256, false));
    }
  }

  /**
   * Opens stream {@code id} from a producer of {@code slices} slices of 256 KiB, takes nothing until the producer has
   * filled the window the consumer's transport chose, then reads every slice; returns the most slices the stream held
   * at once, and checks that the window is all it held and that every slice was counted as background work or as a user's,
   * as it was.
   */
  private int slicesHeld(BackgroundWindow w, long id, int window, int slices) throws Exception {
    AtomicLong backgroundSent = new AtomicLong();
    AtomicLong foregroundSent = new AtomicLong();
    TrafficCounters counted = new TrafficCounters() {
      @Override
      public void sliceSent(int bytes, boolean crossRack) {}

      @Override
      public void backgroundSliceSent(int bytes, boolean crossRack) {
        backgroundSent.incrementAndGet();
      }

      @Override
      public void foregroundSliceSent(int bytes, boolean crossRack) {
        foregroundSent.incrementAndGet();
      }
    };
    TransportConf conf = new TransportConf("127.0.0.1", 0, null, KIB256, 4, 4 << 20, 20_000, 5000,
        new TrafficShaper(25_000_000, 0), null, PeerLimits.DEFAULTS, FrameMac.DEFAULT, w);
    try (SliceTransport producer = new SliceTransport(conf, "p", counted, workers);
        SliceTransport consumer = new SliceTransport(conf, "c", TrafficCounters.NONE, workers)) {
      int port = producer.start((rid, body, d) -> Producers.sendAll(d, slices,
          s -> d.alloc().buffer(KIB256).writeZero(KIB256)));
      assertEquals(window, consumer.windowFor(id, KIB256, false));
      try (PeerStream s = consumer.open(new Endpoint("127.0.0.1", port, new Site("p", "/r1")), "c", "/r1", id,
          new byte[] {1}, consumer.windowFor(id, KIB256, false))) {
        long deadline = System.nanoTime() + 20_000_000_000L; // a bound on a hung producer, not a timing
        while (s.mostSlicesHeld() < window && System.nanoTime() < deadline) {
          Thread.sleep(5);
        }
        assertEquals(window, s.mostSlicesHeld(), "the producer filled the window while the consumer took nothing");
        for (int i = 0; i < slices; i++) {
          s.next(i, KIB256).release();
          s.credit();
        }
        s.awaitEnd();
        assertEquals(window, s.window());
        assertEquals(BackgroundWork.isBackground(id) ? slices : 0, backgroundSent.get());
        assertEquals(BackgroundWork.isBackground(id) ? 0 : slices, foregroundSent.get());
        return s.mostSlicesHeld();
      }
    }
  }

  @Test
  void aBackgroundStreamKeepsItsLinksBandwidthDelayProductInFlight() throws Exception {
    // 25 MB/s emulated node links, 100 ms: 10 slices of 256 KiB in flight, where the configured window held 4.
    assertEquals(10, slicesHeld(CANDIDATE, BackgroundWork.id(true), 10, 24));
    // A user's stream: 2 MiB.
    assertEquals(8, slicesHeld(CANDIDATE, BackgroundWork.id(false), 8, 24));
    // A round trip of 0: the configured window, as before.
    assertEquals(4, slicesHeld(new BackgroundWindow(0, 0, 0), BackgroundWork.id(true), 4, 24));
  }
}
