package org.wideec.transport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.Random;
import org.junit.jupiter.api.Test;

@org.junit.jupiter.api.extension.ExtendWith(org.wideec.transport.NettyLeakCheck.class)
class FrameCodecTest {
  static ByteBuf encoded(long repair, int slice, byte[] payload) {
    EmbeddedChannel out = new EmbeddedChannel(new FrameCodec.Encoder());
    out.writeOutbound(new Frame(FrameType.SLICE, repair, slice, Unpooled.wrappedBuffer(payload)));
    ByteBuf wire = out.readOutbound();
    out.finishAndReleaseAll();
    return wire;
  }

  @Test
  void framesRoundTripEvenWhenTheWireSplitsThem() {
    byte[] payload = new byte[10_000];
    new Random(1).nextBytes(payload);
    ByteBuf wire = encoded(42, 7, payload);
    EmbeddedChannel in = new EmbeddedChannel(new FrameCodec.Decoder(1 << 20));
    while (wire.isReadable()) {
      in.writeInbound(wire.readRetainedSlice(Math.min(333, wire.readableBytes())));
    }
    wire.release();
    Frame f = in.readInbound();
    assertEquals(42, f.repairId());
    assertEquals(7, f.index());
    byte[] back = new byte[f.payload().readableBytes()];
    f.payload().readBytes(back);
    assertArrayEquals(payload, back);
    f.release();
    assertNull(in.readInbound());
    close(in);
  }

  @Test
  void aFlippedBitIsDetectedAndNamesTheSlice() {
    ByteBuf wire = encoded(9, 3, new byte[] {1, 2, 3, 4, 5, 6, 7, 8});
    wire.setByte(FrameCodec.HEADER + 5, wire.getByte(FrameCodec.HEADER + 5) ^ 0x10);
    EmbeddedChannel in = new EmbeddedChannel(new FrameCodec.Decoder(1024));
    CorruptSliceException e = assertThrows(CorruptSliceException.class, () -> in.writeInbound(wire));
    assertTrue(e.getMessage().contains("slice 3 of repair 9 is corrupt"), e.getMessage());
    assertNull(in.readInbound());
    close(in);
  }

  @Test
  void anOversizedFrameIsRefusedBeforeItIsBuffered() {
    ByteBuf wire = encoded(1, 0, new byte[2048]);
    EmbeddedChannel in = new EmbeddedChannel(new FrameCodec.Decoder(1024));
    ByteBuf header = wire.readRetainedSlice(FrameCodec.HEADER);
    wire.release();
    CorruptSliceException e = assertThrows(CorruptSliceException.class, () -> in.writeInbound(header));
    assertTrue(e.getMessage().contains("SLICE 0 of repair 1 claims 2048 bytes, more than the 1024 allowed"), e.getMessage());
    close(in);
  }

  @Test
  void garbageIsNotTakenForAFrame() {
    EmbeddedChannel in = new EmbeddedChannel(new FrameCodec.Decoder(1024));
    CorruptSliceException e = assertThrows(CorruptSliceException.class,
        () -> in.writeInbound(Unpooled.wrappedBuffer(new byte[FrameCodec.HEADER])));
    assertTrue(e.getMessage().contains("not a wide-ec frame"), e.getMessage());
    close(in);
  }

  /**
   * Closes a channel whose decoder failed, as the transport does: the decoder releases what it buffered (and, meeting
   * the same bad bytes again as the input closes, says so once more).
   */
  private static void close(EmbeddedChannel in) {
    try {
      in.finishAndReleaseAll();
    } catch (CorruptSliceException again) {
      // the bytes that failed the frame are still the first ones buffered
    }
  }
}
