package org.wideec.transport;

import io.netty.channel.Channel;

/**
 * What one connection to the slice port has established so far, shared by its handlers (all on its event loop):
 * whether it was refused (its frames are then dropped until it closes), whom its handshake proved, and the stream
 * it is running.
 */
final class PeerSession {
  private final SlicePort port;
  private final Channel channel;
  /** Refused: an ERROR went out and the connection is ending. */
  boolean refused;
  /** It asked for a stream: the handshake deadline no longer applies. */
  boolean requested;
  /** Whose requests these are, as the handshake proved it: what the helper threads are counted under. */
  String principal;
  /** It proved the cluster secret, or this node authenticates no one. */
  boolean clusterPeer;
  /** The stream this connection carries, or carried last; null before its first REQUEST. */
  SliceDownstream downstream;

  PeerSession(SlicePort port, Channel channel) {
    this.port = port;
    this.channel = channel;
  }

  /** Refuses the connection: an ERROR naming this node and why, then the end of the connection. */
  void refuse(long repairId, String why) {
    refuseWith(Frame.text(FrameType.ERROR, repairId, port.refusal(why)));
  }

  void refuseWith(Frame error) {
    refused = true;
    port.endWithError(channel, error);
  }
}
