package org.wideec.transport;

import io.netty.buffer.ByteBuf;

/**
 * Hook for fault tests, in the manner of Hadoop's DataNodeFaultInjector: the default does nothing; a test
 * installs one that, e.g., flips a byte of a slice after its checksum was computed (a corrupt wire).
 */
public class TransportFaultInjector {
  private static volatile TransportFaultInjector instance = new TransportFaultInjector();

  public static TransportFaultInjector get() {
    return instance;
  }

  public static void set(TransportFaultInjector injector) {
    TransportFaultInjector i = injector == null ? new TransportFaultInjector() : injector;
    rewrites = overridesAfterEncode(i.getClass());
    instance = i;
  }

  private static volatile boolean rewrites;

  private static boolean overridesAfterEncode(Class<?> c) {
    try {
      return c.getMethod("afterEncode", Frame.class, ByteBuf.class, int.class, int.class).getDeclaringClass()
          != TransportFaultInjector.class;
    } catch (NoSuchMethodException e) {
      return true; // cannot tell: copy, which is always safe
    }
  }

  /**
   * Whether the installed injector may rewrite encoded frames (it overrides {@link #afterEncode}): frames are then
   * encoded into one copied buffer, so it corrupts the wire, never the sender's own data.
   */
  static boolean rewritesFrames() {
    return rewrites;
  }

  /** Called with the encoded frame; the payload occupies [payloadOffset, payloadOffset + length) of out. */
  public void afterEncode(Frame frame, ByteBuf out, int payloadOffset, int length) {}

  /** Called by a helper before it sends a slice to {@code toNode} (a test may stall or kill here). */
  public void beforeSend(String node, String toNode, long repairId, int slice, ByteBuf payload) throws java.io.IOException {}

  /**
   * Called by a consumer that has declared {@code peerNode} stalled (no slice {@code slice}, or no end of stream
   * when {@code slice} is -1, within the stall timeout), just before it blames that node. A test that holds a
   * helper back can release it here, so the stall, not a race with a timer, decides what happens.
   */
  public void onStall(String peerNode, long repairId, int slice) {}

  /**
   * Called by a node as it screens a request it was sent, before its handler does: a test may throw here what an
   * older node's parser would (the node refuses the request with that message).
   */
  public void beforeScreen(String node, byte[] body) throws java.io.IOException {}

  /**
   * Called by a node as a peer's new connection reaches its slice port, on that node's event loop, before it challenges
   * the peer: a test may hold the handshake back here, as a busy host's would be.
   */
  public void beforeChallenge(String node) {}

  /** Called by a requestor as it starts an attempt of a repair (each attempt has its own repair id). */
  public void onRepairAttempt(String requestorNode, long repairId) {}
}
