package org.wideec.protocol;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.wideec.repair.BlockRef;
import org.wideec.topology.Endpoint;
import org.wideec.topology.Site;

/**
 * The pieces every message on the slice port repeats, written and read one way: a block reference with its token, a
 * node's slice endpoint, counts bounded before anything is allocated, and the frame of a whole message (truncated,
 * malformed and trailing bytes refused with an error naming the message). Java's modified UTF-8 and big-endian
 * integers, as {@link DataOutputStream} writes them: the bytes are a format a DataNode of the previous release reads.
 */
public final class WireCodec {
  /** Longest serialized block token accepted (HDFS's are a few hundred bytes). */
  public static final int MAX_TOKEN = 16 * 1024;

  private WireCodec() {}

  /** Writes a message's fields. */
  @FunctionalInterface
  public interface Writer {
    void write(DataOutputStream out) throws IOException;
  }

  /** Reads a message's fields. */
  @FunctionalInterface
  public interface Reader<T> {
    T read(DataInputStream in) throws IOException;
  }

  /** The bytes a writer produces. */
  public static byte[] encode(Writer writer) {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(b)) {
      writer.write(out);
    } catch (IOException e) { // a byte array never fails to take bytes
      throw new UncheckedIOException(e);
    }
    return b.toByteArray();
  }

  /**
   * One whole message: its reader must consume every byte.
   *
   * @param message what the message is called in errors ("pin order")
   * @throws IOException "{message} is truncated", "malformed {message}: ...", or what the reader refused
   */
  public static <T> T decode(byte[] bytes, String message, Reader<T> reader) throws IOException {
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
      return reader.read(in);
    } catch (EOFException e) {
      throw new IOException(message + " is truncated", e);
    } catch (IllegalArgumentException e) { // a record refused the values it was read with
      throw new IOException("malformed " + message + ": " + e.getMessage(), e);
    }
  }

  /** @throws IOException "{subject} has n trailing bytes" when the message does not end here */
  public static void requireEnd(DataInputStream in, String subject) throws IOException {
    if (in.available() > 0) {
      throw new IOException(subject + " has " + in.available() + " trailing bytes");
    }
  }

  /** @throws IOException naming the message, its kind and version, when the message opens otherwise */
  public static void requireKind(DataInputStream in, MessageKind kind, int version, String message) throws IOException {
    int k = in.readUnsignedByte();
    int v = in.readUnsignedByte();
    if (k != kind.code() || v != version) {
      throw new IOException("not " + message + " of version " + version + " (kind " + k + ", version " + v + ")");
    }
  }

  /**
   * As {@link #requireKind(DataInputStream, MessageKind, int, String)} for a message with versions {@code oldest} to
   * {@code newest}; returns the one read.
   */
  public static int requireKind(DataInputStream in, MessageKind kind, int oldest, int newest, String message)
      throws IOException {
    int k = in.readUnsignedByte();
    int v = in.readUnsignedByte();
    if (k != kind.code() || v < oldest || v > newest) {
      throw new IOException("not " + message + " of versions " + oldest + " to " + newest + " (kind " + k
          + ", version " + v + ")");
    }
    return v;
  }

  public static void writeBlock(DataOutputStream out, BlockRef b) throws IOException {
    out.writeUTF(b.pool());
    out.writeLong(b.blockId());
    out.writeLong(b.genStamp());
    out.writeLong(b.numBytes());
    out.writeShort(b.token().length);
    out.write(b.token());
  }

  /**
   * A block reference, its token bounded by {@link #MAX_TOKEN} before it is allocated.
   *
   * @param subject what carries it, for errors ("step request", "rapidraid step for o")
   */
  public static BlockRef readBlock(DataInputStream in, String subject) throws IOException {
    String pool = in.readUTF();
    long id = in.readLong();
    long genStamp = in.readLong();
    long numBytes = in.readLong();
    int tokenLength = in.readUnsignedShort();
    if (tokenLength > MAX_TOKEN) {
      throw new IOException(subject + " carries a block token of " + tokenLength + " bytes; at most " + MAX_TOKEN);
    }
    if (numBytes < 0 || genStamp < 0) {
      throw new IOException(subject + ": blk_" + id + " has a negative length or generation stamp");
    }
    byte[] token = new byte[tokenLength];
    in.readFully(token);
    return new BlockRef(pool, id, genStamp, numBytes, token);
  }

  public static void writeEndpoint(DataOutputStream out, Endpoint e) throws IOException {
    out.writeUTF(e.host());
    out.writeInt(e.port());
    out.writeUTF(e.node());
    out.writeUTF(e.rack());
  }

  public static Endpoint readEndpoint(DataInputStream in) throws IOException {
    return new Endpoint(in.readUTF(), in.readInt(), new Site(in.readUTF(), in.readUTF()));
  }
}
