package org.wideec.transport;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's side of the challenge-response ({@link Handshake}): challenges an admitted connection, verifies its
 * AUTH, moves it to its kind's pool at the port ({@link AdmissionHandler}), answers AUTH_OK and starts the session's
 * frame tags. Then it removes itself from the pipeline: a proven peer's frames go straight to the stream's handlers.
 * A connection that does not authenticate and ask within the handshake timeout is refused.
 */
final class HandshakeHandler extends SimpleChannelInboundHandler<Frame> {
  private static final Logger LOG = LoggerFactory.getLogger(SliceTransport.class);
  private final SlicePort port;
  private final PeerSession session;
  private final AdmissionHandler admission;
  private final FrameAuth auth;
  private final byte[] nonce = Handshake.nonce();
  private String admittedHost;

  HandshakeHandler(SlicePort port, PeerSession session, AdmissionHandler admission, FrameAuth auth) {
    this.port = port;
    this.session = session;
    this.admission = admission;
    this.auth = auth;
  }

  /** The connection was admitted: challenge it, and give it until the deadline to ask. */
  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    admittedHost = admission.host();
    port.accepted.incrementAndGet();
    long timeout = port.conf.limits().handshakeTimeoutMs();
    ctx.executor().schedule(() -> {
      if (!session.requested && !session.refused && ctx.channel().isActive()) {
        session.refuse(0, "no authenticated request within " + timeout + " ms (" + PeerLimits.HANDSHAKE_TIMEOUT + ")");
      }
    }, timeout, TimeUnit.MILLISECONDS);
    TransportFaultInjector.get().beforeChallenge(port.node());
    ctx.writeAndFlush(new Frame(FrameType.CHALLENGE, 0, port.handshake.offer(), Unpooled.wrappedBuffer(nonce)));
    ctx.fireChannelActive();
  }

  @Override
  protected void channelRead0(ChannelHandlerContext ctx, Frame f) {
    if (f.type() != FrameType.AUTH) {
      session.refuse(f.repairId(), "expected AUTH, got " + f.type());
      return;
    }
    try {
      Handshake.Accepted accepted = port.handshake.verifyClient(nonce, f.payloadBytes(), f.index());
      String full = admitProved(accepted);
      if (full != null) {
        LOG.warn("wide-ec slice transport of {} refused {}: {}", port.node(), admittedHost, full);
        session.refuse(f.repairId(), full);
        return;
      }
      // Encoded at once (this is the event loop), so AUTH_OK is the last untagged frame either way.
      ctx.writeAndFlush(Frame.bytes(FrameType.AUTH_OK, f.repairId(), accepted.proof()));
      if (accepted.sendKey() != null) {
        auth.start(accepted.frameMac(), accepted.sendKey(), accepted.receiveKey());
      }
      auth.handshakeDone();
      ctx.pipeline().remove(this);
    } catch (Handshake.AuthenticationException e) {
      refuseHandshake(f.repairId(), e);
    }
  }

  /**
   * Moves a connection that authenticated to its kind's pool: a cluster peer (or any peer under auth=none) out of
   * the outsiders', a client into the clients' share of it. Names whom its requests count under: the proved name or
   * token owner, else the kind and address (never a name a request carries). Returns why it may not stay, or null.
   */
  private String admitProved(Handshake.Accepted accepted) {
    boolean peer = accepted.mode() == Credential.Mode.CLUSTER || !port.handshake.authenticates();
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
    session.clusterPeer = peer;
    session.principal = accepted.principal() != null ? accepted.principal()
        : (accepted.mode() == Credential.Mode.CLUSTER ? "DataNode at " : peer ? "peer at " : "client at ") + admittedHost;
    return null;
  }

  /** A failed proof: logged and counted per peer and reason; the reason rides in the ERROR's index for the peer. */
  private void refuseHandshake(long repairId, Handshake.AuthenticationException e) {
    String peer = RefusedHandshakes.peerName(e.claimed(), admittedHost);
    LOG.warn("wide-ec slice transport of {} refused the handshake of {}{} ({}): {}", port.node(), peer,
        peer.equals(admittedHost) && e.claimed() != null ? " (claiming to be DataNode " + e.claimed() + ")" : "",
        e.reason(), e.getMessage());
    port.refusals.refused(peer, e.reason(), System.currentTimeMillis());
    port.counters.handshakeRefused(e.reason());
    session.refuseWith(new Frame(FrameType.ERROR, repairId, e.reason().wire(),
        Unpooled.wrappedBuffer(port.refusal(e.getMessage()).getBytes(StandardCharsets.UTF_8))));
  }
}
