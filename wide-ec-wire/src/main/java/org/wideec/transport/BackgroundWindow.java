package org.wideec.transport;

/**
 * How many slices a stream of background work (repairs, rebuild orders, decommission rebuilds, archival encodes:
 * {@link BackgroundWork}) may have in flight on one hop: the bandwidth-delay product of the hop's path, enough slices
 * to keep its narrowest link busy across a round trip of {@link #roundTripMs} (a slice's own time on the link, the
 * consumer's turn to take it, and the credit coming back). The path is the node links, and for a hop between racks
 * the rack uplinks too ({@link #nodeBytesPerSecond}, {@link #rackBytesPerSecond}); the window is at least the
 * configured one (wide-ec.transport.window.slices) and at most what producers accept (wide-ec.transport.max-credits).
 * A producer sends at most one window per round trip, so the configured 4 slices of 256 KiB held a hop whose round
 * trip was 100 ms to 10 MB/s: a 25 MB/s node link ran at less than half its rate, and a lost unit took twice its
 * link bound.
 *
 * <p>Why a larger window does not defeat the background caps. The window bounds how far ahead of its consumer a
 * producer may be, never how fast it sends: every background slice still waits for its bytes in the sending node's
 * token buckets before it is written ({@link CappedBackground}: the node's cap, scaled down by the DataNode's
 * back-off while users are served, and its share of the rack's uplink), holding its credit meanwhile, and that wait
 * happens slice by slice whatever the window. So a stream's rate is the smaller of window / round trip and the caps;
 * sized to the link, the window is never the smaller while a cap is set below the link, and the caps alone set the
 * rate, as they did before: what the window adds is only that an uncapped (or idle-capped) repair keeps its link
 * busy. What more a larger window can put in front of a user's slice is the backlog of a link that background
 * senders together overfill (several capped helpers converging on one node's downlink): at most one window per such
 * stream; the bucket bursts are a tenth of a second of each cap either way. That is what
 * {@code foregroundFractionWithCaps} of {@code bench ops} and {@code bench repair} measures (users' reads during a
 * full-node recovery under caps, against idle), and why a hop between racks is sized to the uplink, not to its node
 * links: a window ten times the uplink's product would only queue at the uplink, in front of users' slices, and move
 * nothing faster. It is also why the round trip is a setting: a smaller one trades repair speed back for a shorter
 * backlog, and 0 keeps background streams at wide-ec.transport.window.slices.
 *
 * @param nodeBytesPerSecond a node's link; 0: the emulated node link when shaping is on ({@link TrafficShaper}), else
 *     {@link #UNSHAPED_LINK_BYTES_PER_SECOND}
 * @param rackBytesPerSecond a rack's uplink, which a hop between racks crosses; 0: the emulated rack uplink when
 *     shaping is on, else no narrower than the node links
 * @param roundTripMs the round trip a hop's window must cover; 0: background streams keep the configured window
 */
public record BackgroundWindow(long nodeBytesPerSecond, long rackBytesPerSecond, long roundTripMs) {
  public static final String NODE_LINK = TransportConf.PREFIX + "background.window.node.bytes-per-second";
  public static final String RACK_LINK = TransportConf.PREFIX + "background.window.rack.bytes-per-second";
  public static final String ROUND_TRIP = TransportConf.PREFIX + "background.window.round-trip.ms";
  /**
   * Off by default: background streams keep the configured window. 100 ms is the candidate (a 256 KiB slice is 10 ms
   * on a 25 MB/s link, and the embedded bench's pipelined RS(10,4) repair ran at 10 MB/s on 4 slices, 1 MiB a hop:
   * 100 ms a round trip), but on the shared 2-core host it made that repair slower (conventionalOverPipelinedRs 3.80
   * with the old window, 2.66 and 2.09 with 100 ms: benchmarks/RESULTS.md), so it stays off until a run where the
   * links, not the CPU, bind shows a gain.
   */
  public static final long DEFAULT_ROUND_TRIP_MS = 0;
  /** The link assumed when neither it nor shaping is configured: a 1 Gbit/s NIC (ECPipe's and ECWide's testbeds). */
  public static final long UNSHAPED_LINK_BYTES_PER_SECOND = 125_000_000L;
  public static final BackgroundWindow DEFAULT = new BackgroundWindow(0, 0, DEFAULT_ROUND_TRIP_MS);

  public BackgroundWindow {
    if (nodeBytesPerSecond < 0) {
      throw new IllegalArgumentException(NODE_LINK + " must be >= 0 (0: the emulated node link, else 1 Gbit/s), got "
          + nodeBytesPerSecond);
    }
    if (rackBytesPerSecond < 0) {
      throw new IllegalArgumentException(RACK_LINK + " must be >= 0 (0: the emulated rack uplink, else none), got "
          + rackBytesPerSecond);
    }
    if (roundTripMs < 0) {
      throw new IllegalArgumentException(ROUND_TRIP + " must be >= 0 (0: the configured window), got " + roundTripMs);
    }
  }

  /**
   * The narrowest link of a hop's path, bytes/s: the node links (as configured, else the shaper's as they are now,
   * else 1 Gbit/s), and for a hop between racks ({@code crossRack}) the rack uplinks (as configured, else the
   * shaper's, else none).
   */
  public long link(TrafficShaper shaper, boolean crossRack) {
    long node = nodeBytesPerSecond > 0 ? nodeBytesPerSecond : shaper.nodeBytesPerSecond();
    if (node <= 0) {
      node = UNSHAPED_LINK_BYTES_PER_SECOND;
    }
    long rack = rackBytesPerSecond > 0 ? rackBytesPerSecond : shaper.rackBytesPerSecond();
    return crossRack && rack > 0 ? Math.min(node, rack) : node;
  }

  /**
   * The window in slices of {@code sliceBytes}: the bandwidth-delay product of a link of {@code link} bytes/s over
   * the round trip, rounded up to whole slices, at least {@code window} and at most {@code maxCredits}.
   */
  public int slices(long link, int sliceBytes, int window, int maxCredits) {
    if (sliceBytes <= 0 || roundTripMs == 0) {
      return window;
    }
    long bytes = link > Long.MAX_VALUE / roundTripMs ? Long.MAX_VALUE : (link * roundTripMs + 999) / 1000;
    return SliceTransport.inSlices(bytes, sliceBytes, window, maxCredits);
  }
}
