package org.wideec.transport;

import java.io.IOException;

/**
 * What the connecting side of a slice connection proves in the handshake: that it holds the cluster secret (a
 * DataNode), that it holds an HDFS block access token (a client, whose token the NameNode minted), or nothing
 * (only where the server runs {@code wide-ec.transport.auth=none}). Neither secret nor token password is ever
 * sent: both are MAC keys, and the session's frame keys are derived from them (see {@link Handshake}).
 */
public final class Credential {
  enum Mode {
    ANONYMOUS, CLUSTER, TOKEN
  }

  private static final Credential ANONYMOUS = new Credential(Mode.ANONYMOUS, new byte[0], new byte[0]);
  final Mode mode;
  final byte[] identifier;
  final byte[] key;

  private Credential(Mode mode, byte[] identifier, byte[] key) {
    this.mode = mode;
    this.identifier = identifier;
    this.key = key;
  }

  public static Credential anonymous() {
    return ANONYMOUS;
  }

  /** A cluster member's credential: the shared secret (at least 16 bytes). */
  public static Credential cluster(byte[] secret) {
    if (secret == null || secret.length < 16) {
      throw new IllegalArgumentException("the wide-ec transport secret must be at least 16 bytes");
    }
    return new Credential(Mode.CLUSTER, new byte[0], secret.clone());
  }

  /** A token holder's credential: the token's identifier (sent) and password (the MAC key, never sent). */
  public static Credential token(byte[] identifier, byte[] password) {
    if (identifier.length == 0 || identifier.length > Handshake.MAX_IDENTIFIER || password.length == 0) {
      throw new IllegalArgumentException("a block token credential needs an identifier of 1.." + Handshake.MAX_IDENTIFIER
          + " bytes and a password");
    }
    return new Credential(Mode.TOKEN, identifier.clone(), password.clone());
  }

  /**
   * The credential of a serialized HDFS token ({@code Token.write}), as block references carry them; anonymous for
   * an empty or dummy token (block tokens off).
   */
  public static Credential ofToken(byte[] serialized) throws IOException {
    if (serialized == null || serialized.length == 0) {
      return ANONYMOUS;
    }
    SerializedToken t = SerializedToken.parse(serialized);
    return t.identifier().length == 0 ? ANONYMOUS : token(t.identifier(), t.password());
  }

  /**
   * A cluster member's credential that also names the member (its DataNode name), bound into the handshake's MAC: a
   * server counts what the member holds under that name, never under names its requests carry.
   */
  public Credential named(String node) {
    if (mode != Mode.CLUSTER) {
      return this;
    }
    byte[] name = node.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    return new Credential(mode, java.util.Arrays.copyOf(name, Math.min(name.length, Handshake.MAX_IDENTIFIER)), key);
  }

  /** What is proved to a server that does not take names (one that predates them): the same, unnamed. */
  Credential toServer(int offered) {
    return mode == Mode.CLUSTER && (offered & Handshake.NAMES_PEERS) == 0 && identifier.length > 0
        ? new Credential(mode, new byte[0], key) : this;
  }

  public boolean anonymousSession() {
    return mode == Mode.ANONYMOUS;
  }

  @Override
  public String toString() {
    return switch (mode) {
      case ANONYMOUS -> "no credential";
      case CLUSTER -> "the cluster secret";
      case TOKEN -> "a block token";
    };
  }
}
