package org.wideec.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.MessageToMessageEncoder;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * The slice protocol's framing: magic (2 bytes), version (1), type (1), repair id (8), index (4), payload
 * length (4), CRC32C of the payload (4), payload, and after the handshake a tag over all of it ({@link FrameAuth}:
 * AES-256-GMAC, 16 bytes, or HMAC-SHA256, 32 bytes, as negotiated). The decoder refuses frames longer than the
 * configured maximum before buffering them (memory stays bounded whatever a peer sends), any payload whose CRC32C
 * does not match (a corrupt wire) and any frame whose tag does not (a tampering relay), naming the repair and the
 * slice.
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

  /**
   * Writes frames; releases the frame's payload once written. A direct payload is not copied: the frame goes out as
   * the header, the payload itself and the tag (a gathering write). A heap payload is copied once next to its header,
   * as the socket needs direct memory anyway; so are small frames, and every frame while a fault injector may rewrite
   * the encoded bytes, so an injector never alters the sender's own data.
   */
  public static final class Encoder extends MessageToMessageEncoder<Frame> {
    /** Payloads below this are copied next to their header: one buffer beats a composite of three. */
    static final int COPY_BELOW = 4096;
    private final FrameAuth auth;

    /** An encoder that never tags frames (tests of the framing itself). */
    public Encoder() {
      this(FrameAuth.none());
    }

    Encoder(FrameAuth auth) {
      this.auth = auth;
    }

    @Override
    protected void encode(ChannelHandlerContext ctx, Frame f, List<Object> out) {
      ByteBuf p = f.payload();
      int len = p.readableBytes();
      int tagLength = auth.sending() ? auth.tagLength() : 0;
      boolean copy = len < COPY_BELOW || !p.isDirect() || TransportFaultInjector.rewritesFrames();
      ByteBuf header = ctx.alloc().buffer(HEADER + (copy ? len + tagLength : 0));
      ByteBuf frame = header;
      try {
        header.writeShort(MAGIC).writeByte(VERSION).writeByte(f.type().ordinal()).writeLong(f.repairId())
            .writeInt(f.index()).writeInt(len).writeInt(crc(p, p.readerIndex(), len));
        if (copy) {
          header.writeBytes(p, p.readerIndex(), len);
          if (tagLength > 0) {
            auth.sign(header, 0, HEADER + len, FrameMac.NONE, 0, 0, header);
          }
          TransportFaultInjector.get().afterEncode(f, header, HEADER, len);
        } else {
          CompositeByteBuf c = ctx.alloc().compositeBuffer(3);
          frame = c; // owns header, the payload's slice and the tag from here on
          c.addComponent(true, header);
          c.addComponent(true, p.retainedSlice());
          if (tagLength > 0) {
            ByteBuf tag = ctx.alloc().buffer(tagLength);
            try {
              auth.sign(header, 0, HEADER, p, p.readerIndex(), len, tag);
            } catch (RuntimeException | Error e) {
              tag.release();
              throw e;
            }
            c.addComponent(true, tag);
          }
        }
      } catch (RuntimeException | Error e) {
        frame.release(); // MessageToMessageEncoder releases only the frame it was given
        throw e;
      }
      out.add(frame);
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
      auth.close();
    }
  }

  /**
   * Reads frames, checking magic, version, type, size bound and CRC32C. Reads are gathered into a buffer sized towards
   * the whole frame once its header is in ({@link #cumulate}): Netty's merging cumulator, which must copy whenever a
   * decoded frame still holds the buffer, grew it read by read and copied a 256 KiB frame two to three times.
   */
  public static final class Decoder extends ByteToMessageDecoder {
    private final int maxPayload;
    private final FrameAuth auth;
    /** Bytes of the frame being read (header, payload and tag), once its header is in and bounded; else 0. */
    private int want;

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
      setCumulator(this::cumulate);
    }

    /**
     * Appends a read to the bytes waiting for a frame. A buffer that has room and that no decoded frame holds takes it
     * in place; otherwise a new one holds the waiting bytes and the read, sized towards the frame being read (at most
     * double what arrived), so the rest of that frame lands with few copies. Bounded: {@link #want} is set only after
     * the frame's length passed the limit check.
     */
    private ByteBuf cumulate(ByteBufAllocator alloc, ByteBuf cumulation, ByteBuf in) {
      if (cumulation == in) { // as Netty's own cumulators guard
        in.release();
        return cumulation;
      }
      if (!cumulation.isReadable() && in.isContiguous()) {
        cumulation.release();
        return in;
      }
      try {
        int required = in.readableBytes();
        if (required > cumulation.maxFastWritableBytes() || cumulation.refCnt() > 1 || cumulation.isReadOnly()) {
          // At most twice what arrived: a peer cannot make a 24-byte header buy a whole frame's worth of memory.
          int have = cumulation.readableBytes() + required;
          ByteBuf grown = alloc.buffer(Math.max(have, (int) Math.min(want, 2L * have)));
          grown.writeBytes(cumulation).writeBytes(in);
          cumulation.release();
          return grown;
        }
        cumulation.writeBytes(in);
        return cumulation;
      } finally {
        in.release();
      }
    }

    /** Bytes held waiting for the rest of a frame (what the fuzz tests bound). */
    int buffered() {
      return actualReadableBytes();
    }

    @Override
    protected void handlerRemoved0(ChannelHandlerContext ctx) {
      auth.close();
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
      int tag = auth.receiving() ? auth.tagLength() : 0;
      if (in.readableBytes() < HEADER + len + tag) {
        want = HEADER + len + tag;
        return;
      }
      want = 0;
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
