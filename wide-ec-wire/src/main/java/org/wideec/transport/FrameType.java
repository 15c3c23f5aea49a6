package org.wideec.transport;

/**
 * Message types of the slice protocol. A connection starts with the server's CHALLENGE, the client's AUTH
 * and the server's AUTH_OK (mutual HMAC, {@link Handshake}); then the client (the consumer of a stream)
 * sends one REQUEST and CREDITs, and the server (the producer) answers with SLICEs and END, or ERROR.
 */
public enum FrameType {
  CHALLENGE, AUTH, AUTH_OK, REQUEST, CREDIT, SLICE, END, ERROR;

  private static final FrameType[] VALUES = values();

  static FrameType of(int code) {
    return code >= 0 && code < VALUES.length ? VALUES[code] : null;
  }
}
