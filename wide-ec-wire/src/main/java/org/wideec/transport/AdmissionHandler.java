package org.wideec.transport;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.ReferenceCountUtil;
import java.net.InetSocketAddress;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A slice connection's place at the port ({@link PeerLimits.Gate}), held from accept to close: the handler in front
 * of the protocol's. A connection the gate cannot admit gets the refusal (an ERROR naming the limit) and never reaches
 * the protocol. Once a connection is refused, by this handler or a later one, its frames are dropped here until it
 * closes. One the gate evicts to make room for a newcomer is closed at once (it was still in its handshake, so it had
 * nothing running), and so is one silent for the idle timeout. The handshake tells this handler when the peer proved
 * the cluster secret or authenticated as a client, which moves it between the gate's pools.
 */
final class AdmissionHandler extends ChannelInboundHandlerAdapter {
  private static final Logger LOG = LoggerFactory.getLogger(SliceTransport.class);
  private final SlicePort port;
  private final PeerSession session;
  private PeerLimits.Gate.Place place;

  AdmissionHandler(SlicePort port, PeerSession session) {
    this.port = port;
    this.session = session;
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    Channel channel = ctx.channel();
    String host = ((InetSocketAddress) channel.remoteAddress()).getAddress().getHostAddress();
    try {
      place = port.gate.admitConnection(host, channel::close);
    } catch (PeerLimits.Refused e) {
      LOG.warn("wide-ec slice transport of {} refused {}: {}", port.node(), channel.remoteAddress(), e.getMessage());
      session.refuse(0, e.getMessage());
      return;
    }
    ctx.fireChannelActive();
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (session.refused) {
      ReferenceCountUtil.release(msg); // read, and dropped, until the peer closes
      return;
    }
    ctx.fireChannelRead(msg);
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
    if (evt instanceof IdleStateEvent) {
      LOG.warn("wide-ec slice transport of {}: closing {}, silent for {} ms ({})", port.node(),
          ctx.channel().remoteAddress(), port.conf.limits().idleTimeoutMs(), PeerLimits.IDLE_TIMEOUT);
      ctx.close();
      return;
    }
    ctx.fireUserEventTriggered(evt);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    if (place != null) {
      port.gate.releaseConnection(place);
    }
    ctx.fireChannelInactive();
  }

  /** The address the connection came from (admitted connections only). */
  String host() {
    return place.host;
  }

  /** The peer proved the cluster secret; false if its place was given to a newer connection meanwhile. */
  boolean provedPeer() {
    return port.gate.provedPeer(place);
  }

  /** The peer authenticated as a client: null once admitted among the outsiders, else why it may not stay. */
  String admitClient() {
    return port.gate.admitClient(place);
  }
}
