package org.wideec.protocol;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import org.wideec.topology.Endpoint;
import org.wideec.repair.BlockRef;

/**
 * What one helper is asked to do, with everything that feeds it: for each of its slices (first, first +
 * stride, ... below length / sliceBytes), read that slice of its unit (starting {@code offset} bytes into it: a
 * degraded read rebuilds a range), multiply by the coefficient, add the same slice from every upstream, and send
 * the sum on. The unit's reference carries the block token that authorizes the read. Upstreams are asked recursively by the helper itself,
 * so a chain is set up from the requestor backwards and data flows forwards (ECPipe §3.2). A digest request
 * asks instead for the CRC32C of the unit (how a requestor confirms what a target stored); its coefficient byte says
 * whether the node must read the bytes back (1) or may compose the CRC from the replica's stored chunk checksums (0).
 *
 * <p>A step may carry several rows (ECWide §4.2, multi-node encoding): with coefficients c_1..c_p it sends, for each
 * slice, p row-slices back to back (row i = c_i times its slice plus row i of every upstream's frame), so one frame
 * is p times the slice and every upstream must carry the same p rows. Repairs use one row.
 *
 * <p>Wire format: every request of a tree opens with a kind byte. Kinds 0 (step) and 1 (digest) are version 1,
 * the boolean digest flag that opened every request before multi-row steps, followed by one coefficient byte; a
 * one-row step is always written so, whoever writes it. Kind 2 (version 2) is a multi-row step: the coefficient byte
 * is replaced by a row count (2..{@link #MAX_ROWS}) and that many coefficient bytes; everything else is the same.
 * A helper older than version 2 reads kind 2 as a digest of a garbled request: it fails, or answers with an 8-byte
 * frame that the asker's frame-length check refuses, so a mixed cluster fails an encode, never miscomputes it.
 */
