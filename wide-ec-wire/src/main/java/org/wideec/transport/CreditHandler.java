package org.wideec.transport;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

/**
 * Flow control on a proven connection: the consumer's CREDIT frames let the stream's helper thread send that many
 * more slices ({@link SliceDownstream#grant}). A producer holds at most the window of unacknowledged slices per
 * consumer, so memory per stream does not grow with the block; a consumer granting more than
 * {@code wide-ec.transport.max-credits} beyond what it received, or granting before it asked, is refused.
 */
final class CreditHandler extends ChannelInboundHandlerAdapter {
  private final PeerSession session;
  private final int maxCredits;

  CreditHandler(PeerSession session, int maxCredits) {
    this.session = session;
    this.maxCredits = maxCredits;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (!(msg instanceof Frame f) || f.type() != FrameType.CREDIT) {
      ctx.fireChannelRead(msg);
      return;
    }
    try {
      SliceDownstream d = session.downstream;
      if (d == null) {
        session.refuse(f.repairId(), "CREDIT before REQUEST");
      } else if (f.index() < 1 || !d.grant(f.index(), maxCredits)) {
        // An honest consumer never holds more than its window of unacknowledged slices.
        session.refuse(f.repairId(), "granted " + f.index() + " credits beyond the " + maxCredits + " allowed ("
            + PeerLimits.MAX_CREDITS + ")");
      }
    } finally {
      f.release();
    }
  }
}
