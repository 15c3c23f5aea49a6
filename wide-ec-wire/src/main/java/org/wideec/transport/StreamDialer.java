package org.wideec.transport;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.wideec.topology.Endpoint;

/**
 * The client half of a {@link SliceTransport}: opens the streams a requestor asks its peers for. It dials every ask at
 * once, sends each request as soon as that connection's own handshake is done, takes a kept connection from the
 * {@link ConnectionPool} where one is free, and closes everything a failed call began.
 */
final class StreamDialer {
  private final TransportConf conf;
  /** This node's name, for the failures it reports (looked up on each use, as in {@link SliceTransport}). */
  private final Supplier<String> self;
  private final TrafficCounters counters;
  private final EventLoopGroup loops;
  private final TransportTls tls;
  private final ConnectionPool pool;
  private final RefusedHandshakes refusals;

  /** @param tls null when the transport runs without TLS */
  StreamDialer(TransportConf conf, Supplier<String> self, TrafficCounters counters, EventLoopGroup loops,
      TransportTls tls, ConnectionPool pool, RefusedHandshakes refusals) {
    this.conf = conf;
    this.self = self;
    this.counters = counters;
    this.loops = loops;
    this.tls = tls;
    this.pool = pool;
    this.refusals = refusals;
  }

  /**
   * Every ask's stream, connect and handshake of each new connection in flight together ({@link
   * SliceTransport#openAll} says why).
   *
   * @return the streams, in the asks' order, each authenticated (or on a kept connection) with its request sent
   * @throws PeerFailure the failure of the first ask, in their order, that failed; every stream of the call is then
   *     closed, and no connection it dialled is left open or kept
   */
  List<PeerStream> openAll(String myNode, String myRack, long repairId, List<SliceTransport.Ask> asks)
      throws PeerFailure {
    List<PeerStream> streams = new ArrayList<>(asks.size());
    List<Dialing> dialing = new ArrayList<>(asks.size()); // null where a kept connection carries the stream
    boolean opened = false;
    try {
      for (SliceTransport.Ask a : asks) { // every connect in flight before any is waited for
        PeerStream stream = new PeerStream(a.peer(), repairId,
            PeerStream.requestPayload(myNode, myRack, a.peer(), a.body()), a.window(), conf.stallTimeoutMs(),
            () -> connect(a.peer(), a.credential()));
        streams.add(stream);
        PeerConnection kept =
            pool.borrow(new ConnectionPool.Key(a.peer().host(), a.peer().port(), a.credential().mode));
        if (kept != null) {
          stream.startOn(kept, true);
          dialing.add(null);
          continue;
        }
        Dialing d = dial(a.peer(), a.credential());
        dialing.add(d);
        // Its request goes out once its own handshake is done, however far the others got: a peer refuses a
        // connection that has not asked within its handshake timeout.
        d.future().addListener(f -> {
          if (f.isSuccess()) {
            stream.startOn(d.connection(), false);
          }
        });
      }
      for (Dialing d : dialing) { // a connect that failed fails the call, the first in the asks' order
        if (d != null) {
          connected(d);
        }
      }
      long deadline =
          System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(conf.connectTimeoutMs() + conf.stallTimeoutMs());
      for (int i = 0; i < streams.size(); i++) {
        if (dialing.get(i) != null) {
          streams.get(i).awaitReady(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
        }
      }
      opened = true;
      return streams;
    } finally {
      if (!opened) {
        for (Dialing d : dialing) {
          if (d != null) {
            d.future().channel().close(); // also ends a connect still in flight
          }
        }
        streams.forEach(PeerStream::close);
      }
    }
  }

  /** A new connection on its way to a peer: its connect is in flight ({@link #connected} waits for it). */
  private record Dialing(Endpoint peer, PeerConnection connection, ChannelFuture future) {}

  /** Starts a new connection to a peer; its handshake runs as soon as the peer challenges. */
  private Dialing dial(Endpoint peer, Credential credential) throws PeerFailure {
    FrameAuth auth = new FrameAuth();
    PeerConnection connection = new PeerConnection(peer, credential, auth, pool, conf.frameMac(), why -> {
      refusals.refusedBy(peer.node(), why, System.currentTimeMillis());
      counters.ownHandshakeRefused(why);
    });
    Bootstrap b = new Bootstrap().group(loops).channel(NioSocketChannel.class)
        .option(ChannelOption.TCP_NODELAY, true)
        .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, conf.connectTimeoutMs())
        .handler(new ChannelInitializer<SocketChannel>() {
          @Override
          protected void initChannel(SocketChannel ch) {
            if (tls != null) {
              ch.pipeline().addLast(tls.clientHandler());
            }
            ch.pipeline().addLast(new FrameCodec.Decoder(conf.maxFrameBytes(), auth), new FrameCodec.Encoder(auth),
                connection);
          }
        });
    if (loops.isShuttingDown()) {
      throw new PeerFailure(null, self.get() + " is shutting down: its slice transport is closed");
    }
    ChannelFuture f = b.connect(peer.host(), peer.port());
    // Attached at once: its handshake may run, or fail, while the caller still waits for other connects.
    connection.attach(f.channel());
    return new Dialing(peer, connection, f);
  }

  /** The dialled connection once connected (at most the connect timeout), or why it could not connect. */
  private PeerConnection connected(Dialing d) throws PeerFailure {
    ChannelFuture f = d.future().awaitUninterruptibly();
    if (!f.isSuccess() && loops.isShuttingDown()) {
      throw new PeerFailure(null, self.get() + " is shutting down: its slice transport is closed");
    }
    if (!f.isSuccess()) {
      throw new PeerFailure(d.peer().node(), "cannot connect to " + d.peer() + ": " + f.cause().getMessage(),
          f.cause());
    }
    return d.connection();
  }

  /** A new connection to a peer, connected; its handshake runs as soon as the peer challenges (a stream's retry). */
  private PeerConnection connect(Endpoint peer, Credential credential) throws PeerFailure {
    return connected(dial(peer, credential));
  }
}
