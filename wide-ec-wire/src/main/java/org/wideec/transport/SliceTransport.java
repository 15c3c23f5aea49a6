package org.wideec.transport;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.Closeable;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.wideec.topology.Endpoint;

/**
 * One node's end of the slice protocol (Netty): a server whose authenticated peers ask it for streams, and
 * a client that asks peers for theirs ({@link StreamDialer}). Streams are credit-based (a producer holds at most the
 * window of unacknowledged slices per consumer, so memory per repair does not grow with block size; {@link #windowFor},
 * and for background work {@link BackgroundWindow}, which says why a window sized to the link leaves the background
 * caps in charge of the rate), shaped by the {@link TrafficShaper} and counted in-rack or cross-rack.
 */
public final class SliceTransport implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(SliceTransport.class);
  private final TransportConf conf;
  /** This node's name as its peers know it: looked up on each use, as a DataNode learns its own once registered. */
  private final java.util.function.Supplier<String> self;
  private final Handshake handshake;
  private final EventLoopGroup loops;
  private final TransportTls tls;
  private final SlicePort port;
  private final ConnectionPool pool;
  private final RefusedHandshakes refusals = new RefusedHandshakes();
  private final StreamDialer dialer;
  private Channel server;
  private int boundPort;

  /**
   * @param node this node's name for logs (its identity in a repair is what the requestor calls it)
   * @param workers threads that run requests (they block on disks, credits and shaping)
   * @throws IOException when TLS is asked for and cannot be set up
   */
  public SliceTransport(TransportConf conf, String node, TrafficCounters counters, ExecutorService workers)
      throws IOException {
    this(conf, node, counters, workers, null);
  }

  /** @param tokens checks the block tokens clients authenticate with; null when block tokens are off */
  public SliceTransport(TransportConf conf, String node, TrafficCounters counters, ExecutorService workers,
      TokenKeys tokens) throws IOException {
    this(conf, () -> node, counters, workers, tokens);
  }

  /**
   * @param self this node's name, asked on each use: a DataNode's is its transfer address as the NameNode knows it,
   *     known only once it registered (DataNodes compare culprits and peers by that address)
   */
  public SliceTransport(TransportConf conf, java.util.function.Supplier<String> self, TrafficCounters counters,
      ExecutorService workers, TokenKeys tokens) throws IOException {
    this.conf = conf;
    this.self = self;
    this.handshake = conf.handshake().withTokens(tokens);
    this.port = new SlicePort(conf, self, handshake, counters, refusals, workers);
    this.tls = conf.tls() == null ? null : new TransportTls(conf.tls());
    this.loops = new NioEventLoopGroup(2, new DefaultThreadFactory("wide-ec-transport-" + self.get().replace(':', '-'), true));
    this.pool = new ConnectionPool(conf.limits());
    this.dialer = new StreamDialer(conf, self, counters, loops, tls, pool, refusals);
    if (conf.limits().poolMaxIdlePerPeer() > 0) {
      long every = Math.max(1, conf.limits().poolIdleMs() / 2);
      loops.next().scheduleAtFixedRate(pool::sweep, every, every, TimeUnit.MILLISECONDS);
    }
  }

  public String node() {
    return self.get();
  }

  /**
   * What this node proves as a cluster member: the cluster secret (or nothing under auth=none), under its name; what
   * {@link #open} without a credential proves.
   */
  public Credential ownCredential() {
    return handshake.ownCredential().named(node());
  }

  public TransportConf conf() {
    return conf;
  }

  /** Binds the server and returns the port it listens on. */
  public int start(RequestHandler handler) throws IOException {
    if (tls != null) {
      try {
        tls.serve(); // the keystore only a serving node needs
      } catch (IOException e) {
        close();
        throw e;
      }
    }
    ServerBootstrap b = new ServerBootstrap().group(loops).channel(NioServerSocketChannel.class)
        .childOption(ChannelOption.TCP_NODELAY, true)
        .childHandler(new ChannelInitializer<SocketChannel>() {
          @Override
          protected void initChannel(SocketChannel ch) {
            serverPipeline(ch, handler);
          }
        });
    try {
      server = b.bind(new InetSocketAddress(conf.bindHost(), conf.port())).sync().channel();
    } catch (Exception e) {
      close();
      throw new IOException("cannot bind the wide-ec slice port " + conf.bindHost() + ":" + conf.port() + " ("
          + TransportConf.BIND_HOST + ", " + TransportConf.PORT + "; port 0 takes any free port): " + e, e);
    }
    boundPort = ((InetSocketAddress) server.localAddress()).getPort();
    LOG.info("wide-ec slice transport of {} listening on {}:{} (authentication {}, frame tags {}, TLS {}, shaping {},"
        + " background window {} slices a hop in a rack, {} between racks)", node(), conf.bindHost(), boundPort,
        handshake.authenticates() ? "HMAC" : "OFF", handshake.authenticates() ? conf.frameMac() + " preferred" : "none",
        tls != null ? "on" : "off", conf.shaper().enabled() ? "on" : "off",
        windowFor(BackgroundWork.id(true), conf.sliceBytes(), false),
        windowFor(BackgroundWork.id(true), conf.sliceBytes(), true));
    return boundPort;
  }

  /**
   * One accepted connection's handlers, one job each: its place at the port, the handshake (gone once the peer is
   * proven), credits, and the dispatch of its requests to helper threads. Frames are tagged under the session's keys
   * by the codec once the handshake started them.
   */
  private void serverPipeline(SocketChannel ch, RequestHandler handler) {
    ch.pipeline().addLast(new IdleStateHandler(conf.limits().idleTimeoutMs(), 0, 0, TimeUnit.MILLISECONDS));
    if (tls != null) {
      ch.pipeline().addLast(tls.serverHandler());
    }
    FrameAuth auth = new FrameAuth();
    PeerSession session = new PeerSession(port, ch);
    AdmissionHandler admission = new AdmissionHandler(port, session);
    ch.pipeline().addLast(new FrameCodec.Decoder(conf.maxFrameBytes(), auth), new FrameCodec.Encoder(auth), admission,
        new HandshakeHandler(port, session, admission, auth), new CreditHandler(session, conf.limits().maxCredits()),
        new DispatchHandler(port, session, handler));
  }

  public int port() {
    return boundPort;
  }

  /**
   * Sends this node's background slices ({@link BackgroundWork}) under {@code throttle} from the next slice on
   * (null: uncapped, as before). Users' slices are never throttled.
   */
  public void capBackground(BackgroundThrottle throttle) {
    port.background = throttle == null ? BackgroundThrottle.NONE : throttle;
  }

  /** Connections peers opened to this node's slice port since it started (each one handshake). */
  public long acceptedConnections() {
    return port.accepted.get();
  }

  /** The handshakes this node refused, and those of its own that peers refused, per peer and reason. */
  public RefusedHandshakes refusals() {
    return refusals;
  }

  /** Connections peers hold to this node's slice port now. */
  public int openConnections() {
    return port.gate.connections();
  }

  /** Connections closed in their handshake to make room for a newcomer, since start ({@link PeerLimits.Gate}). */
  public long evictedConnections() {
    return port.gate.evicted();
  }

  /** Requests refused before they took a helper thread (a bad token, a request beyond a bound) since start. */
  public long screenedOut() {
    return port.screenedOut.get();
  }

  /** Requests refused since start because their principal held its share, or every helper thread was busy. */
  public long refusedBusy() {
    return port.refusedBusy.get();
  }

  /**
   * Requests running now under one principal: {@code "token owner <user>"} (a client, by the user of the block token
   * its request carries, whether it asked itself or a DataNode relays it; {@link RequestHandler#screen(byte[],
   * boolean)}), {@code "DataNode <name>"} (a cluster peer's own requests, by the name it proved in the handshake), or
   * {@code "DataNode at <address>"}, {@code "client at <address>"} and {@code "peer at <address>"} for peers that
   * named nobody.
   */
  public int requestsOf(String principal) {
    return port.gate.requestsOf(principal);
  }

  /**
   * How many slices of {@code sliceBytes} a consumer lets the producer of stream {@code streamId} send ahead of it.
   * Background work gets the bandwidth-delay product of its hop ({@link BackgroundWindow}: the narrowest link of the
   * path, the rack uplinks too when {@code crossRack}, times the configured round trip), at least the configured
   * window (wide-ec.transport.window.slices) and at most what producers accept (wide-ec.transport.max-credits): its rate is
   * set by the caps and back-off every background slice waits for at its sender, never by the window, which only
   * keeps an uncapped hop from idling across the round trip. A user's stream ({@link BackgroundWork}: a degraded
   * read's chain) gets enough slices for {@link #FOREGROUND_WINDOW_BYTES}, within the same bounds: a hop sends at most
   * one window per round trip, and a chain cuts a range into many small slices to keep its fill short (ECPipe §3.2),
   * so with the configured 4 slices of 16 KiB a hop across a rack uplink whose queue a recovery keeps full (tens of
   * ms a round trip) ran at a fraction of the uplink, while HDFS's read beside it, one TCP stream, used what TCP gave
   * it. With the window the hop is TCP's too.
   */
  public int windowFor(long streamId, int sliceBytes, boolean crossRack) {
    if (sliceBytes <= 0) {
      return conf.window();
    }
    if (BackgroundWork.isBackground(streamId)) {
      BackgroundWindow w = conf.backgroundWindow();
      return w.slices(w.link(conf.shaper(), crossRack), sliceBytes, conf.window(), conf.limits().maxCredits());
    }
    return inSlices(FOREGROUND_WINDOW_BYTES, sliceBytes, conf.window(), conf.limits().maxCredits());
  }

  /** A window of {@code bytes} in whole slices of {@code sliceBytes}, at least {@code least}, at most {@code most}. */
  static int inSlices(long bytes, int sliceBytes, int least, int most) {
    long slices = bytes / sliceBytes + (bytes % sliceBytes == 0 ? 0 : 1);
    return (int) Math.max(least, Math.min(slices, most));
  }

  /**
   * The bytes a user's stream may have in flight on one hop: a bandwidth-delay product with room to spare (10 MB/s of
   * uplink times 200 ms of queue), twice what the default window of the largest default slices holds (4 x 256 KiB).
   */
  public static final int FOREGROUND_WINDOW_BYTES = 2 << 20;

  /**
   * Connects to a peer, authenticates and asks it for a stream; slices then arrive on the returned stream.
   * {@code myNode}/{@code myRack} say who asks, as the requestor named this node.
   */
  public PeerStream open(Endpoint peer, String myNode, String myRack, long repairId, byte[] body) throws PeerFailure {
    return open(peer, myNode, myRack, repairId, body, ownCredential());
  }

  /** The same with a window of {@code window} slices ({@link #windowFor}). */
  public PeerStream open(Endpoint peer, String myNode, String myRack, long repairId, byte[] body, int window)
      throws PeerFailure {
    return open(peer, myNode, myRack, repairId, body, ownCredential(), window);
  }

  /**
   * What this node proves when it asks for a stream of a replica: the cluster secret on a DataNode; on a client,
   * which has no secret, the block token it holds for that replica (serialized; anonymous when empty).
   */
  public Credential credentialFor(byte[] token) throws PeerFailure {
    if (handshake.authenticates()) {
      return ownCredential();
    }
    try {
      return Credential.ofToken(token);
    } catch (IOException | RuntimeException e) {
      throw new PeerFailure(null, node() + " holds a malformed block token: " + e.getMessage(), e);
    }
  }

  /**
   * The same, proving {@code credential} instead of this node's own (a client's block token). A connection kept
   * from an earlier stream to the same peer, proving the same kind of credential, is reused: it was authenticated
   * then, and each request carries its own authority (block tokens) for the replicas it names.
   */
  public PeerStream open(Endpoint peer, String myNode, String myRack, long repairId, byte[] body, Credential credential)
      throws PeerFailure {
    return open(peer, myNode, myRack, repairId, body, credential, conf.window());
  }

  /** The same, granting the producer {@code window} slices ahead of what this node has taken ({@link #windowFor}). */
  public PeerStream open(Endpoint peer, String myNode, String myRack, long repairId, byte[] body, Credential credential,
      int window) throws PeerFailure {
    return openAll(myNode, myRack, repairId, List.of(new Ask(peer, body, credential, window))).get(0);
  }

  /**
   * One stream of an {@link #openAll}: the peer asked, the request's body, what this node proves to it and the window
   * it grants ({@link #windowFor}).
   */
  public record Ask(Endpoint peer, byte[] body, Credential credential, int window) {}

  /**
   * Asks several peers for their streams at once, each as {@link #open} asks one: every new connection's connect and
   * handshake are in flight together, so k cold streams cost about one setup instead of k one after the other. A
   * requestor whose star (or rack-aggregated tree) needs all its streams before its first slice moves (ECPipe §3.2)
   * otherwise pays connect + challenge + AUTH + AUTH_OK once per helper in turn: on a busy 2-core cluster a node-loss
   * recovery spent 1.9-2.5 s of its 24.6 s opening the requestors' streams. Each stream still proves its own
   * credential and asks on a kept connection when one is free.
   *
   * @return the streams, in the asks' order, each authenticated (or on a kept connection) with its request sent
   * @throws PeerFailure the failure of the first ask, in their order, that failed; every stream of the call is then
   *     closed, and no connection it dialled is left open or kept
   */
  public List<PeerStream> openAll(String myNode, String myRack, long repairId, List<Ask> asks) throws PeerFailure {
    return dialer.openAll(myNode, myRack, repairId, asks);
  }

  /** Whether this transport is shutting down (its node is stopping): it opens no more streams. */
  public boolean closing() {
    return loops.isShuttingDown();
  }

  /** Authenticated connections this node keeps open to peers for reuse. */
  public int keptConnections() {
    return pool.size();
  }

  @Override
  public void close() {
    pool.close();
    if (server != null) {
      server.close().awaitUninterruptibly();
    }
    loops.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly();
    if (tls != null) {
      tls.close();
    }
  }
}
