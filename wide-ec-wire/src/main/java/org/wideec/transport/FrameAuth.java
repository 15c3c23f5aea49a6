package org.wideec.transport;

import io.netty.buffer.ByteBuf;
import java.security.MessageDigest;

/**
 * One connection's frame authentication after the handshake: every frame carries a tag over a per-direction
 * sequence number, its header and its payload, under that direction's session key, in the algorithm the handshake
 * negotiated ({@link FrameMac}: AES-256-GMAC, or HMAC-SHA256 with older peers). A relay that rewrites a slice (and
 * fixes its CRC32C), replays, reorders or drops a frame fails the next check. Until the handshake keys it (and for
 * anonymous sessions) frames carry no tag. Used only on the channel's event loop.
 */
final class FrameAuth {
  /** Largest frame before the handshake is done: a challenge, an AUTH with a token identifier, a refusal. */
  static final int HANDSHAKE_FRAME = 8 * 1024;
  private boolean done;
  private FrameMac mac;
  private FrameTagger send;
  private FrameTagger receive;
  private byte[] signed;
  private byte[] expected;
  private byte[] actual;
  private long sent;
  private long received;

  /** Framing without a handshake (tests of the framing itself): full-size frames, no tags. */
  static FrameAuth none() {
    FrameAuth a = new FrameAuth();
    a.done = true;
    return a;
  }

  /** Starts tagging with HMAC-SHA256 (what peers that negotiate nothing use). */
  void start(byte[] sendKey, byte[] receiveKey) {
    start(FrameMac.HMAC_SHA256, sendKey, receiveKey);
  }

  /** Starts tagging; frames written and read from now on carry tags of the negotiated algorithm. */
  void start(FrameMac algorithm, byte[] sendKey, byte[] receiveKey) {
    mac = algorithm;
    send = algorithm.tagger(sendKey);
    receive = algorithm.tagger(receiveKey);
    signed = new byte[algorithm.tagLength()];
    expected = new byte[algorithm.tagLength()];
    actual = new byte[algorithm.tagLength()];
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

  /** Bytes of tag after each frame now (0 before the handshake keys the session). */
  int tagLength() {
    return mac == null ? 0 : mac.tagLength();
  }

  /** The algorithm tagging frames, or null. */
  FrameMac algorithm() {
    return mac;
  }

  /** Writes to {@code tag} the tag of the next frame sent: the header, then the payload. */
  void sign(ByteBuf header, int headerFrom, int headerLen, ByteBuf payload, int payloadFrom, int payloadLen,
      ByteBuf tag) {
    send.tag(sent++, header, headerFrom, headerLen, payload, payloadFrom, payloadLen, signed);
    tag.writeBytes(signed);
  }

  /**
   * The connection's pipeline is going away: frees the taggers' native state now rather than at the next GC (a frame
   * tagged after this fails instead of touching freed memory). Event loop only, like tagging.
   */
  void close() {
    if (send != null) {
      send.close();
      receive.close();
    }
  }

  /** Whether the tag at tagAt matches bytes [from, from + len) of in (a whole frame received). */
  boolean verify(ByteBuf in, int from, int len, int tagAt) {
    receive.tag(received++, in, from, len, FrameMac.NONE, 0, 0, expected);
    in.getBytes(tagAt, actual);
    return MessageDigest.isEqual(expected, actual);
  }
}
