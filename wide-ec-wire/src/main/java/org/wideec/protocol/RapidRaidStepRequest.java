package org.wideec.protocol;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.wideec.code.LinearCode;
import org.wideec.repair.BlockRef;
import org.wideec.topology.Endpoint;
import org.wideec.archive.encode.EncodePlanner;

/**
 * One position of RapidRAID's pipeline, asked of the node that holds its pieces (RapidRAID §IV): for every slice,
 * read the slice of each local piece (its READ token in the reference), take the slice of x_{i-1} from the upstream
 * position (none for position 0), compute x_i = x_{i-1} + sum psi_t o_t and c_i = x_{i-1} + sum xi_t o_t, forward
 * x_i (or, at the last position, an empty frame: x is discarded) and write c_i to the node's codeword sink. After
 * the last slice comes one report frame: the upstream's reports and this position's (length and CRC32C of c_i, in
 * {@link EncodeTreeRequest#resultBytes}' format). The upstream is asked by the node itself, so the pipeline is set
 * up from the last position backwards and x flows forwards.
 *
 * <p>{@link #output} is where c_i is to be stored when it is a block (the NameNode's allocation with its WRITE
 * token, and the data's checksum type and bytes per checksum); null when the node's sink decides (an in-process
 * benchmark). Wire format: kind byte {@link #KIND} (apart from every other kind on the slice port), version 1, the
 * fields in declaration order, the upstream's request nested.
 */
public record RapidRaidStepRequest(String object, int position, List<Piece> pieces, long length, int sliceBytes,
    Upstream upstream, boolean forward, EncodeTreeRequest.ParityOutput output, int checksumType, int bytesPerChecksum) {
  public static final int KIND = MessageKind.RAPIDRAID_POSITION.code();
  public static final int VERSION = 1;

  /** A local piece and its two coefficients: psi into x_i, xi into c_i. */
  public record Piece(BlockRef block, int psi, int xi) {}

  /** The position before this one and what it is asked. */
  public record Upstream(Endpoint endpoint, RapidRaidStepRequest request) {}

  public RapidRaidStepRequest {
    pieces = List.copyOf(pieces);
    if (pieces.isEmpty() || pieces.size() > 2 || length <= 0 || sliceBytes < EncodePlanner.CHUNK || position < 0
        || position >= LinearCode.MAX_UNITS || bytesPerChecksum <= 0) {
      throw new IllegalArgumentException("bad rapidraid step for " + object + ": position " + position + ", "
          + pieces.size() + " pieces (1 or 2), length " + length + ", slices of " + sliceBytes + ", "
          + bytesPerChecksum + " bytes per checksum");
    }
    for (Piece p : pieces) {
      if (p.psi() < 0 || p.psi() > 255 || p.xi() < 0 || p.xi() > 255 || p.block().token().length
          > WireCodec.MAX_TOKEN) {
        throw new IllegalArgumentException("bad rapidraid step for " + object + " at position " + position + ": piece "
            + p.block() + " with psi " + p.psi() + ", xi " + p.xi() + ", a token of " + p.block().token().length
            + " bytes");
      }
    }
    if (upstream != null && (upstream.request().position() != position - 1 || upstream.request().length() != length
        || upstream.request().sliceBytes() != sliceBytes || !upstream.request().forward())) {
      throw new IllegalArgumentException("bad rapidraid step for " + object + " at position " + position
          + ": its upstream is position " + upstream.request().position() + " with length "
          + upstream.request().length() + ", slices of " + upstream.request().sliceBytes()
          + (upstream.request().forward() ? "" : ", not forwarding"));
    }
    if ((upstream == null) != (position == 0)) {
      throw new IllegalArgumentException("bad rapidraid step for " + object + ": position " + position
          + (position == 0 ? " has an upstream" : " has no upstream"));
    }
  }

  public static boolean isOne(byte[] body) {
    return MessageKind.isOf(body, MessageKind.Family.RAPIDRAID_POSITION);
  }

  public int slices() {
    return StepRequest.slices(length, sliceBytes);
  }

  public int sliceLength(int slice) {
    return StepRequest.sliceLength(length, sliceBytes, slice);
  }

  /** Bytes of each frame this position sends for slice s: x_i's slice, or nothing at the last position. */
  public int frameBytes(int slice) {
    return forward ? sliceLength(slice) : 0;
  }

  public byte[] toBytes() {
    return WireCodec.encode(this::write);
  }

  private void write(DataOutputStream out) throws IOException {
    out.writeByte(KIND);
    out.writeByte(VERSION);
    out.writeUTF(object);
    out.writeShort(position);
    out.writeByte(pieces.size());
    for (Piece p : pieces) {
      WireCodec.writeBlock(out, p.block());
      out.writeByte(p.psi());
      out.writeByte(p.xi());
    }
    out.writeLong(length);
    out.writeInt(sliceBytes);
    out.writeBoolean(forward);
    out.writeBoolean(output != null);
    if (output != null) {
      out.writeShort(output.unit());
      WireCodec.writeBlock(out, output.block());
      EncodeTreeRequest.writeTargetNode(out, output.target());
    }
    out.writeInt(checksumType);
    out.writeInt(bytesPerChecksum);
    out.writeBoolean(upstream != null);
    if (upstream != null) {
      WireCodec.writeEndpoint(out, upstream.endpoint());
      upstream.request().write(out);
    }
  }

  /** @throws IOException naming what is wrong with a malformed, truncated or out-of-bounds request */
  public static RapidRaidStepRequest parse(byte[] bytes) throws IOException {
    return WireCodec.decode(bytes, "rapidraid step request", in -> {
      RapidRaidStepRequest r = read(in, 0);
      WireCodec.requireEnd(in, "rapidraid step for " + r.object());
      return r;
    });
  }

  private static RapidRaidStepRequest read(DataInputStream in, int depth) throws IOException {
    if (depth >= LinearCode.MAX_UNITS) {
      throw new IOException("rapidraid step request nested deeper than any chain (" + LinearCode.MAX_UNITS + ")");
    }
    WireCodec.requireKind(in, MessageKind.RAPIDRAID_POSITION, VERSION, "a rapidraid step request");
    String object = in.readUTF();
    int position = in.readUnsignedShort();
    int count = in.readUnsignedByte();
    if (count < 1 || count > 2) {
      throw new IOException("rapidraid step for " + object + " at position " + position + " names " + count
          + " pieces; a position holds 1 or 2");
    }
    List<Piece> pieces = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      pieces.add(new Piece(WireCodec.readBlock(in, "rapidraid step for " + object), in.readUnsignedByte(),
          in.readUnsignedByte()));
    }
    long length = in.readLong();
    int slice = in.readInt();
    boolean forward = in.readBoolean();
    EncodeTreeRequest.ParityOutput output = null;
    if (in.readBoolean()) {
      int unit = in.readUnsignedShort();
      BlockRef block = WireCodec.readBlock(in, "rapidraid step for " + object);
      output = new EncodeTreeRequest.ParityOutput(unit, block, EncodeTreeRequest.readTargetNode(in));
    }
    int checksumType = in.readInt();
    int bytesPerChecksum = in.readInt();
    Upstream up = null;
    if (in.readBoolean()) {
      up = new Upstream(WireCodec.readEndpoint(in), read(in, depth + 1));
    }
    return new RapidRaidStepRequest(object, position, pieces, length, slice, up, forward, output, checksumType,
        bytesPerChecksum);
  }

  @Override
  public String toString() {
    return "position " + position + " of the rapidraid pipeline of " + object + " (" + pieces.size() + " pieces, "
        + length + " bytes in slices of " + sliceBytes + ")";
  }
}
