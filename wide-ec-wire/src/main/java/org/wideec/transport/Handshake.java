package org.wideec.transport;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The slice port's mutual challenge-response (HMAC-SHA256). The server sends a nonce; the client answers with its
 * mode, its own nonce, a token identifier in token mode, and a MAC over all of it under its key; the server proves
 * itself with a MAC over both nonces in the other order. The key is the cluster secret (DataNodes) or the password
 * of an HDFS block access token (clients, as DataTransferProtocol's SASL handshake keys DIGEST-MD5 with it): the
 * server recomputes a token's password from its block keys, so a forged or expired token fails here. Neither key is
 * ever sent. Both sides then derive a session key, and one frame key per direction, under which every later frame
 * is authenticated ({@link FrameAuth}). An anonymous session (no key, no frame MACs) is accepted only by a server that
 * runs {@code wide-ec.transport.auth=none}. The CHALLENGE's index field carries the frame MACs the server offers, the
 * AUTH's the one the client picked ({@link FrameMac}; 0 from and for peers that predate the choice: HMAC-SHA256).
 *
 * <p>AUTH payload: mode (1 byte), client nonce (32), identifier length (2), identifier, MAC (32; none when anonymous).
 */
public final class Handshake {
  static final int NONCE = 32;
  static final int MAX_IDENTIFIER = 4096;
  /**
   * The CHALLENGE's bit (above the frame MACs' bits) saying this server takes a cluster peer's name in its AUTH; a
   * client names itself only to such a server, so peers of earlier versions still authenticate each other.
   */
  static final int NAMES_PEERS = 1 << 16;
  private static final int MAC = 32;
  private static final SecureRandom RANDOM = new SecureRandom();
  private final byte[] secret;
  private final TokenKeys tokens;
  private final FrameMac frameMac;

  /**
   * @param secret the cluster secret, or null for a server that accepts anonymous peers ({@code auth=none})
   * @param tokens checks block token sessions, or null when block tokens are off
   */
  public Handshake(byte[] secret, TokenKeys tokens) {
    this(secret, tokens, FrameMac.DEFAULT);
  }

  /** @param frameMac the frame MAC this server prefers ({@link FrameMac#KEY}) */
  public Handshake(byte[] secret, TokenKeys tokens, FrameMac frameMac) {
    if (secret != null && secret.length < 16) {
      throw new IllegalArgumentException("the wide-ec transport secret must be at least 16 bytes, got " + secret.length);
    }
    this.secret = secret == null ? null : secret.clone();
    this.tokens = tokens;
    this.frameMac = frameMac;
  }

  /** The CHALLENGE's index: the frame MACs this server offers. */
  int offer() {
    return frameMac.offer() | NAMES_PEERS;
  }

  public boolean authenticates() {
    return secret != null;
  }

  /** The same secret with a token checker (a DataNode with block tokens on). */
  public Handshake withTokens(TokenKeys keys) {
    return new Handshake(secret, keys, frameMac);
  }

  /** What this side presents when it connects: the cluster secret, or nothing under auth=none. */
  public Credential ownCredential() {
    return secret == null ? Credential.anonymous() : Credential.cluster(secret);
  }

  static byte[] nonce() {
    byte[] n = new byte[NONCE];
    RANDOM.nextBytes(n);
    return n;
  }

  /** The client's AUTH payload. */
  static byte[] clientResponse(Credential c, byte[] serverNonce, byte[] clientNonce) {
    byte[] head = head(c.mode, clientNonce, c.identifier);
    return c.mode == Credential.Mode.ANONYMOUS ? head : concat(head, mac(c.key, "wide-ec client", serverNonce, head));
  }

  /**
   * A session the server accepted: its proof for AUTH_OK, its frame keys (null when anonymous) and who proved it
   * (a DataNode's name, or a block token's owner, as MACed in the AUTH; null when the peer named nobody).
   */
  record Accepted(byte[] proof, Credential.Mode mode, FrameMac frameMac, byte[] sendKey, byte[] receiveKey,
      String principal) {}

  /** Checks a client's AUTH payload, which picked frame MAC {@code picked} (the AUTH frame's index). */
  Accepted verifyClient(byte[] serverNonce, byte[] auth, int picked) throws AuthenticationException {
    FrameMac chosen = frameMac.accept(picked);
    if (chosen == null) {
      throw new AuthenticationException("peer picked frame MAC " + picked + ", which this node did not offer (see "
          + FrameMac.KEY + ")");
    }
    if (auth.length < 1 + NONCE + 2) {
      throw new AuthenticationException("malformed AUTH (" + auth.length + " bytes)");
    }
    Credential.Mode mode = auth[0] >= 0 && auth[0] < Credential.Mode.values().length
        ? Credential.Mode.values()[auth[0]] : null;
    int idLength = ((auth[1 + NONCE] & 0xff) << 8) | (auth[2 + NONCE] & 0xff);
    int headLength = 1 + NONCE + 2 + idLength;
    int macLength = mode == Credential.Mode.ANONYMOUS ? 0 : MAC;
    if (mode == null || idLength > MAX_IDENTIFIER || auth.length != headLength + macLength
        || (mode == Credential.Mode.TOKEN && idLength == 0) || (mode == Credential.Mode.ANONYMOUS && idLength > 0)) {
      throw new AuthenticationException("malformed AUTH (" + auth.length + " bytes, mode " + auth[0]
          + "): is the peer a wide-ec slice transport of the same version?");
    }
    byte[] head = Arrays.copyOf(auth, headLength);
    byte[] clientNonce = Arrays.copyOfRange(auth, 1, 1 + NONCE);
    byte[] identifier = Arrays.copyOfRange(head, 1 + NONCE + 2, headLength);
    byte[] key = keyOf(mode, identifier);
    if (key == null) {
      return new Accepted(new byte[0], mode, null, null, null, null);
    }
    if (!MessageDigest.isEqual(mac(key, "wide-ec client", serverNonce, head), Arrays.copyOfRange(auth, headLength, auth.length))) {
      throw mode == Credential.Mode.CLUSTER
          ? new AuthenticationException(RefusalReason.WRONG_SECRET, new String(identifier, StandardCharsets.UTF_8),
              "peer failed authentication: wrong wide-ec.transport.secret")
          : new AuthenticationException(RefusalReason.BAD_TOKEN, null,
              "peer failed authentication: its block token's password does not match the token");
    }
    byte[] session = mac(key, "wide-ec session", serverNonce, head);
    return new Accepted(mac(key, "wide-ec server", clientNonce, serverNonce), mode, chosen,
        mac(session, chosen.keyLabel("server to client"), new byte[0], new byte[0]),
        mac(session, chosen.keyLabel("client to server"), new byte[0], new byte[0]), principal(mode, identifier));
  }

  /** The MAC key a peer proving {@code mode} must hold here, or null for an anonymous session this node allows. */
  private byte[] keyOf(Credential.Mode mode, byte[] identifier) throws AuthenticationException {
    return switch (mode) {
      case ANONYMOUS -> {
        if (secret != null) {
          throw new AuthenticationException(RefusalReason.NO_CREDENTIAL, null, "peer presented no credential; this node authenticates its peers "
              + "(wide-ec.transport.auth=hmac: DataNodes need the same wide-ec.transport.secret, clients a block token)");
        }
        yield null;
      }
      case CLUSTER -> {
        if (secret == null) {
          throw new AuthenticationException("peer authenticates with a cluster secret but this node runs "
              + "wide-ec.transport.auth=none: configure the same wide-ec.transport.auth on every DataNode");
        }
        yield secret;
      }
      case TOKEN -> {
        if (tokens == null) {
          throw new AuthenticationException("peer presented a block token but this node does not check block tokens "
              + "(dfs.block.access.token.enable is false here)");
        }
        try {
          yield tokens.passwordOf(identifier);
        } catch (AuthenticationException e) {
          throw new AuthenticationException(RefusalReason.BAD_TOKEN, null, e.getMessage());
        }
      }
    };
  }

  /**
   * Checks the server's AUTH_OK proof; returns the client's frame keys {send, receive} for the frame MAC it picked,
   * or null for an anonymous session.
   */
  static byte[][] verifyServer(Credential c, byte[] serverNonce, byte[] clientNonce, byte[] proof, FrameMac picked)
      throws AuthenticationException {
    if (c.mode == Credential.Mode.ANONYMOUS) {
      if (proof.length != 0) {
        throw new AuthenticationException("server proved a key to an anonymous client");
      }
      return null;
    }
    if (!MessageDigest.isEqual(mac(c.key, "wide-ec server", clientNonce, serverNonce), proof)) {
      throw new AuthenticationException(c.mode == Credential.Mode.CLUSTER
          ? "server failed authentication: wrong wide-ec.transport.secret"
          : "server failed authentication: it does not know this block token's key");
    }
    byte[] session = mac(c.key, "wide-ec session", serverNonce, head(c.mode, clientNonce, c.identifier));
    return new byte[][] {mac(session, picked.keyLabel("client to server"), new byte[0], new byte[0]),
        mac(session, picked.keyLabel("server to client"), new byte[0], new byte[0])};
  }

  /** Who proved the session, in the terms the slice port counts requests by. */
  private String principal(Credential.Mode mode, byte[] identifier) {
    if (mode == Credential.Mode.CLUSTER) {
      return identifier.length == 0 ? null : "DataNode " + new String(identifier, StandardCharsets.UTF_8);
    }
    String owner = tokens.ownerOf(identifier);
    return owner == null || owner.isEmpty() ? null : "token owner " + owner;
  }

  private static byte[] head(Credential.Mode mode, byte[] clientNonce, byte[] identifier) {
    byte[] h = new byte[1 + NONCE + 2 + identifier.length];
    h[0] = (byte) mode.ordinal();
    System.arraycopy(clientNonce, 0, h, 1, NONCE);
    h[1 + NONCE] = (byte) (identifier.length >>> 8);
    h[2 + NONCE] = (byte) identifier.length;
    System.arraycopy(identifier, 0, h, 3 + NONCE, identifier.length);
    return h;
  }

  private static byte[] mac(byte[] key, String label, byte[] a, byte[] b) {
    try {
      Mac m = Mac.getInstance("HmacSHA256");
      m.init(new SecretKeySpec(key, "HmacSHA256"));
      m.update(label.getBytes(StandardCharsets.US_ASCII));
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

  /** A peer that could not prove its credential. */
  public static final class AuthenticationException extends java.io.IOException {
    private final RefusalReason reason;
    private final String claimed;

    public AuthenticationException(String message) {
      this(RefusalReason.OTHER, null, message);
    }

    /** @param claimed the DataNode name the peer's AUTH carried, unproven (null if none) */
    AuthenticationException(RefusalReason reason, String claimed, String message) {
      super(message);
      this.reason = reason;
      this.claimed = claimed;
    }

    public RefusalReason reason() {
      return reason;
    }

    /** The name the refused peer claimed in its AUTH: not proven, so reports check it against its address. */
    String claimed() {
      return claimed;
    }
  }
}