public record StepRequest(BlockRef unit, int[] coefficients, long offset, long length, int sliceBytes, int firstSlice,
    int stride, List<Upstream> upstreams, boolean digest) {
  /** Most rows one step carries: every parity unit of the widest stripe (a code has k >= 1). */
  public static final int MAX_ROWS = org.wideec.code.LinearCode.MAX_UNITS - 1;
  private static final int KIND_STEP = MessageKind.STEP.code();
  private static final int KIND_DIGEST = MessageKind.DIGEST.code();
  private static final int KIND_ROWS = MessageKind.ROWS_STEP.code();
  /** A digest's coefficient byte says how it is taken: 1 read back (every helper reads), 0 from stored checksums. */
  private static final int DIGEST_READ = 1;
  private static final int DIGEST_STORED = 0;

  /** An upstream helper and what it is asked. */
  public record Upstream(Endpoint endpoint, StepRequest request) {}

  /** A one-row step (a repair's). */
  public StepRequest(BlockRef unit, int coefficient, long offset, long length, int sliceBytes, int firstSlice,
      int stride, List<Upstream> upstreams, boolean digest) {
    this(unit, new int[] {coefficient}, offset, length, sliceBytes, firstSlice, stride, upstreams, digest);
  }

  public StepRequest(BlockRef unit, int coefficient, long length, int sliceBytes, int firstSlice, int stride,
      List<Upstream> upstreams) {
    this(unit, coefficient, 0, length, sliceBytes, firstSlice, stride, upstreams, false);
  }

  /**
   * A step of a multi-node encode (ECWide §4.2): every slice of the unit times each coefficient, one row per
   * parity the step's tree computes, plus the upstreams' rows.
   */
  public static StepRequest encodeStep(BlockRef unit, int[] coefficients, long length, int sliceBytes,
      List<Upstream> upstreams) {
    return new StepRequest(unit, coefficients, 0, length, sliceBytes, 0, 1, upstreams, false);
  }

  /** Asks for the CRC32C of a whole replica, read back through the node's verified path. */
  public static StepRequest digestOf(BlockRef unit, int sliceBytes) {
    return new StepRequest(unit, DIGEST_READ, 0, unit.numBytes(), sliceBytes, 0, 1, List.of(), true);
  }

  /**
   * Asks for the CRC32C of a whole replica, which the node may compose from the replica's stored chunk checksums
   * instead of reading its bytes: for a replica just read through the verified path (an encode's data unit), whose
   * checksums therefore describe the bytes used. A helper that cannot compose (or predates this) reads.
   */
  public static StepRequest storedDigestOf(BlockRef unit, int sliceBytes) {
    return new StepRequest(unit, DIGEST_STORED, 0, unit.numBytes(), sliceBytes, 0, 1, List.of(), true);
  }

  /** A digest the node may compose from the replica's stored chunk checksums (see {@link #storedDigestOf}). */
  public boolean fromStoredChecksums() {
    return digest && coefficients[0] == DIGEST_STORED && offset == 0 && length == unit.numBytes();
  }

  public StepRequest {
    upstreams = List.copyOf(upstreams);
    if (coefficients == null || coefficients.length < 1 || coefficients.length > MAX_ROWS) {
      throw new IllegalArgumentException("bad step request: " + (coefficients == null ? "no" : coefficients.length)
          + " rows; 1 to " + MAX_ROWS);
    }
    coefficients = coefficients.clone();
    for (int c : coefficients) {
      if (c < 0 || c > 255) {
        throw new IllegalArgumentException("bad step request: coefficient " + c);
      }
    }
    if (offset < 0 || length < 0 || sliceBytes <= 0 || stride < 1 || firstSlice < 0 || unit.token().length > WireCodec.MAX_TOKEN) {
      throw new IllegalArgumentException("bad step request: offset " + offset + ", length " + length + ", slice "
          + sliceBytes + ", first " + firstSlice + ", stride " + stride + ", token " + unit.token().length + " bytes");
    }
    if (digest && coefficients.length != 1) {
      throw new IllegalArgumentException("bad step request: a digest carries one row, not " + coefficients.length);
    }
    for (Upstream u : upstreams) {
      if (u.request().rows() != coefficients.length) {
        throw new IllegalArgumentException("bad step request: a step of " + coefficients.length + " rows adds an "
            + "upstream of " + u.request().rows() + " (" + u.endpoint().node() + ")");
      }
    }
  }

  @Override
  public int[] coefficients() {
    return coefficients.clone();
  }

  /** Rows each frame of this step carries. */
  public int rows() {
    return coefficients.length;
  }

  /** The coefficient of a one-row step. */
  public int coefficient() {
    if (coefficients.length != 1) {
      throw new IllegalStateException("a step of " + coefficients.length + " rows has no single coefficient");
    }
    return coefficients[0];
  }

  // A record compares arrays by identity; two requests with the same coefficients are equal.
  @Override
  public boolean equals(Object o) {
    return o instanceof StepRequest r && unit.equals(r.unit) && Arrays.equals(coefficients, r.coefficients)
        && offset == r.offset && length == r.length && sliceBytes == r.sliceBytes && firstSlice == r.firstSlice
        && stride == r.stride && upstreams.equals(r.upstreams) && digest == r.digest;
  }

  @Override
  public int hashCode() {
    return Objects.hash(unit, Arrays.hashCode(coefficients), offset, length, sliceBytes, firstSlice, stride, upstreams,
        digest);
  }

  @Override
  public String toString() {
    return (digest ? "digest of " : "step of ") + unit + " x " + Arrays.toString(coefficients) + ", bytes [" + offset
        + ", +" + length + ") in slices of " + sliceBytes + " (first " + firstSlice + ", stride " + stride + "), "
        + upstreams.size() + " upstreams";
  }

  public StepRequest range(long from, long bytes) {
    List<Upstream> ups = upstreams.stream().map(u -> new Upstream(u.endpoint(), u.request().range(from, bytes))).toList();
    return new StepRequest(unit, coefficients, from, bytes, sliceBytes, firstSlice, stride, ups, digest);
  }

  /**
   * The same tree asking for slices first, first + stride, ... only (every step of it): how a requestor asks for a
   * sample of slices in one stream (a repair's validation).
   */
  public StepRequest carrying(int first, int stride) {
    List<Upstream> ups = upstreams.stream()
        .map(u -> new Upstream(u.endpoint(), u.request().carrying(first, stride))).toList();
    return new StepRequest(unit, coefficients, offset, length, sliceBytes, first, stride, ups, digest);
  }

  public int slices() {
    return slices(length, sliceBytes);
  }

  public static int slices(long length, int sliceBytes) {
    return (int) ((length + sliceBytes - 1) / sliceBytes);
  }

  public int sliceLength(int slice) {
    return sliceLength(length, sliceBytes, slice);
  }

  /** Bytes of slice {@code slice} of a range of {@code length} bytes cut in slices of {@code sliceBytes}. */
  public static int sliceLength(long length, int sliceBytes, int slice) {
    return (int) Math.min(sliceBytes, length - (long) slice * sliceBytes);
  }

  public boolean carries(int slice) {
    return slice >= firstSlice && (slice - firstSlice) % stride == 0;
  }

  public byte[] toBytes() {
    return WireCodec.encode(this::write);
  }

  private void write(DataOutputStream out) throws IOException {
    int rows = coefficients.length;
    out.writeByte(digest ? KIND_DIGEST : rows == 1 ? KIND_STEP : KIND_ROWS);
    WireCodec.writeBlock(out, unit);
    if (rows > 1) {
      out.writeByte(rows);
    }
    for (int c : coefficients) {
      out.writeByte(c);
    }
    out.writeLong(offset);
    out.writeLong(length);
    out.writeInt(sliceBytes);
    out.writeInt(firstSlice);
    out.writeInt(stride);
    out.writeShort(upstreams.size());
    for (Upstream u : upstreams) {
      WireCodec.writeEndpoint(out, u.endpoint());
      u.request().write(out);
    }
  }

  public static StepRequest parse(byte[] bytes) throws IOException {
    return WireCodec.decode(bytes, "step request", in -> {
      StepRequest r = read(in, 0);
      WireCodec.requireEnd(in, "step request");
      return r;
    });
  }

  private static StepRequest read(DataInputStream in, int depth) throws IOException {
    if (depth > RequestLimits.STRIPE_UNITS) {
      throw new IOException("step request nested deeper than any stripe");
    }
    int kind = in.readUnsignedByte();
    if (kind > KIND_ROWS) {
      throw new IOException("step request of unknown kind " + kind + " (this helper knows 0 and 1, a step and a digest "
          + "of version 1, and 2, a multi-row step of version 2)");
    }
    boolean digest = kind == KIND_DIGEST;
    BlockRef unit = WireCodec.readBlock(in, "step request");
    int[] coefficients;
    if (kind == KIND_ROWS) {
      int rows = in.readUnsignedByte();
      if (rows < 2 || rows > MAX_ROWS) { // one row is always written as version 1: one encoding per request
        throw new IOException("multi-row step request carries " + rows + " rows; 2 to " + MAX_ROWS);
      }
      coefficients = new int[rows];
      for (int i = 0; i < rows; i++) {
        coefficients[i] = in.readUnsignedByte();
      }
    } else {
      coefficients = new int[] {in.readUnsignedByte()};
    }
    long offset = in.readLong();
    long length = in.readLong();
    int slice = in.readInt();
    int first = in.readInt();
    int stride = in.readInt();
    int n = in.readUnsignedShort();
    List<Upstream> ups = new ArrayList<>(Math.min(n, 16)); // a claimed count buys no memory before its upstreams arrive
    for (int i = 0; i < n; i++) {
      Endpoint e = WireCodec.readEndpoint(in);
      ups.add(new Upstream(e, read(in, depth + 1)));
    }
    return new StepRequest(unit, coefficients, offset, length, slice, first, stride, ups, digest);
  }
}
