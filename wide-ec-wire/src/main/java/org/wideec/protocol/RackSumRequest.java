package org.wideec.protocol;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import org.wideec.topology.Endpoint;

/**
 * A scrub's in-rack sum of summaries (ECWide §4.1's in-rack aggregation, applied to one-page summaries): the holder
 * folds its replica as a {@link SummaryRequest} asks, multiplies the page by each of {@code coefficients} (one per
 * check row), adds the rows each upstream sends (the other holders of the rack, asked by this node with their own
 * READ tokens) and answers with one frame of {@code rows x pageSize} bytes. So a rack sends one page per check row
 * across racks however many of its units are summed. An upstream's request names no upstreams of its own: a rack
 * sums in one star. Kind {@value #KIND}, version {@value #VERSION}; a DataNode of an earlier release refuses the kind
 * as unknown.
 */
public record RackSumRequest(SummaryRequest fold, int[] coefficients, List<Upstream> upstreams) {
  public static final int KIND = MessageKind.RACK_SUM.code();
  public static final int VERSION = 1;

  /** Another holder of the rack and what it is asked. */
  public record Upstream(Endpoint endpoint, RackSumRequest request) {}

  public RackSumRequest {
    upstreams = List.copyOf(upstreams);
    if (coefficients == null || coefficients.length < 1 || coefficients.length > StepRequest.MAX_ROWS) {
      throw new IllegalArgumentException("rack sum of " + fold.unit() + ": " + (coefficients == null ? "no"
          : coefficients.length) + " rows; 1 to " + StepRequest.MAX_ROWS);
    }
    coefficients = coefficients.clone();
    for (int c : coefficients) {
      if (c < 0 || c > 255) {
        throw new IllegalArgumentException("rack sum of " + fold.unit() + ": coefficient " + c);
      }
    }
    if (upstreams.size() >= RequestLimits.STRIPE_UNITS) {
      throw new IllegalArgumentException("rack sum of " + fold.unit() + ": " + upstreams.size()
          + " upstreams; a stripe has at most " + RequestLimits.STRIPE_UNITS + " units");
    }
    for (Upstream u : upstreams) {
      RackSumRequest r = u.request();
      if (!r.upstreams().isEmpty() || r.rows() != coefficients.length || r.fold().pageSize() != fold.pageSize()
          || r.fold().multiplier() != fold.multiplier()) {
        throw new IllegalArgumentException("rack sum of " + fold.unit() + ": upstream " + u.endpoint().node()
            + " is asked for " + r.rows() + " rows of " + r.fold().pageSize() + "-byte pages with " + r.upstreams().size()
            + " upstreams; it must send this sum's " + coefficients.length + " rows of " + fold.pageSize()
            + "-byte pages folded alike, and ask nobody");
      }
    }
  }

  /** Whether a request body is a rack sum. */
  public static boolean isOne(byte[] body) {
    return MessageKind.peek(body) == MessageKind.RACK_SUM;
  }

  @Override
  public int[] coefficients() {
    return coefficients.clone();
  }

  public int rows() {
    return coefficients.length;
  }

  /** Bytes of the one frame the holder answers with. */
  public int answerBytes() {
    return rows() * fold.pageSize();
  }

  /**
   * @throws IOException naming the bound, when the answer or a slice would not fit one frame, or an upstream is not a
   *     DataNode's slice port
   */
  public void checkFits(int maxFrameBytes) throws IOException {
    fold.checkFits(maxFrameBytes);
    if ((long) rows() * fold.pageSize() > maxFrameBytes) {
      throw new IOException("rack sum of " + fold.unit() + ": " + rows() + " rows of " + fold.pageSize()
          + "-byte pages exceed the " + maxFrameBytes + "-byte frame limit");
    }
    for (Upstream u : upstreams) {
      RequestLimits.checkAddress(u.endpoint());
    }
  }

  // A record compares arrays by identity; two requests with the same coefficients are equal.
  @Override
  public boolean equals(Object o) {
    return o instanceof RackSumRequest r && fold.equals(r.fold) && Arrays.equals(coefficients, r.coefficients)
        && upstreams.equals(r.upstreams);
  }

  @Override
  public int hashCode() {
    return Objects.hash(fold, Arrays.hashCode(coefficients), upstreams);
  }

  public byte[] toBytes() {
    return WireCodec.encode(this::write);
  }

  private void write(DataOutputStream out) throws IOException {
    out.writeByte(KIND);
    out.writeByte(VERSION);
    WireCodec.writeBlock(out, fold.unit());
    out.writeInt(fold.pageSize());
    out.writeByte(fold.multiplier());
    out.writeInt(fold.sliceBytes());
    out.writeByte(coefficients.length);
    for (int c : coefficients) {
      out.writeByte(c);
    }
    out.writeShort(upstreams.size());
    for (Upstream u : upstreams) {
      WireCodec.writeEndpoint(out, u.endpoint());
      u.request().write(out);
    }
  }

  /** @throws IOException naming what is malformed */
  public static RackSumRequest parse(byte[] bytes) throws IOException {
    return WireCodec.decode(bytes, "rack sum request", in -> {
      RackSumRequest r = read(in, true);
      WireCodec.requireEnd(in, "rack sum request");
      return r;
    });
  }

  private static RackSumRequest read(DataInputStream in, boolean mayHaveUpstreams) throws IOException {
    WireCodec.requireKind(in, MessageKind.RACK_SUM, VERSION, "a rack sum request");
    SummaryRequest fold = new SummaryRequest(WireCodec.readBlock(in, "rack sum request"), in.readInt(),
        in.readUnsignedByte(), in.readInt());
    int rows = in.readUnsignedByte();
    int[] coefficients = new int[rows];
    for (int i = 0; i < rows; i++) {
      coefficients[i] = in.readUnsignedByte();
    }
    int n = in.readUnsignedShort();
    if (n > 0 && !mayHaveUpstreams) {
      throw new IOException("rack sum request: an upstream names " + n + " upstreams of its own; a rack sums in one"
          + " star");
    }
    List<Upstream> ups = new ArrayList<>(Math.min(n, 16)); // a claimed count buys no memory before its upstreams arrive
    for (int i = 0; i < n; i++) {
      Endpoint e = WireCodec.readEndpoint(in);
      ups.add(new Upstream(e, read(in, false)));
    }
    return new RackSumRequest(fold, coefficients, ups);
  }
}
