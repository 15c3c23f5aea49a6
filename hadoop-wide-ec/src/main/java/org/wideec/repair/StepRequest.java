package org.wideec.repair;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import org.wideec.transport.Endpoint;

/**
 * What one helper is asked to do, with everything that feeds it: for each of its slices (first, first +
 * stride, ... below length / sliceBytes), read that slice of its unit (starting {@code offset} bytes into it: a
 * degraded read rebuilds a range), multiply by the coefficient, add the same slice from every upstream, and send
 * the sum on. The unit's reference carries the block token that authorizes the read. Upstreams are asked recursively by the helper itself,
 * so a chain is set up from the requestor backwards and data flows forwards (ECPipe §3.2). A digest request
 * asks instead for the CRC32C of the unit (how a requestor confirms what a target stored).
 */
public record StepRequest(BlockRef unit, int coefficient, long offset, long length, int sliceBytes, int firstSlice,
    int stride, List<Upstream> upstreams, boolean digest) {
  /** Longest serialized block token accepted (HDFS's are a few hundred bytes). */
  static final int MAX_TOKEN = 16 * 1024;

  /** An upstream helper and what it is asked. */
  public record Upstream(Endpoint endpoint, StepRequest request) {}

  public StepRequest(BlockRef unit, int coefficient, long length, int sliceBytes, int firstSlice, int stride,
      List<Upstream> upstreams) {
    this(unit, coefficient, 0, length, sliceBytes, firstSlice, stride, upstreams, false);
  }

  /** Asks for the CRC32C of a whole replica. */
  public static StepRequest digestOf(BlockRef unit, int sliceBytes) {
    return new StepRequest(unit, 1, 0, unit.numBytes(), sliceBytes, 0, 1, List.of(), true);
  }

  public StepRequest {
    upstreams = List.copyOf(upstreams);
    if (coefficient < 0 || coefficient > 255 || offset < 0 || length < 0 || sliceBytes <= 0 || stride < 1
        || firstSlice < 0 || unit.token().length > MAX_TOKEN) {
      throw new IllegalArgumentException("bad step request: coefficient " + coefficient + ", offset " + offset
          + ", length " + length + ", slice " + sliceBytes + ", first " + firstSlice + ", stride " + stride + ", token "
          + unit.token().length + " bytes");
    }
  }

  /** The same request (and its upstreams') over bytes [offset, offset + length) of each unit. */
  public StepRequest range(long from, long bytes) {
    List<Upstream> ups = upstreams.stream().map(u -> new Upstream(u.endpoint(), u.request().range(from, bytes))).toList();
    return new StepRequest(unit, coefficient, from, bytes, sliceBytes, firstSlice, stride, ups, digest);
  }

  public int slices() {
    return slices(length, sliceBytes);
  }

  static int slices(long length, int sliceBytes) {
    return (int) ((length + sliceBytes - 1) / sliceBytes);
  }

  public int sliceLength(int slice) {
    return (int) Math.min(sliceBytes, length - (long) slice * sliceBytes);
  }

  public boolean carries(int slice) {
    return slice >= firstSlice && (slice - firstSlice) % stride == 0;
  }

  public byte[] toBytes() {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(b)) {
      write(out);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return b.toByteArray();
  }

  private void write(DataOutputStream out) throws IOException {
    out.writeBoolean(digest);
    out.writeUTF(unit.pool());
    out.writeLong(unit.blockId());
    out.writeLong(unit.genStamp());
    out.writeLong(unit.numBytes());
    out.writeShort(unit.token().length);
    out.write(unit.token());
    out.writeByte(coefficient);
    out.writeLong(offset);
    out.writeLong(length);
    out.writeInt(sliceBytes);
    out.writeInt(firstSlice);
    out.writeInt(stride);
    out.writeShort(upstreams.size());
    for (Upstream u : upstreams) {
      Endpoint e = u.endpoint();
      out.writeUTF(e.host());
      out.writeInt(e.port());
      out.writeUTF(e.node());
      out.writeUTF(e.rack());
      u.request().write(out);
    }
  }

  public static StepRequest parse(byte[] bytes) throws IOException {
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
      StepRequest r = read(in, 0);
      if (in.available() > 0) {
        throw new IOException("step request has " + in.available() + " trailing bytes");
      }
      return r;
    } catch (IllegalArgumentException e) {
      throw new IOException("malformed step request: " + e.getMessage(), e);
    }
  }

  private static StepRequest read(DataInputStream in, int depth) throws IOException {
    if (depth > RequestLimits.STRIPE_UNITS) {
      throw new IOException("step request nested deeper than any stripe");
    }
    boolean digest = in.readBoolean();
    String pool = in.readUTF();
    long blockId = in.readLong();
    long genStamp = in.readLong();
    long numBytes = in.readLong();
    int tokenLength = in.readUnsignedShort();
    if (tokenLength > MAX_TOKEN) {
      throw new IOException("step request carries a block token of " + tokenLength + " bytes; at most " + MAX_TOKEN);
    }
    byte[] token = new byte[tokenLength];
    in.readFully(token);
    BlockRef unit = new BlockRef(pool, blockId, genStamp, numBytes, token);
    int coefficient = in.readUnsignedByte();
    long offset = in.readLong();
    long length = in.readLong();
    int slice = in.readInt();
    int first = in.readInt();
    int stride = in.readInt();
    int n = in.readUnsignedShort();
    List<Upstream> ups = new ArrayList<>(Math.min(n, 16)); // a claimed count buys no memory before its upstreams arrive
    for (int i = 0; i < n; i++) {
      Endpoint e = new Endpoint(in.readUTF(), in.readInt(), in.readUTF(), in.readUTF());
      ups.add(new Upstream(e, read(in, depth + 1)));
    }
    return new StepRequest(unit, coefficient, offset, length, slice, first, stride, ups, digest);
  }
}
