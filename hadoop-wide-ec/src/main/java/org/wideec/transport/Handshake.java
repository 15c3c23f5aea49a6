package org.wideec.transport;

import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Mutual challenge-response over a cluster secret (HMAC-SHA256), so the slice port is not open to anyone
 * who can reach it: the server sends a nonce, the client answers with its own nonce and a MAC over both,
 * the server proves itself with a MAC over both in the other order. Neither side ever sends the secret.
 * Without a secret (auth "none", which an operator must choose explicitly) MACs are empty and not checked.
 */
public final class Handshake {
  static final int NONCE = 32;
  private static final int MAC = 32;
  private static final SecureRandom RANDOM = new SecureRandom();
  private final byte[] secret;

  /** @param secret the cluster secret, or null for no authentication */
  public Handshake(byte[] secret) {
    if (secret != null && secret.length < 16) {
      throw new IllegalArgumentException("the wide-ec transport secret must be at least 16 bytes, got " + secret.length);
    }
    this.secret = secret == null ? null : secret.clone();
  }

  public boolean authenticates() {
    return secret != null;
  }

  static byte[] nonce() {
    byte[] n = new byte[NONCE];
    RANDOM.nextBytes(n);
    return n;
  }

  /** The client's AUTH payload: its nonce and a MAC over both nonces. */
  byte[] clientResponse(byte[] serverNonce, byte[] clientNonce) {
    return concat(clientNonce, mac("wide-ec client", serverNonce, clientNonce));
  }

  /** Checks a client's AUTH payload; returns the server's proof for AUTH_OK. */
  byte[] verifyClient(byte[] serverNonce, byte[] auth) throws AuthenticationException {
    if (auth.length != NONCE + (secret == null ? 0 : MAC)) {
      throw new AuthenticationException("malformed AUTH (" + auth.length + " bytes): is the peer configured with the same "
          + "wide-ec.transport.auth?");
    }
    byte[] clientNonce = Arrays.copyOf(auth, NONCE);
    byte[] expected = mac("wide-ec client", serverNonce, clientNonce);
    if (!MessageDigest.isEqual(expected, Arrays.copyOfRange(auth, NONCE, auth.length))) {
      throw new AuthenticationException("peer failed authentication: wrong wide-ec.transport.secret");
    }
    return mac("wide-ec server", clientNonce, serverNonce);
  }

  void verifyServer(byte[] serverNonce, byte[] clientNonce, byte[] proof) throws AuthenticationException {
    if (!MessageDigest.isEqual(mac("wide-ec server", clientNonce, serverNonce), proof)) {
      throw new AuthenticationException("server failed authentication: wrong wide-ec.transport.secret");
    }
  }

  private byte[] mac(String label, byte[] a, byte[] b) {
    if (secret == null) {
      return new byte[0];
    }
    try {
      Mac m = Mac.getInstance("HmacSHA256");
      m.init(new SecretKeySpec(secret, "HmacSHA256"));
      m.update(label.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
      m.update(a);
      m.update(b);
      return m.doFinal();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 unavailable", e);
    }
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] out = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  /** A peer that could not prove it holds the cluster secret. */
  public static final class AuthenticationException extends java.io.IOException {
    public AuthenticationException(String message) {
      super(message);
    }
  }
}
