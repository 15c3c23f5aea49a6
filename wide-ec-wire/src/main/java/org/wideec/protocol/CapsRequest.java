package org.wideec.protocol;

import java.io.IOException;

/**
 * An operator's order to a DataNode ({@code wide-ec caps set}): from the next slice on, cap the background work its
 * slice port sends (repairs, rebuild orders, decommission rebuilds, archival encodes) at {@code nodeBytesPerSecond},
 * and its rack's uplink at {@code rackBytesPerSecond}, each only when given (-1: leave it as it is; 0: no cap). The
 * caps were settable at run time only through the DataNode's JMX bean, which HDFS's /jmx servlet shows but cannot
 * set; this is the remote setter, and it is served only to a peer that proved the cluster secret, as the NameNode's
 * orders are. The answer is one frame of {@value #ANSWER_BYTES} bytes: the node cap and the rack cap in force after
 * the order. Kind {@value #KIND}, version {@value #VERSION}; a DataNode of an earlier release refuses the kind as
 * unknown.
 */
public record CapsRequest(long nodeBytesPerSecond, long rackBytesPerSecond) {
  public static final int KIND = MessageKind.CAPS.code();
  public static final int VERSION = 1;
  /** A cap the order leaves as it is. */
  public static final long UNCHANGED = -1;
  public static final int ANSWER_BYTES = 2 * Long.BYTES;

  public CapsRequest {
    if (nodeBytesPerSecond < UNCHANGED || rackBytesPerSecond < UNCHANGED) {
      throw new IllegalArgumentException("a cap is bytes per second >= 0 (0: none), not node " + nodeBytesPerSecond
          + ", rack " + rackBytesPerSecond);
    }
    if (nodeBytesPerSecond == UNCHANGED && rackBytesPerSecond == UNCHANGED) {
      throw new IllegalArgumentException("a caps order sets the node cap, the rack cap or both");
    }
  }

  /** Whether a request body is a caps order. */
  public static boolean isOne(byte[] body) {
    return MessageKind.isOf(body, MessageKind.Family.CAPS);
  }

  public byte[] toBytes() {
    return WireCodec.encode(out -> {
      out.writeByte(KIND);
      out.writeByte(VERSION);
      out.writeLong(nodeBytesPerSecond);
      out.writeLong(rackBytesPerSecond);
    });
  }

  /** @throws IOException naming what is malformed */
  public static CapsRequest parse(byte[] bytes) throws IOException {
    return WireCodec.decode(bytes, "caps order", in -> {
      WireCodec.requireKind(in, MessageKind.CAPS, VERSION, "a caps order");
      long node = in.readLong();
      long rack = in.readLong();
      WireCodec.requireEnd(in, "caps order");
      return new CapsRequest(node, rack);
    });
  }

  /** The DataNode's answer: the caps in force after the order. */
  public static byte[] answer(long nodeBytesPerSecond, long rackBytesPerSecond) {
    return WireCodec.encode(out -> {
      out.writeLong(nodeBytesPerSecond);
      out.writeLong(rackBytesPerSecond);
    });
  }

  /** @return the node cap and the rack cap in force, bytes/s @throws IOException when the answer is not 16 bytes */
  public static long[] caps(byte[] answer) throws IOException {
    if (answer.length != ANSWER_BYTES) {
      throw new IOException("caps answer has " + answer.length + " bytes, not " + ANSWER_BYTES);
    }
    return WireCodec.decode(answer, "caps answer", in -> new long[] {in.readLong(), in.readLong()});
  }
}
