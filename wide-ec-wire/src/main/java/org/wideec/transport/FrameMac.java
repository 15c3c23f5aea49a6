package org.wideec.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.security.GeneralSecurityException;
import java.util.Locale;
import javax.crypto.Cipher;
import javax.crypto.Mac;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * The algorithms that tag frames after the handshake, as negotiated there ({@link Handshake}): the server offers
 * the ones it runs in its CHALLENGE, the client picks one in its AUTH (the frames' index field, which slice ports
 * before AES-GMAC leave 0 and ignore: such a peer gets HMAC-SHA256 as before). The pick is bound into the frame keys,
 * so a relay that rewrites it leaves the two sides with different keys and the first frame fails; one that rewrites
 * the offer can only make both sides agree on HMAC-SHA256, which still authenticates every frame (a server cannot
 * tell a downgraded client from an older one).
 *
 * <p>AES-256-GMAC (AES-GCM over the frame as additional data, the frame's sequence number as nonce) costs a fifth of
 * HMAC-SHA256's CPU through OpenSSL ({@link NativeGmac}) and half through the JDK; a k = 64 chain encode tags every
 * byte twice per hop (benchmarks/HISTORY.md).
 */
public enum FrameMac {
  HMAC_SHA256(0, 32, "hmac"),
  AES_GMAC(1, 16, "gmac");

  /** {@code gmac} (default: AES-256-GMAC with peers that offer it, HMAC-SHA256 with older ones) or {@code hmac}. */
  public static final String KEY = TransportConf.PREFIX + "frame.mac";
  public static final FrameMac DEFAULT = AES_GMAC;

  final int id;
  final int tagLength;
  private final String name;

  FrameMac(int id, int tagLength, String name) {
    this.id = id;
    this.tagLength = tagLength;
    this.name = name;
  }

  public int tagLength() {
    return tagLength;
  }

  /** The algorithm with this wire id, or null. */
  static FrameMac ofId(int id) {
    for (FrameMac m : values()) {
      if (m.id == id) {
        return m;
      }
    }
    return null;
  }

  /** What a server that prefers this algorithm offers: it, and HMAC-SHA256 for peers that know no other. */
  int offer() {
    return (1 << HMAC_SHA256.id) | (1 << id);
  }

  /** What a client that prefers this algorithm picks from a server's offer (0: a server that predates the offer). */
  FrameMac pick(int offered) {
    return (offered & (1 << id)) != 0 ? this : HMAC_SHA256;
  }

  /** The algorithm a client picked, if this server (preferring this one) offered it; null otherwise. */
  FrameMac accept(int picked) {
    FrameMac m = ofId(picked);
    return m != null && (offer() & (1 << m.id)) != 0 ? m : null;
  }

  /** The label a direction's frame key is derived under: HMAC keeps the labels of before the negotiation. */
  String keyLabel(String direction) {
    return this == HMAC_SHA256 ? direction : direction + " " + name;
  }

  /** Parses {@value #KEY}. */
  public static FrameMac parse(String value) {
    String v = value == null ? "" : value.trim().toLowerCase(Locale.ROOT);
    for (FrameMac m : values()) {
      if (m.name.equals(v)) {
        return m;
      }
    }
    throw new IllegalArgumentException(KEY + "='" + value + "' is not valid; allowed: gmac, hmac");
  }

  @Override
  public String toString() {
    return this == HMAC_SHA256 ? "HMAC-SHA256" : "AES-256-GMAC";
  }

  /** A tagger under a 32-byte key (from the handshake's derivation). */
  FrameTagger tagger(byte[] key) {
    if (this == HMAC_SHA256) {
      return new Hmac(key);
    }
    FrameTagger fast = NativeGmac.tagger(key);
    return fast != null ? fast : new JdkGmac(key);
  }

  /** HMAC-SHA256 over the sequence number (8 bytes, big-endian), then the regions. */
  private static final class Hmac implements FrameTagger {
    private final Mac mac;

    Hmac(byte[] key) {
      try {
        mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(key, "HmacSHA256"));
      } catch (GeneralSecurityException e) {
        throw new IllegalStateException("HmacSHA256 unavailable", e);
      }
    }

    @Override
    public void tag(long seq, ByteBuf a, int aFrom, int aLen, ByteBuf b, int bFrom, int bLen, byte[] out) {
      for (int i = 7; i >= 0; i--) {
        mac.update((byte) (seq >>> (8 * i)));
      }
      update(a, aFrom, aLen);
      update(b, bFrom, bLen);
      try {
        mac.doFinal(out, 0);
      } catch (javax.crypto.ShortBufferException e) {
        throw new IllegalStateException(e);
      }
    }

    private void update(ByteBuf buf, int from, int len) {
      if (len == 0) {
        return;
      }
      if (buf.hasArray()) {
        mac.update(buf.array(), buf.arrayOffset() + from, len);
      } else {
        mac.update(buf.nioBuffer(from, len));
      }
    }
  }

  /** AES-256-GMAC through the JDK, where the native library is not there: the same tags, about half as fast. */
  static final class JdkGmac implements FrameTagger {
    private final Cipher cipher;
    private final SecretKeySpec key;
    private final byte[] iv = new byte[12];

    JdkGmac(byte[] key) {
      try {
        this.cipher = Cipher.getInstance("AES/GCM/NoPadding");
      } catch (GeneralSecurityException e) {
        throw new IllegalStateException("AES/GCM unavailable", e);
      }
      this.key = new SecretKeySpec(key, "AES");
    }

    @Override
    public void tag(long seq, ByteBuf a, int aFrom, int aLen, ByteBuf b, int bFrom, int bLen, byte[] out) {
      for (int i = 0; i < 8; i++) {
        iv[4 + i] = (byte) (seq >>> (56 - 8 * i));
      }
      try {
        cipher.init(Cipher.ENCRYPT_MODE, key, new GCMParameterSpec(128, iv));
        update(a, aFrom, aLen);
        update(b, bFrom, bLen);
        cipher.doFinal(out, 0);
      } catch (GeneralSecurityException e) {
        throw new IllegalStateException("AES-GMAC of frame " + seq + " failed", e);
      }
    }

    private void update(ByteBuf buf, int from, int len) {
      if (len == 0) {
        return;
      }
      if (buf.hasArray()) {
        cipher.updateAAD(buf.array(), buf.arrayOffset() + from, len);
      } else {
        cipher.updateAAD(buf.nioBuffer(from, len));
      }
    }
  }

  /** An empty region, for frames tagged over one region. */
  static final ByteBuf NONE = Unpooled.EMPTY_BUFFER;
}
