package org.wideec.transport;

/**
 * The server's side of token sessions: the password of a block token identifier, recomputed from the block keys
 * the NameNode handed this DataNode (as DataTransferProtocol's SASL handshake does), or a refusal for a token
 * that is malformed, expired or under an unknown key.
 */
@FunctionalInterface
public interface TokenKeys {
  byte[] passwordOf(byte[] identifier) throws Handshake.AuthenticationException;

  /**
   * Whom the token was issued to (its user), once {@link #passwordOf} accepted it; the slice port counts a client's
   * requests under it. Null when unknown: the client is then counted under its address.
   */
  default String ownerOf(byte[] identifier) {
    return null;
  }
}
