package org.wideec.transport;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.MessageToByteEncoder;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * The slice protocol's framing: magic (2 bytes), version (1), type (1), repair id (8), index (4), payload
 * length (4), CRC32C of the payload (4), payload, and after the handshake an HMAC tag over all of it
 * ({@link FrameAuth}). The decoder refuses frames longer than the configured maximum before buffering them (memory
 * stays bounded whatever a peer sends), any payload whose CRC32C does not match (a corrupt wire) and any frame whose
 * tag does not (a tampering relay), naming the repair and the slice.
 */
public final class FrameCodec {
  static final short MAGIC = (short) 0x5745; // "WE"
  static final byte VERSION = 3;
  static final int HEADER = 2 + 1 + 1 + 8 + 4 + 4 + 4;

  private FrameCodec() {}

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
  public static final class Encoder extends MessageToByteEncoder<Frame> {
    private final FrameAuth auth;

    /** An encoder that never tags frames (tests of the framing itself). */
    public Encoder() {
      this(FrameAuth.none());
    }

    Encoder(FrameAuth auth) {
      this.auth = auth;
    }

    @Override
    protected void encode(ChannelHandlerContext ctx, Frame f, ByteBuf out) {
      ByteBuf p = f.payload();
      int len = p.readableBytes();
      out.ensureWritable(HEADER + len + (auth.sending() ? FrameAuth.TAG : 0));
      int start = out.writerIndex();
      out.writeShort(MAGIC).writeByte(VERSION).writeByte(f.type().ordinal()).writeLong(f.repairId())
          .writeInt(f.index()).writeInt(len).writeInt(crc(p, p.readerIndex(), len));
      out.writeBytes(p, p.readerIndex(), len);
      if (auth.sending()) {
        auth.sign(out, start, HEADER + len);
      }
      TransportFaultInjector.get().afterEncode(f, out, start + HEADER, len);
    }
  }

  /** Reads frames, checking magic, version, type, size bound and CRC32C. */
  public static final class Decoder extends ByteToMessageDecoder {
    private final int maxPayload;
    private final FrameAuth auth;

    /** A decoder that expects no tags (tests of the framing itself). */
    public Decoder(int maxPayload) {
      this(maxPayload, FrameAuth.none());
    }

    Decoder(int maxPayload, FrameAuth auth) {
      this.auth = auth;
      if (maxPayload <= 0) {
        throw new IllegalArgumentException("maximum frame payload must be positive, got " + maxPayload);
      }
      this.maxPayload = maxPayload;
    }

    /** Bytes held waiting for the rest of a frame (what the fuzz tests bound). */
    int buffered() {
      return actualReadableBytes();
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
      if (in.readableBytes() < HEADER) {
        return;
      }
      int start = in.readerIndex();
      short magic = in.getShort(start);
      byte version = in.getByte(start + 2);
      FrameType type = FrameType.of(in.getByte(start + 3));
      long repair = in.getLong(start + 4);
      int index = in.getInt(start + 12);
      int len = in.getInt(start + 16);
      if (magic != MAGIC || version != VERSION || type == null) {
        throw new CorruptSliceException(String.format("not a wide-ec frame (magic 0x%04x, version %d, type %d)",
            magic, version, in.getByte(start + 3)));
      }
      int limit = auth.payloadLimit(maxPayload);
      if (len < 0 || len > limit) {
        throw new CorruptSliceException(type + " " + index + " of repair " + repair + " claims " + len
            + " bytes, more than the " + limit + " allowed" + (limit < maxPayload ? " before authentication" : ""));
      }
      int tag = auth.receiving() ? FrameAuth.TAG : 0;
      if (in.readableBytes() < HEADER + len + tag) {
        return;
      }
      int expected = in.getInt(start + 20);
      int actual = crc(in, start + HEADER, len);
      if (actual != expected) {
        throw new CorruptSliceException((type == FrameType.SLICE ? "slice " : type + " ") + index + " of repair "
            + repair + " is corrupt: CRC32C " + Integer.toHexString(actual) + " != " + Integer.toHexString(expected));
      }
      if (tag > 0 && !auth.verify(in, start, HEADER + len, start + HEADER + len)) {
        throw new CorruptSliceException((type == FrameType.SLICE ? "slice " : type + " ") + index + " of repair "
            + repair + " failed authentication: altered on the way, replayed or out of order");
      }
      in.skipBytes(HEADER);
      out.add(new Frame(type, repair, index, in.readRetainedSlice(len)));
      in.skipBytes(tag);
    }
  }
}
