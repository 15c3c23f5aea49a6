package org.wideec.transport;

/**
 * The server's side of token sessions: the password of a block token identifier, recomputed from the block keys
 * the NameNode handed this DataNode (as DataTransferProtocol's SASL handshake does), or a refusal for a token
 * that is malformed, expired or under an unknown key.
 */
@FunctionalInterface
public interface TokenKeys {
  byte[] passwordOf(byte[] identifier) throws Handshake.AuthenticationException;
}
