package org.wideec.transport;

import io.netty.buffer.ByteBuf;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * One connection's frame authentication after the handshake: every frame carries an HMAC-SHA256 tag over a
 * per-direction sequence number, its header and its payload, under that direction's session key. A relay that
 * rewrites a slice (and fixes its CRC32C), replays, reorders or drops a frame fails the next check. Until the
 * handshake keys it (and for anonymous sessions) frames carry no tag. Used only on the channel's event loop.
 */
final class FrameAuth {
  static final int TAG = 32;
  /** Largest frame before the handshake is done: a challenge, an AUTH with a token identifier, a refusal. */
  static final int HANDSHAKE_FRAME = 8 * 1024;
  private boolean done;
  private Mac send;
  private Mac receive;
  private long sent;
  private long received;

  /** Framing without a handshake (tests of the framing itself): full-size frames, no tags. */
  static FrameAuth none() {
    FrameAuth a = new FrameAuth();
    a.done = true;
    return a;
  }

  /** Starts tagging; frames written and read from now on carry tags. */
  void start(byte[] sendKey, byte[] receiveKey) {
    send = hmac(sendKey);
    receive = hmac(receiveKey);
    done = true;
  }

  /** The handshake is over (also for an anonymous session, which carries no tags): full-size frames may follow. */
  void handshakeDone() {
    done = true;
  }

  /**
   * The largest payload to accept now: small until the peer has authenticated, so that connections that never
   * authenticate hold a few KiB each, not a frame limit each.
   */
  int payloadLimit(int maxPayload) {
    return done ? maxPayload : Math.min(maxPayload, HANDSHAKE_FRAME);
  }

  boolean sending() {
    return send != null;
  }

  boolean receiving() {
    return receive != null;
  }

  /** Appends the tag of bytes [from, from + len) of out (a whole encoded frame) to out. */
  void sign(ByteBuf out, int from, int len) {
    out.writeBytes(tag(send, sent++, out, from, len));
  }

  /** Whether the tag at tagAt matches bytes [from, from + len) of in. */
  boolean verify(ByteBuf in, int from, int len, int tagAt) {
    byte[] expected = tag(receive, received++, in, from, len);
    byte[] actual = new byte[TAG];
    in.getBytes(tagAt, actual);
    return MessageDigest.isEqual(expected, actual);
  }

  private static byte[] tag(Mac mac, long seq, ByteBuf b, int from, int len) {
    for (int i = 7; i >= 0; i--) {
      mac.update((byte) (seq >>> (8 * i)));
    }
    if (b.hasArray()) {
      mac.update(b.array(), b.arrayOffset() + from, len);
    } else {
      mac.update(b.nioBuffer(from, len));
    }
    return mac.doFinal();
  }

  private static Mac hmac(byte[] key) {
    try {
      Mac m = Mac.getInstance("HmacSHA256");
      m.init(new SecretKeySpec(key, "HmacSHA256"));
      return m;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 unavailable", e);
    }
  }
}
