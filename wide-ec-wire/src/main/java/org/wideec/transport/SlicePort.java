package org.wideec.transport;

import io.netty.channel.Channel;
import io.netty.channel.socket.SocketChannel;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * One node's slice port as the handlers of every connection to it share it: the settings and limits, the
 * handshake, the helper threads, and what the port counts. Each connection has its own handlers over it (its
 * pipeline, assembled by {@link SliceTransport}) and its own {@link PeerSession}.
 */
final class SlicePort {
  final TransportConf conf;
  final Handshake handshake;
  final PeerLimits.Gate gate;
  final TrafficCounters counters;
  final RefusedHandshakes refusals;
  final ExecutorService workers;
  /** Connections accepted (each one handshake), requests screened out, requests refused as busy: since start. */
  final AtomicLong accepted = new AtomicLong();
  final AtomicLong screenedOut = new AtomicLong();
  final AtomicLong refusedBusy = new AtomicLong();
  private final Supplier<String> self;
  /**
   * Helper threads background requests ({@link BackgroundWork}) may hold at once: half the pool (at least one), so
   * that capped repairs, which hold their threads far longer than a user's degraded read, never take the threads
   * users' reads need; a pool of unknown size sets no such bound.
   */
  final int backgroundThreads;
  private final AtomicInteger backgroundRunning = new AtomicInteger();
  /** What background slices wait for before they leave ({@link BackgroundWork}); users' slices never do. */
  volatile BackgroundThrottle background = BackgroundThrottle.NONE;

  SlicePort(TransportConf conf, Supplier<String> self, Handshake handshake, TrafficCounters counters,
      RefusedHandshakes refusals, ExecutorService workers) {
    this.conf = conf;
    this.self = self;
    this.handshake = handshake;
    this.gate = conf.limits().gate();
    this.counters = counters;
    this.refusals = refusals;
    this.workers = workers;
    this.backgroundThreads = workers instanceof ThreadPoolExecutor pool
        ? Math.max(1, pool.getMaximumPoolSize() / 2) : Integer.MAX_VALUE;
  }

  /** Starts a background request, or says why not: background work already holds its share of the threads. */
  String admitBackground() {
    if (backgroundRunning.incrementAndGet() > backgroundThreads) {
      backgroundRunning.decrementAndGet();
      return "background work (repairs, rebuilds, encodes) already holds " + backgroundThreads + " helper threads"
          + " here, the most it may: the others are kept for users' reads";
    }
    return null;
  }

  void releaseBackground() {
    backgroundRunning.decrementAndGet();
  }

  /** Background requests running now. */
  int backgroundRunning() {
    return backgroundRunning.get();
  }

  /** This node's name as its peers know it (looked up on each use: a DataNode learns its own once registered). */
  String node() {
    return self.get();
  }

  /** An ERROR's text for a refused connection: this node is the culprit, by the name its peers know it by. */
  String refusal(String why) {
    return node() + "\t" + node() + " refused the connection: " + why;
  }

  /**
   * Sends an ERROR and ends the connection so that the ERROR arrives: the output is shut (FIN after the ERROR)
   * and the consumer's frames are read until it closes. Closing outright while its CREDIT frames sit unread
   * makes the kernel reset the connection, which can drop the ERROR; the consumer would then see only a broken
   * connection and blame this node instead of the one the ERROR names. The connection is closed anyway after
   * the stall timeout.
   */
  void endWithError(Channel channel, Frame error) {
    if (channel.eventLoop().isShuttingDown()) {
      // The transport is closing and closes this channel with it; a listener could no longer run (Netty would log
      // a rejected notification as an ERROR on every request still in flight at shutdown).
      return;
    }
    channel.writeAndFlush(error).addListener(written -> {
      if (written.isSuccess() && channel instanceof SocketChannel socket) {
        socket.shutdownOutput();
        channel.eventLoop().schedule(() -> channel.close(), conf.stallTimeoutMs(), TimeUnit.MILLISECONDS);
      } else {
        channel.close();
      }
    });
  }
}
