package org.wideec.protocol;

import java.io.IOException;

/**
 * A requestor's word to an inner helper of its plan: here is the step you will be asked for by your downstream in a
 * moment; ask your upstreams for their parts now. A chain is set up from the requestor backwards, each helper asking
 * its upstream only once its own request arrived (ECPipe §3.2), so a chain of m helpers pays m connects, handshakes
 * and request hand-offs one after another. Told ahead, every helper asks at once (ECPipe §5) and keeps what arrives,
 * within the transport's window, for the request that follows; the chain's far end then starts about two handshakes
 * in, whatever m. The helper checks the step as it would the request itself (bounds and READ token) before it asks
 * anything, then answers END; it sends its downstream nothing until the request comes. Kind {@value #KIND}, version
 * {@value #VERSION} (version 1 only dialled the connections); a DataNode of an earlier release refuses the kind or
 * version, and the chain is set up as before.
 */
public record DialAheadRequest(StepRequest step) {
  public static final int KIND = MessageKind.DIAL_AHEAD.code();
  public static final int VERSION = 2;

  /** Whether a request body is a dial-ahead. */
  public static boolean isOne(byte[] body) {
    return MessageKind.isOf(body, MessageKind.Family.DIAL_AHEAD);
  }

  public byte[] toBytes() {
    byte[] inner = step.toBytes();
    return WireCodec.encode(out -> {
      out.writeByte(KIND);
      out.writeByte(VERSION);
      out.write(inner);
    });
  }

  /** @throws IOException naming what is malformed, in the dial-ahead or in its step */
  public static DialAheadRequest parse(byte[] bytes) throws IOException {
    byte[] inner = WireCodec.decode(bytes, "dial-ahead request", in -> {
      WireCodec.requireKind(in, MessageKind.DIAL_AHEAD, VERSION, "a dial-ahead request");
      return in.readAllBytes();
    });
    return new DialAheadRequest(StepRequest.parse(inner));
  }
}
