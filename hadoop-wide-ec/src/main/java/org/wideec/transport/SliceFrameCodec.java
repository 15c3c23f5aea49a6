package org.wideec.transport;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.MessageToByteEncoder;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * The slice protocol's framing: magic (2 bytes), version (1), repair id (8), slice index (4), payload length
 * (4), CRC32C of the payload (4), payload. The decoder refuses frames longer than the configured maximum
 * before buffering them (memory stays bounded whatever a peer sends) and any payload whose CRC32C does not
 * match, naming the repair and the slice.
 */
public final class SliceFrameCodec {
  static final short MAGIC = (short) 0x5745; // "WE"
  static final byte VERSION = 1;
  static final int HEADER = 2 + 1 + 8 + 4 + 4 + 4;

  private SliceFrameCodec() {}

  static int crc(ByteBuf b, int from, int len) {
    CRC32C c = new CRC32C();
    if (b.hasArray()) {
      c.update(b.array(), b.arrayOffset() + from, len);
    } else {
      c.update(b.nioBuffer(from, len));
    }
    return (int) c.getValue();
  }

  /** Writes frames; releases the frame's payload once written. */
  public static final class Encoder extends MessageToByteEncoder<SliceFrame> {
    @Override
    protected void encode(ChannelHandlerContext ctx, SliceFrame f, ByteBuf out) {
      ByteBuf p = f.payload();
      int len = p.readableBytes();
      out.ensureWritable(HEADER + len);
      out.writeShort(MAGIC).writeByte(VERSION).writeLong(f.repairId()).writeInt(f.sliceIndex()).writeInt(len)
          .writeInt(crc(p, p.readerIndex(), len));
      out.writeBytes(p, p.readerIndex(), len);
    }
  }

  /** Reads frames, checking magic, version, size bound and CRC32C. */
  public static final class Decoder extends ByteToMessageDecoder {
    private final int maxPayload;

    public Decoder(int maxPayload) {
      if (maxPayload <= 0) {
        throw new IllegalArgumentException("maximum slice payload must be positive, got " + maxPayload);
      }
      this.maxPayload = maxPayload;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
      if (in.readableBytes() < HEADER) {
        return;
      }
      int start = in.readerIndex();
      short magic = in.getShort(start);
      byte version = in.getByte(start + 2);
      long repair = in.getLong(start + 3);
      int slice = in.getInt(start + 11);
      int len = in.getInt(start + 15);
      if (magic != MAGIC || version != VERSION) {
        throw new CorruptSliceException(String.format("not a slice frame (magic 0x%04x, version %d)", magic, version));
      }
      if (len < 0 || len > maxPayload) {
        throw new CorruptSliceException("slice " + slice + " of repair " + repair + " claims " + len
            + " bytes, more than the " + maxPayload + " allowed");
      }
      if (in.readableBytes() < HEADER + len) {
        return;
      }
      int expected = in.getInt(start + 19);
      int actual = crc(in, start + HEADER, len);
      if (actual != expected) {
        throw new CorruptSliceException("slice " + slice + " of repair " + repair + " is corrupt: CRC32C "
            + Integer.toHexString(actual) + " != " + Integer.toHexString(expected));
      }
      in.skipBytes(HEADER);
      out.add(new SliceFrame(repair, slice, in.readRetainedSlice(len)));
    }
  }
}
