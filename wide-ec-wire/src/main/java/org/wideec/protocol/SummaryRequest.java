package org.wideec.protocol;

import java.io.IOException;
import org.wideec.repair.BlockRef;

/**
 * A scrub's question to a holder: fold the replica of {@code unit} into its linear summary (org.wideec.scrub's
 * UnitSummary: one page, S = sum over pages i of r^i * page_i) and answer with that page instead of the unit. The
 * unit is read through the holder's checksum-verified path, against the request's READ token, {@code sliceBytes} at
 * a time, so the holder's memory is one slice and one page whatever the block size. The answer is one frame of
 * {@code pageSize} bytes. Kind {@value #KIND}, version {@value #VERSION}; a DataNode of an earlier release refuses
 * the kind as unknown.
 *
 * @param multiplier the fold's r, a primitive element of GF(2^8) drawn from the scrub's seed
 */
public record SummaryRequest(BlockRef unit, int pageSize, int multiplier, int sliceBytes) {
  public static final int KIND = MessageKind.SUMMARY.code();
  public static final int VERSION = 1;

  public SummaryRequest {
    if (pageSize < 1 || sliceBytes < 1) {
      throw new IllegalArgumentException("summary of " + unit + ": page " + pageSize + " and slice " + sliceBytes
          + " bytes must be positive");
    }
    if (multiplier < 2 || multiplier > 255) {
      throw new IllegalArgumentException("summary of " + unit + ": multiplier " + multiplier + " is not in 2..255");
    }
  }

  /** Whether a request body is a summary request. */
  public static boolean isOne(byte[] body) {
    return MessageKind.isOf(body, MessageKind.Family.SUMMARY);
  }

  /** @throws IOException naming the bound, when the page or a slice would not fit one frame */
  public void checkFits(int maxFrameBytes) throws IOException {
    if (pageSize > maxFrameBytes || sliceBytes > maxFrameBytes) {
      throw new IOException("summary of " + unit + ": page " + pageSize + " or slice " + sliceBytes
          + " bytes exceeds the " + maxFrameBytes + "-byte frame limit");
    }
  }

  public byte[] toBytes() {
    return WireCodec.encode(out -> {
      out.writeByte(KIND);
      out.writeByte(VERSION);
      WireCodec.writeBlock(out, unit);
      out.writeInt(pageSize);
      out.writeByte(multiplier);
      out.writeInt(sliceBytes);
    });
  }

  /** @throws IOException naming what is malformed */
  public static SummaryRequest parse(byte[] bytes) throws IOException {
    return WireCodec.decode(bytes, "summary request", in -> {
      WireCodec.requireKind(in, MessageKind.SUMMARY, VERSION, "a summary request");
      BlockRef unit = WireCodec.readBlock(in, "summary request");
      int page = in.readInt();
      int r = in.readUnsignedByte();
      int slice = in.readInt();
      WireCodec.requireEnd(in, "summary request");
      return new SummaryRequest(unit, page, r, slice);
    });
  }
}
