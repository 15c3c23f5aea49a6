package org.wideec.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.util.ReferenceCounted;
import java.nio.charset.StandardCharsets;

/**
 * One message of the slice protocol: its type, the repair it belongs to, an index (the slice number for
 * slices, the number of credits for credits) and a payload (a pooled, reference-counted buffer owned by
 * whoever holds the frame; release it when done).
 */
public record Frame(FrameType type, long repairId, int index, ByteBuf payload) implements ReferenceCounted {

  public static Frame of(FrameType type, long repairId, int index) {
    return new Frame(type, repairId, index, Unpooled.EMPTY_BUFFER);
  }

  public static Frame text(FrameType type, long repairId, String text) {
    return new Frame(type, repairId, 0, Unpooled.wrappedBuffer(text.getBytes(StandardCharsets.UTF_8)));
  }

  public static Frame bytes(FrameType type, long repairId, byte[] payload) {
    return new Frame(type, repairId, 0, Unpooled.wrappedBuffer(payload));
  }

  /** The payload as UTF-8 text (error messages); does not release. */
  public String payloadText() {
    return payload.toString(payload.readerIndex(), payload.readableBytes(), StandardCharsets.UTF_8);
  }

  /** A copy of the payload bytes; does not release. */
  public byte[] payloadBytes() {
    byte[] b = new byte[payload.readableBytes()];
    payload.getBytes(payload.readerIndex(), b);
    return b;
  }

  @Override
  public int refCnt() {
    return payload.refCnt();
  }

  @Override
  public Frame retain() {
    payload.retain();
    return this;
  }

  @Override
  public Frame retain(int increment) {
    payload.retain(increment);
    return this;
  }

  @Override
  public Frame touch() {
    payload.touch();
    return this;
  }

  @Override
  public Frame touch(Object hint) {
    payload.touch(hint);
    return this;
  }

  @Override
  public boolean release() {
    return payload.release();
  }

  @Override
  public boolean release(int decrement) {
    return payload.release(decrement);
  }
}
