package org.wideec.transport;

import io.netty.buffer.ByteBufInputStream;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import java.io.DataInputStream;
import java.io.IOException;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The tail of a proven connection's pipeline: parses each REQUEST, screens it on the event loop (a request without
 * authority, or beyond a bound, costs no helper thread), counts it under its principal, and hands it to a helper
 * thread that streams the slices back ({@link SliceDownstream}). One stream at a time per connection.
 */
final class DispatchHandler extends SimpleChannelInboundHandler<Frame> {
  private static final Logger LOG = LoggerFactory.getLogger(SliceTransport.class);
  private final SlicePort port;
  private final PeerSession session;
  private final RequestHandler handler;

  DispatchHandler(SlicePort port, PeerSession session, RequestHandler handler) {
    this.port = port;
    this.session = session;
    this.handler = handler;
  }

  @Override
  protected void channelRead0(ChannelHandlerContext ctx, Frame f) {
    if (f.type() != FrameType.REQUEST) {
      session.refuse(f.repairId(), "unexpected " + f.type());
      return;
    }
    // One stream at a time: a connection is reused only after its stream's END went out.
    if (session.downstream != null && !session.downstream.ended()) {
      session.refuse(f.repairId(), "a REQUEST while a stream is running on this connection");
      return;
    }
    session.requested = true;
    long repairId = f.repairId();
    byte[] body;
    SliceDownstream d;
    try (DataInputStream in = new DataInputStream(new ByteBufInputStream(f.payload()))) {
      String peerNode = in.readUTF();
      String peerRack = in.readUTF();
      String selfNode = in.readUTF();
      String selfRack = in.readUTF();
      body = in.readAllBytes();
      d = new SliceDownstream(port, ctx.channel(), repairId, peerNode, peerRack, selfNode, selfRack,
          session.clusterPeer);
    } catch (IOException e) {
      session.refuse(repairId, "malformed REQUEST: " + e.getMessage());
      return;
    }
    session.downstream = d;
    String principal = screen(body, d);
    if (principal != null && admitted(principal, d, repairId)) {
      run(repairId, body, d);
    }
  }

  /**
   * Screens the request before a helper thread is taken. Returns whom it counts under: the client whose authority
   * it carries, whoever relays it (a DataNode dials a relayed step with its own credential); else whom the handshake
   * proved, never a name the request carries. Null when it was refused.
   */
  private String screen(byte[] body, SliceDownstream d) {
    try {
      TransportFaultInjector.get().beforeScreen(d.selfNode(), body);
      String client = handler.screen(body, d.clusterPeer());
      return client != null ? "token owner " + client : session.principal;
    } catch (IOException | RuntimeException e) {
      port.screenedOut.incrementAndGet();
      LOG.warn("wide-ec slice transport of {} refused a request of {}: {}", port.node(), session.principal,
          e.getMessage());
      d.fail(null, d.selfNode() + " refused the request: " + e.getMessage());
      return null;
    }
  }

  /**
   * Takes one of the principal's requests at this port, and for background work one of the threads background work
   * may hold; or refuses the request when either is used up.
   */
  private boolean admitted(String principal, SliceDownstream d, long repairId) {
    String busy = port.gate.admitRequest(principal);
    boolean background = busy == null && BackgroundWork.isBackground(repairId);
    if (background) {
      busy = port.admitBackground();
      if (busy != null) {
        port.gate.releaseRequest(principal);
      }
    }
    if (busy != null) {
      port.refusedBusy.incrementAndGet();
      LOG.warn("wide-ec slice transport of {} refused a request: {}", port.node(), busy);
      d.fail(d.selfNode(), d.selfNode() + " refused: " + busy);
      return false;
    }
    // Released as the END is queued, so that the consumer's next request on this connection finds it free.
    d.onEnd(background ? () -> {
      port.gate.releaseRequest(principal);
      port.releaseBackground();
    } : () -> port.gate.releaseRequest(principal));
    return true;
  }

  private void run(long repairId, byte[] body, SliceDownstream d) {
    try {
      port.workers.execute(() -> {
        try {
          handler.onRequest(repairId, body, d);
        } finally {
          d.requestDone();
        }
      });
    } catch (RejectedExecutionException e) {
      port.refusedBusy.incrementAndGet();
      d.requestDone();
      // No queue: a node whose helper threads are all busy says so, and the requestor plans around it.
      d.fail(d.selfNode(), d.selfNode() + " is shutting down or has no free helper thread");
    }
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    if (session.downstream != null) {
      session.downstream.consumerGone();
    }
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    LOG.warn("wide-ec slice transport of {}: connection from {} failed: {}", port.node(), ctx.channel().remoteAddress(),
        cause.toString());
    ctx.close();
  }
}
