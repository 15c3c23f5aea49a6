package org.wideec.transport;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import java.net.InetSocketAddress;
import java.util.function.BiConsumer;

/**
 * A slice connection's place at the port ({@link PeerLimits.Gate}), held from accept to close: the handler in front
 * of the protocol's. A connection the gate cannot admit gets the refusal (an ERROR naming the limit) and never reaches
 * the protocol: its frames are dropped until it closes. One the gate evicts to make room for a newcomer is closed at
 * once (it was still in its handshake, so it had nothing running). The protocol tells this handler when the peer
 * proved the cluster secret or authenticated as a client, which moves it between the gate's pools.
 */
final class PortAdmission extends ChannelInboundHandlerAdapter {
  private final PeerLimits.Gate gate;
  private final BiConsumer<Channel, String> refuse;
  private PeerLimits.Gate.Place place;
  private boolean refused;

  /** @param refuse sends a refusal's ERROR on a connection and ends it */
  PortAdmission(PeerLimits.Gate gate, BiConsumer<Channel, String> refuse) {
    this.gate = gate;
    this.refuse = refuse;
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    Channel channel = ctx.channel();
    String host = ((InetSocketAddress) channel.remoteAddress()).getAddress().getHostAddress();
    try {
      place = gate.admitConnection(host, channel::close);
    } catch (PeerLimits.Refused e) {
      refused = true;
      refuse.accept(channel, e.getMessage());
      return;
    }
    ctx.fireChannelActive();
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (refused) {
      ReferenceCountUtil.release(msg); // read, and dropped, until the peer closes
      return;
    }
    ctx.fireChannelRead(msg);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    if (place != null) {
      gate.releaseConnection(place);
    }
    ctx.fireChannelInactive();
  }

  /** The address the connection came from (admitted connections only). */
  String host() {
    return place.host;
  }

  /** The peer proved the cluster secret; false if its place was given to a newer connection meanwhile. */
  boolean provedPeer() {
    return gate.provedPeer(place);
  }

  /** The peer authenticated as a client: null once admitted among the outsiders, else why it may not stay. */
  String admitClient() {
    return gate.admitClient(place);
  }
}
