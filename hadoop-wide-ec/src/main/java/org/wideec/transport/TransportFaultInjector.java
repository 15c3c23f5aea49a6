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
    instance = injector == null ? new TransportFaultInjector() : injector;
  }

  /** Called with the encoded frame; the payload occupies [payloadOffset, payloadOffset + length) of out. */
  public void afterEncode(Frame frame, ByteBuf out, int payloadOffset, int length) {}

  /** Called by a helper before it sends a slice to {@code toNode} (a test may stall or kill here). */
  public void beforeSend(String node, String toNode, long repairId, int slice, ByteBuf payload) throws java.io.IOException {}
}
