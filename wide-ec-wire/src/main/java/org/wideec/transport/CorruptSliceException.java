package org.wideec.transport;

import io.netty.handler.codec.CorruptedFrameException;

/** A slice whose checksum or framing is wrong: never used, never written. */
public class CorruptSliceException extends CorruptedFrameException {
  public CorruptSliceException(String message) {
    super(message);
  }
}
