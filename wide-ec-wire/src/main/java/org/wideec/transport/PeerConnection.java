package org.wideec.transport;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import java.util.concurrent.RejectedExecutionException;
import org.wideec.topology.Endpoint;

/**
 * The asking end of one connection to a peer's slice port. It authenticates once (the challenge-response of
 * {@link Handshake}); then it carries one {@link PeerStream} at a time, and a stream that ended cleanly hands it
 * back to the transport's {@link ConnectionPool} for the next request to the same peer. Frames are tagged under
 * the session's keys for the connection's whole life ({@link FrameAuth} counts them across streams). Any fault
 * (a refused handshake, a protocol violation, a closed socket) fails the stream it carries and retires the
 * connection.
 */
final class PeerConnection extends SimpleChannelInboundHandler<Frame> {
  final Endpoint peer;
  final ConnectionPool.Key key;
  private Credential credential; // named or not, as the server's CHALLENGE allows (event loop after attach)
  private final FrameAuth auth;
  private final ConnectionPool pool;
  private final FrameMac preferred;
  /** Told when the peer refuses this node's handshake, and why. */
  private final java.util.function.Consumer<RefusalReason> handshakeRefused;
  private final byte[] clientNonce = Handshake.nonce();
  private volatile Channel channel;
  private volatile PeerFailure failure;
  /** When it was last put in the pool (the pool's lock). */
  long idleSince;
  // Event loop only:
  private byte[] serverNonce;
  private FrameMac picked;
  private boolean authenticated;
  private PeerStream current;

  PeerConnection(Endpoint peer, Credential credential, FrameAuth auth, ConnectionPool pool, FrameMac preferred,
      java.util.function.Consumer<RefusalReason> handshakeRefused) {
    this.peer = peer;
    this.handshakeRefused = handshakeRefused;
    this.preferred = preferred;
    this.credential = credential;
    this.auth = auth;
    this.pool = pool;
    this.key = new ConnectionPool.Key(peer.host(), peer.port(), credential.mode);
  }

  void attach(Channel c) {
    this.channel = c;
    c.closeFuture().addListener(f -> pool.remove(this));
  }

  Channel channel() {
    return channel;
  }

  /** Open, authenticated or authenticating, and never faulted: fit for another stream. */
  boolean reusable() {
    Channel c = channel;
    return failure == null && c != null && c.isActive();
  }

  /** Starts a stream on this connection: its request goes out as soon as the handshake is done (at once if it is). */
  void begin(PeerStream s) {
    try {
      channel.eventLoop().execute(() -> {
        PeerFailure f = failure;
        if (f != null || !channel.isActive()) {
          s.connectionLost(this, f != null ? f : closed(), true);
          return;
        }
        current = s;
        if (authenticated) {
          s.sendRequest(channel);
        }
      });
    } catch (RejectedExecutionException e) {
      s.connectionLost(this, new PeerFailure(null, "connection to " + peer + " closed: this node's slice transport is closing"), true);
    }
  }

  /** The stream ended cleanly and was consumed whole: the connection is free for the next one. */
  void finished(PeerStream s) {
    try {
      // Queued before the connection is offered again, so it runs before the next stream's begin (tasks run in order).
      channel.eventLoop().execute(() -> {
        if (current == s) {
          current = null;
        }
      });
    } catch (RejectedExecutionException e) {
      close();
      return;
    }
    pool.release(this);
  }

  void close() {
    Channel c = channel;
    if (c != null) {
      c.close();
    }
  }

  @Override
  protected void channelRead0(ChannelHandlerContext ctx, Frame f) throws Exception {
    switch (f.type()) {
      case CHALLENGE -> {
        if (serverNonce != null) {
          violation(ctx, "sent a second challenge");
          return;
        }
        serverNonce = f.payloadBytes();
        picked = preferred.pick(f.index());
        credential = credential.toServer(f.index());
        ctx.writeAndFlush(new Frame(FrameType.AUTH, 0, picked.id,
            io.netty.buffer.Unpooled.wrappedBuffer(Handshake.clientResponse(credential, serverNonce, clientNonce))));
      }
      case AUTH_OK -> {
        if (serverNonce == null || authenticated) {
          throw new Handshake.AuthenticationException(peer + " sent AUTH_OK out of turn");
        }
        byte[][] keys = Handshake.verifyServer(credential, serverNonce, clientNonce, f.payloadBytes(), picked);
        if (keys != null) {
          auth.start(picked, keys[0], keys[1]);
        }
        auth.handshakeDone();
        authenticated = true;
        if (current != null) {
          current.sendRequest(ctx.channel());
        }
      }
      case ERROR -> {
        String text = f.payloadText();
        int tab = text.indexOf('\t');
        String message = tab >= 0 ? text.substring(tab + 1) : text;
        if (!authenticated && serverNonce != null) { // it answered our AUTH with a refusal
          handshakeRefused.accept(RefusalReason.ofWire(f.index()));
        }
        // Refused before a stream began: the peer itself is to blame, under the name we know it by.
        boolean beforeStream = !authenticated || current == null;
        String culprit = beforeStream ? peer.node() : tab > 0 ? text.substring(0, tab) : null;
        // The peer itself ended it before any frame of the stream came (its handshake deadline can pass while our
        // request is on its way): nothing of it was used.
        boolean nothingSent = beforeStream || (!current.receivedAny() && peer.node().equals(culprit));
        fail(nothingSent ? new PeerRefusal(culprit, message) : new PeerFailure(culprit, message), false);
      }
      case SLICE, END -> {
        if (current == null || !authenticated) {
          violation(ctx, "sent " + f.type() + " with no stream asked for");
          return;
        }
        current.onFrame(ctx, f);
      }
      default -> violation(ctx, "sent an unexpected " + f.type());
    }
  }

  private void violation(ChannelHandlerContext ctx, String what) {
    fail(new PeerFailure(peer.node(), peer + " " + what), false);
    ctx.close();
  }

  /** Retires the connection and fails the stream it carries, if any ({@code closed}: it merely closed). */
  void fail(PeerFailure f, boolean closed) {
    if (failure == null) {
      failure = f;
    }
    PeerStream s = current;
    if (s != null) {
      s.connectionLost(this, f, closed);
    }
  }

  private PeerFailure closed() {
    return channel.eventLoop().isShuttingDown()
        ? new PeerFailure(null, "connection to " + peer + " closed: this node's slice transport is closing")
        : new PeerFailure(peer.node(), "connection to " + peer + " closed before the stream ended");
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    fail(closed(), true);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    String what = cause instanceof CorruptSliceException ? "corrupt data from " : "stream from ";
    // A socket error (a reset) is the connection going away; a bad frame or a failed proof is the peer's fault.
    boolean socket = cause instanceof java.io.IOException && !(cause instanceof CorruptSliceException)
        && !(cause instanceof Handshake.AuthenticationException);
    fail(new PeerFailure(peer.node(), what + peer + ": " + cause.getMessage(), cause), socket);
    ctx.close();
  }
}
