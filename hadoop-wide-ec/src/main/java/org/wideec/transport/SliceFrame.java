package org.wideec.transport;

import io.netty.buffer.ByteBuf;
import io.netty.util.ReferenceCounted;

/**
 * One slice of a repair on the wire: which repair and which slice it belongs to, and its bytes (a pooled,
 * reference-counted buffer owned by whoever holds the frame; release it when done).
 */
public record SliceFrame(long repairId, int sliceIndex, ByteBuf payload) implements ReferenceCounted {
  @Override
  public int refCnt() {
    return payload.refCnt();
  }

  @Override
  public SliceFrame retain() {
    payload.retain();
    return this;
  }

  @Override
  public SliceFrame retain(int increment) {
    payload.retain(increment);
    return this;
  }

  @Override
  public SliceFrame touch() {
    payload.touch();
    return this;
  }

  @Override
  public SliceFrame touch(Object hint) {
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
