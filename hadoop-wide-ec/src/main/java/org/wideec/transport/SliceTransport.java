package org.wideec.transport;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.Closeable;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.wideec.topology.Endpoint;

/**
 * One node's end of the slice protocol (Netty): a server whose authenticated peers ask it for streams, and
 * a client that asks peers for theirs. Streams are credit-based (a producer holds at most the window of
 * unacknowledged slices per consumer, so memory per repair does not grow with block size), shaped by the
 * {@link TrafficShaper} and counted in-rack or cross-rack.
 */
public final class SliceTransport implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(SliceTransport.class);
  private final TransportConf conf;
  /** This node's name as its peers know it: looked up on each use, as a DataNode learns its own once registered. */
  private final java.util.function.Supplier<String> self;
  private final TrafficCounters counters;
  private final ExecutorService workers;
  private final Handshake handshake;
  private final EventLoopGroup loops;
  private final TransportTls tls;
  private final PeerLimits.Gate gate;
  private final ConnectionPool pool;
  private final java.util.concurrent.atomic.AtomicLong accepted = new java.util.concurrent.atomic.AtomicLong();
  private final java.util.concurrent.atomic.AtomicLong screenedOut = new java.util.concurrent.atomic.AtomicLong();
  private final java.util.concurrent.atomic.AtomicLong refusedBusy = new java.util.concurrent.atomic.AtomicLong();
  private final RefusedHandshakes refusals = new RefusedHandshakes();
  private Channel server;
  private int port;

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
    this.counters = counters;
    this.workers = workers;
    this.handshake = conf.handshake().withTokens(tokens);
    this.gate = conf.limits().gate();
    this.tls = conf.tls() == null ? null : new TransportTls(conf.tls());
    this.loops = new NioEventLoopGroup(2, new DefaultThreadFactory("wide-ec-transport-" + self.get().replace(':', '-'), true));
    this.pool = new ConnectionPool(conf.limits());
    if (conf.limits().poolMaxIdlePerPeer() > 0) {
      long every = Math.max(1, conf.limits().poolIdleMs() / 2);
      loops.next().scheduleAtFixedRate(pool::sweep, every, every, TimeUnit.MILLISECONDS);
    }
  }

  public String node() {
    return self.get();
  }

  /** What this node proves as a cluster member: the cluster secret (or nothing under auth=none), under its name. */
  private Credential own() {
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
            ch.pipeline().addLast(new IdleStateHandler(conf.limits().idleTimeoutMs(), 0, 0, TimeUnit.MILLISECONDS));
            if (tls != null) {
              ch.pipeline().addLast(tls.serverHandler());
            }
            FrameAuth auth = new FrameAuth();
            PortAdmission admission = new PortAdmission(gate, (channel, why) -> {
              LOG.warn("wide-ec slice transport of {} refused {}: {}", node(), channel.remoteAddress(), why);
              endWithError(channel, Frame.text(FrameType.ERROR, 0, refusal(why)));
            });
            ch.pipeline().addLast(new FrameCodec.Decoder(conf.maxFrameBytes(), auth), new FrameCodec.Encoder(auth),
                admission, new ServerHandler(handler, auth, admission));
          }
        });
    try {
      server = b.bind(new InetSocketAddress(conf.bindHost(), conf.port())).sync().channel();
    } catch (Exception e) {
      close();
      throw new IOException("cannot bind the wide-ec slice port " + conf.bindHost() + ":" + conf.port() + " ("
          + TransportConf.BIND_HOST + ", " + TransportConf.PORT + "; port 0 takes any free port): " + e, e);
    }
    port = ((InetSocketAddress) server.localAddress()).getPort();
    LOG.info("wide-ec slice transport of {} listening on {}:{} (authentication {}, frame tags {}, TLS {}, shaping {})",
        node(), conf.bindHost(), port, handshake.authenticates() ? "HMAC" : "OFF",
        handshake.authenticates() ? conf.frameMac() + " preferred" : "none", tls != null ? "on" : "off",
        conf.shaper().enabled() ? "on" : "off");
    return port;
  }

  public int port() {
    return port;
  }

  /** Connections peers opened to this node's slice port since it started (each one handshake). */
  public long acceptedConnections() {
    return accepted.get();
  }

  /** The handshakes this node refused, and those of its own that peers refused, per peer and reason. */
  public RefusedHandshakes refusals() {
    return refusals;
  }

  /** Connections peers hold to this node's slice port now. */
  public int openConnections() {
    return gate.connections();
  }

  /** Connections closed in their handshake to make room for a newcomer, since start ({@link PeerLimits.Gate}). */
  public long evictedConnections() {
    return gate.evicted();
  }

  /** Requests refused before they took a helper thread (a bad token, a request beyond a bound) since start. */
  public long screenedOut() {
    return screenedOut.get();
  }

  /** Requests refused since start because their principal held its share, or every helper thread was busy. */
  public long refusedBusy() {
    return refusedBusy.get();
  }

  /**
   * Requests running now under one principal: {@code "token owner <user>"} (a client, by the user of the block token
   * its request carries, whether it asked itself or a DataNode relays it; {@link RequestHandler#screen(byte[],
   * boolean)}), {@code "DataNode <name>"} (a cluster peer's own requests, by the name it proved in the handshake), or
   * {@code "DataNode at <address>"}, {@code "client at <address>"} and {@code "peer at <address>"} for peers that
   * named nobody.
   */
  public int requestsOf(String principal) {
    return gate.requestsOf(principal);
  }

  /**
   * Connects to a peer, authenticates and asks it for a stream; slices then arrive on the returned stream.
   * {@code myNode}/{@code myRack} say who asks, as the requestor named this node.
   */
  public PeerStream open(Endpoint peer, String myNode, String myRack, long repairId, byte[] body) throws PeerFailure {
    return open(peer, myNode, myRack, repairId, body, own());
  }

  /**
   * What this node proves when it asks for a stream of a replica: the cluster secret on a DataNode; on a client,
   * which has no secret, the block token it holds for that replica (serialized; anonymous when empty).
   */
  public Credential credentialFor(byte[] token) throws PeerFailure {
    if (handshake.authenticates()) {
      return own();
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
    PeerStream stream = new PeerStream(peer, repairId, PeerStream.requestPayload(myNode, myRack, peer, body),
        conf.window(), conf.stallTimeoutMs(), () -> connect(peer, credential));
    PeerConnection kept = pool.borrow(new ConnectionPool.Key(peer.host(), peer.port(), credential.mode));
    if (kept != null) {
      stream.startOn(kept, true);
      return stream;
    }
    stream.startOn(connect(peer, credential), false);
    try {
      stream.awaitReady(conf.connectTimeoutMs() + conf.stallTimeoutMs());
    } catch (PeerFailure e) {
      stream.close();
      throw e;
    }
    return stream;
  }

  /** A new connection to a peer; its handshake runs as soon as the peer challenges. */
  private PeerConnection connect(Endpoint peer, Credential credential) throws PeerFailure {
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
      throw new PeerFailure(null, node() + " is shutting down: its slice transport is closed");
    }
    ChannelFuture f = b.connect(peer.host(), peer.port()).awaitUninterruptibly();
    if (!f.isSuccess() && loops.isShuttingDown()) {
      throw new PeerFailure(null, node() + " is shutting down: its slice transport is closed");
    }
    if (!f.isSuccess()) {
      throw new PeerFailure(peer.node(), "cannot connect to " + peer + ": " + f.cause().getMessage(), f.cause());
    }
    connection.attach(f.channel());
    return connection;
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

  /**
   * Authenticates a consumer, then hands its requests to the workers, one at a time, and feeds each its credits.
   */
  private final class ServerHandler extends SimpleChannelInboundHandler<Frame> {
    private final RequestHandler handler;
    private final FrameAuth auth;
    private final PortAdmission admission;
    private final byte[] nonce = Handshake.nonce();
    private boolean authenticated;
    private boolean requested;
    private boolean refused;
    private String admittedHost;
    /** Whose requests these are, as the handshake proved it: what the helper threads are counted under. */
    private String principal;
    private Credential.Mode mode;
    private ChannelDownstream downstream;

    ServerHandler(RequestHandler handler, FrameAuth auth, PortAdmission admission) {
      this.handler = handler;
      this.auth = auth;
      this.admission = admission;
    }

    /** The connection was admitted ({@link PortAdmission}): challenge it, and give it until the deadline to ask. */
    @Override
    public void channelActive(ChannelHandlerContext ctx) {
      admittedHost = admission.host();
      accepted.incrementAndGet();
      long timeout = conf.limits().handshakeTimeoutMs();
      ctx.executor().schedule(() -> {
        if (!requested && !refused && ctx.channel().isActive()) {
          refuse(ctx, 0, "no authenticated request within " + timeout + " ms (" + PeerLimits.HANDSHAKE_TIMEOUT + ")");
        }
      }, timeout, TimeUnit.MILLISECONDS);
      ctx.writeAndFlush(new Frame(FrameType.CHALLENGE, 0, handshake.offer(), io.netty.buffer.Unpooled.wrappedBuffer(nonce)));
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
      if (evt instanceof IdleStateEvent) {
        LOG.warn("wide-ec slice transport of {}: closing {}, silent for {} ms ({})", node(), ctx.channel().remoteAddress(),
            conf.limits().idleTimeoutMs(), PeerLimits.IDLE_TIMEOUT);
        ctx.close();
        return;
      }
      super.userEventTriggered(ctx, evt);
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, Frame f) throws Exception {
      if (refused) {
        return; // read, and dropped, until the peer closes
      }
      if (!authenticated) {
        if (f.type() != FrameType.AUTH) {
          refuse(ctx, f.repairId(), "expected AUTH, got " + f.type());
          return;
        }
        try {
          Handshake.Accepted session = handshake.verifyClient(nonce, f.payloadBytes(), f.index());
          mode = session.mode();
          String full = admitProved(session);
          if (full != null) {
            LOG.warn("wide-ec slice transport of {} refused {}: {}", node(), admittedHost, full);
            refuse(ctx, f.repairId(), full);
            return;
          }
          // Encoded at once (this is the event loop), so AUTH_OK is the last untagged frame either way.
          ctx.writeAndFlush(Frame.bytes(FrameType.AUTH_OK, f.repairId(), session.proof()));
          if (session.sendKey() != null) {
            auth.start(session.frameMac(), session.sendKey(), session.receiveKey());
          }
          auth.handshakeDone();
          authenticated = true;
        } catch (Handshake.AuthenticationException e) {
          String peer = RefusedHandshakes.peerName(e.claimed(), admittedHost);
          LOG.warn("wide-ec slice transport of {} refused the handshake of {}{} ({}): {}", node(), peer,
              peer.equals(admittedHost) && e.claimed() != null ? " (claiming to be DataNode " + e.claimed() + ")" : "",
              e.reason(), e.getMessage());
          refusals.refused(peer, e.reason(), System.currentTimeMillis());
          counters.handshakeRefused(e.reason());
          refused = true;
          // The reason rides in the index, so the refused side counts why it was refused.
          endWithError(ctx.channel(), new Frame(FrameType.ERROR, f.repairId(), e.reason().wire(),
              io.netty.buffer.Unpooled.wrappedBuffer(refusal(e.getMessage()).getBytes(java.nio.charset.StandardCharsets.UTF_8))));
        }
        return;
      }
      switch (f.type()) {
        case REQUEST -> accept(ctx, f);
        case CREDIT -> {
          if (downstream == null) {
            refuse(ctx, f.repairId(), "CREDIT before REQUEST");
          } else if (f.index() < 1 || (downstream.granted += f.index()) - downstream.sent.get() > conf.limits().maxCredits()) {
            // An honest consumer never holds more than its window of unacknowledged slices.
            refuse(ctx, f.repairId(), "granted " + f.index() + " credits beyond the " + conf.limits().maxCredits()
                + " allowed (" + PeerLimits.MAX_CREDITS + ")");
          } else {
            downstream.credits.release(f.index());
          }
        }
        default -> refuse(ctx, f.repairId(), "unexpected " + f.type());
      }
    }

    /**
     * Moves a connection that authenticated to its kind's pool: a cluster peer (or any peer under auth=none) out of
     * the outsiders', a client into the clients' share of it. Names whom its requests count under: the proved name or
     * token owner, else the kind and address (never a name a request carries).
     */
    private String admitProved(Handshake.Accepted session) {
      boolean peer = session.mode() == Credential.Mode.CLUSTER || !handshake.authenticates();
      String host = admittedHost;
      if (peer) {
        if (!admission.provedPeer()) {
          return "its place was given to a newer connection while it was handshaking";
        }
      } else {
        String full = admission.admitClient();
        if (full != null) {
          return full;
        }
      }
      principal = session.principal() != null ? session.principal()
          : (session.mode() == Credential.Mode.CLUSTER ? "DataNode at " : peer ? "peer at " : "client at ") + host;
      return null;
    }

    private void accept(ChannelHandlerContext ctx, Frame f) {
      // One stream at a time: a connection is reused only after its stream's END went out.
      if (downstream != null && !downstream.ended) {
        refuse(ctx, f.repairId(), "a REQUEST while a stream is running on this connection");
        return;
      }
      requested = true;
      long repairId = f.repairId();
      byte[] body;
      try (java.io.DataInputStream in = new java.io.DataInputStream(new io.netty.buffer.ByteBufInputStream(f.payload()))) {
        String peerNode = in.readUTF();
        String peerRack = in.readUTF();
        String selfNode = in.readUTF();
        String selfRack = in.readUTF();
        body = in.readAllBytes();
        downstream = new ChannelDownstream(ctx.channel(), repairId, peerNode, peerRack, selfNode, selfRack,
            mode == Credential.Mode.CLUSTER || !handshake.authenticates());
      } catch (IOException e) {
        refuse(ctx, repairId, "malformed REQUEST: " + e.getMessage());
        return;
      }
      ChannelDownstream d = downstream;
      String client;
      try {
        // Before a helper thread is taken: a request without authority, or beyond a bound, costs none.
        client = handler.screen(body, d.clusterPeer());
      } catch (IOException | RuntimeException e) {
        screenedOut.incrementAndGet();
        LOG.warn("wide-ec slice transport of {} refused a request of {}: {}", node(), principal, e.getMessage());
        d.fail(null, d.selfNode() + " refused the request: " + e.getMessage());
        return;
      }
      // Counted under the client whose authority the request carries, whoever relays it (a DataNode dials a relayed
      // step with its own credential); else under whom the handshake proved. Never under a name the request carries.
      String peer = client != null ? "token owner " + client : principal;
      String busy = gate.admitRequest(peer);
      if (busy != null) {
        refusedBusy.incrementAndGet();
        LOG.warn("wide-ec slice transport of {} refused a request: {}", node(), busy);
        d.fail(d.selfNode(), d.selfNode() + " refused: " + busy);
        return;
      }
      // Released as the END is queued, so that the consumer's next request on this connection finds it free.
      d.onEnd = new java.util.concurrent.atomic.AtomicReference<>(() -> gate.releaseRequest(peer));
      try {
        workers.execute(() -> {
          try {
            handler.onRequest(repairId, body, d);
          } finally {
            d.requestDone();
          }
        });
      } catch (RejectedExecutionException e) {
        refusedBusy.incrementAndGet();
        d.requestDone();
        // No queue: a node whose helper threads are all busy says so, and the requestor plans around it.
        d.fail(d.selfNode(), d.selfNode() + " is shutting down or has no free helper thread");
      }
    }

    private void refuse(ChannelHandlerContext ctx, long repairId, String why) {
      refused = true;
      endWithError(ctx.channel(), Frame.text(FrameType.ERROR, repairId, refusal(why)));
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      if (downstream != null) {
        downstream.gone = true;
        downstream.credits.release(Integer.MAX_VALUE / 2);
        downstream.discardPending();
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      LOG.warn("wide-ec slice transport of {}: connection from {} failed: {}", node(), ctx.channel().remoteAddress(),
          cause.toString());
      ctx.close();
    }
  }

  /** An ERROR's text for a refused connection: this node is the culprit, by the name its peers know it by. */
  private String refusal(String why) {
    return node() + "\t" + node() + " refused the connection: " + why;
  }

  /**
   * Sends an ERROR and ends the connection so that the ERROR arrives: the output is shut (FIN after the ERROR)
   * and the consumer's frames are read until it closes. Closing outright while its CREDIT frames sit unread
   * makes the kernel reset the connection, which can drop the ERROR; the consumer would then see only a broken
   * connection and blame this node instead of the one the ERROR names. The connection is closed anyway after
   * the stall timeout.
   */
  private void endWithError(Channel channel, Frame error) {
    channel.writeAndFlush(error).addListener(written -> {
      if (written.isSuccess() && channel instanceof SocketChannel socket) {
        socket.shutdownOutput();
        channel.eventLoop().schedule(() -> channel.close(), conf.stallTimeoutMs(), TimeUnit.MILLISECONDS);
      } else {
        channel.close();
      }
    });
  }

  /** A frame waiting for the emulated links, and when it may leave (System.nanoTime). */
  private record Pending(Frame frame, long due) {}

  /** A consumer's stream as the producer sees it. */
  private final class ChannelDownstream implements Downstream {
    private final Channel channel;
    private final long repairId;
    private final String peerNode;
    private final String peerRack;
    private final String selfNode;
    private final String selfRack;
    private final boolean clusterPeer;
    final Semaphore credits = new Semaphore(0);
    final java.util.concurrent.atomic.AtomicLong sent = new java.util.concurrent.atomic.AtomicLong();
    long granted; // event loop only
    volatile boolean gone;
    /** Its END was written (event loop): the connection may carry the consumer's next request. */
    volatile boolean ended;
    java.util.concurrent.atomic.AtomicReference<Runnable> onEnd;
    private long lastDue = Long.MIN_VALUE;
    private final java.util.ArrayDeque<Pending> queue = new java.util.ArrayDeque<>();

    ChannelDownstream(Channel channel, long repairId, String peerNode, String peerRack, String selfNode, String selfRack,
        boolean clusterPeer) {
      this.channel = channel;
      this.clusterPeer = clusterPeer;
      this.repairId = repairId;
      this.peerNode = peerNode;
      this.peerRack = peerRack;
      this.selfNode = selfNode;
      this.selfRack = selfRack;
    }

    @Override
    public String selfNode() {
      return selfNode;
    }

    @Override
    public String selfRack() {
      return selfRack;
    }

    @Override
    public String node() {
      return peerNode;
    }

    @Override
    public boolean clusterPeer() {
      return clusterPeer;
    }

    @Override
    public String rack() {
      return peerRack;
    }

    @Override
    public ByteBufAllocator alloc() {
      return channel.alloc();
    }

    @Override
    public void send(int slice, ByteBuf data) throws IOException, InterruptedException {
      try {
        if (!credits.tryAcquire(conf.stallTimeoutMs(), TimeUnit.MILLISECONDS)) {
          throw new PeerFailure(peerNode, peerNode + " took no slice of repair " + repairId + " for "
              + conf.stallTimeoutMs() + " ms");
        }
        if (gone || !channel.isActive()) {
          throw new PeerFailure(null, peerNode + " closed repair " + repairId);
        }
        TransportFaultInjector.get().beforeSend(selfNode, peerNode, repairId, slice, data);
        sent.incrementAndGet();
        int bytes = data.readableBytes();
        long delay = conf.shaper().reserve(selfNode, selfRack, peerNode, peerRack, bytes);
        counters.sliceSent(bytes, !selfRack.equals(peerRack));
        Frame frame = new Frame(FrameType.SLICE, repairId, slice, data);
        data = null;
        writeAfter(frame, delay);
      } finally {
        if (data != null) {
          data.release();
        }
      }
    }

    @Override
    public void end() {
      requestDone();
      writeAfter(Frame.of(FrameType.END, repairId, 0), 0);
    }

    /** Frees the request's place among its peer's (once). */
    void requestDone() {
      Runnable r = onEnd == null ? null : onEnd.getAndSet(null);
      if (r != null) {
        r.run();
      }
    }

    /**
     * Writes a frame once the emulated links have carried it, in order: frames wait in this stream's queue
     * and one timer on the event loop releases them as they fall due.
     */
    private void writeAfter(Frame frame, long delayNanos) {
      long due = Math.max(System.nanoTime() + delayNanos, lastDue);
      lastDue = due;
      boolean idle;
      synchronized (queue) {
        idle = queue.isEmpty();
        queue.add(new Pending(frame, due));
      }
      if (gone) { // the consumer left while this frame was being queued: channelInactive has already drained
        discardPending();
        return;
      }
      if (idle) {
        try {
          channel.eventLoop().execute(this::release);
        } catch (java.util.concurrent.RejectedExecutionException e) { // this node's transport is closing
          discardPending();
        }
      }
    }

    /** The consumer is gone: frames still waiting for the emulated links are released, never written. */
    void discardPending() {
      synchronized (queue) {
        for (Pending p; (p = queue.poll()) != null; ) {
          p.frame().release();
        }
      }
    }

    /** The emulated links carried the head frame: back to the event loop to write it. */
    private void wake() {
      try {
        channel.eventLoop().execute(this::release);
      } catch (RejectedExecutionException e) { // this node's transport is closing
        discardPending();
      }
    }

    // On the event loop: writes every frame that is due, then waits for the next one.
    private void release() {
      while (true) {
        Frame f;
        synchronized (queue) {
          Pending head = queue.peek();
          if (head == null) {
            return;
          }
          long wait = head.due() - System.nanoTime();
          if (wait > 0) {
            LinkTimer.at(head.due(), this::wake);
            return;
          }
          f = head.frame();
          queue.poll();
        }
        if (f.type() == FrameType.END) {
          ended = true;
        }
        channel.writeAndFlush(f);
      }
    }

    @Override
    public void fail(String culprit, String message) {
      endWithError(channel, Frame.text(FrameType.ERROR, repairId, (culprit == null ? "" : culprit) + "\t" + message));
    }
  }
}
