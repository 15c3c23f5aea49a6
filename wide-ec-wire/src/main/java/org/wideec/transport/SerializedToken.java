package org.wideec.transport;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;

/**
 * An HDFS token as block references carry it on the wire (Hadoop's {@code Token.write}: identifier, password, kind
 * and service, each a length-prefixed byte string whose length is a Writable variable-length integer), read without
 * Hadoop: the transport needs only the identifier it sends and the password it keys its proof with.
 */
record SerializedToken(byte[] identifier, byte[] password) {

  /** Reads the whole token; refuses truncated or malformed bytes, as Hadoop's own reader does. */
  static SerializedToken parse(byte[] serialized) throws IOException {
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(serialized))) {
      byte[] identifier = field(in, "identifier");
      byte[] password = field(in, "password");
      field(in, "kind");
      field(in, "service");
      return new SerializedToken(identifier, password);
    }
  }

  private static byte[] field(DataInputStream in, String name) throws IOException {
    int length = vint(in);
    if (length < 0 || length > in.available()) {
      throw new EOFException("a token's " + name + " of " + length + " bytes, with " + in.available() + " left");
    }
    byte[] b = new byte[length];
    in.readFully(b);
    return b;
  }

  /**
   * A Writable variable-length integer: one byte holds -112..127 itself; otherwise the first byte says how many
   * big-endian bytes follow (1..8) and whether the value is stored complemented (negative values).
   */
  private static int vint(DataInputStream in) throws IOException {
    byte first = in.readByte();
    if (first >= -112) {
      return first;
    }
    boolean negative = first < -120;
    int bytes = negative ? -(first + 120) : -(first + 112);
    long v = 0;
    for (int i = 0; i < bytes; i++) {
      v = (v << 8) | (in.readByte() & 0xFF);
    }
    v = negative ? ~v : v;
    if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
      throw new IOException("a token field length " + v + " does not fit an int");
    }
    return (int) v;
  }
}
