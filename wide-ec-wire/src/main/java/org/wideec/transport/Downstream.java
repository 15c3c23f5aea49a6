package org.wideec.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.io.IOException;

/** The consumer a producer streams slices to: credit-based, shaped and counted by the transport. */
public interface Downstream {
  /** The consumer's node and rack, as it announced them. */
  String node();

  String rack();

  /** This node and its rack, as the consumer named them. */
  String selfNode();

  String selfRack();

  /**
   * Whether the consumer proved the cluster secret (a DataNode or the NameNode), or this node authenticates no one
   * ({@code wide-ec.transport.auth=none}); false for a client that proved only a block token, or none.
   */
  default boolean clusterPeer() {
    return false;
  }

  ByteBufAllocator alloc();

  /** When the consumer's request arrived (System.nanoTime), or -1 when unknown: how long it queued for a thread. */
  default long askedAtNanos() {
    return -1;
  }

  /**
   * Sends one slice, taking ownership of {@code data}. Blocks until the consumer has granted a credit (so a
   * repair never buffers more than the window) and the emulated links have carried it.
   */
  void send(int slice, ByteBuf data) throws IOException, InterruptedException;

  void end();

  /** Ends the stream with an error that names the node to blame (null if none). */
  void fail(String culprit, String message);
}
