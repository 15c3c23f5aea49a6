package org.wideec.transport;

import io.netty.buffer.ByteBuf;

/**
 * One direction's frame tags under one key ({@link FrameAuth}): the tag of frame number {@code seq} over two regions
 * taken in order (a frame's header, then its payload), so an encoder that does not copy the payload into the
 * header's buffer can still tag it. Used on one event loop only.
 */
interface FrameTagger {
  /** Writes the tag of frame {@code seq} over a[aFrom, aFrom + aLen) then b[bFrom, bFrom + bLen) to out. */
  void tag(long seq, ByteBuf a, int aFrom, int aLen, ByteBuf b, int bFrom, int bLen, byte[] out);

  /** Frees what the tagger holds outside the heap; later tags fail. Idempotent; on the same event loop as tag. */
  default void close() {}
}
