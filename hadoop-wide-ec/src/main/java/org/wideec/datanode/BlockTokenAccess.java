package org.wideec.datanode;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.EnumSet;
import org.apache.hadoop.fs.StorageType;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.security.token.block.BlockTokenIdentifier;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.security.token.SecretManager;
import org.apache.hadoop.security.token.Token;
import org.wideec.repair.BlockRef;
import org.wideec.repair.ReplicaAccess;
import org.wideec.transport.Handshake;
import org.wideec.transport.hdfs.TokenBytes;
import org.wideec.transport.TokenKeys;

/**
 * HDFS block access tokens on the slice port, checked as DataTransferProtocol checks them (DataXceiver#checkAccess:
 * the block pool's token secret manager verifies the token's password, block, access mode and expiry), and minted
 * as HDFS's own reconstruction mints them (the DataNode signs READ tokens with the block keys the NameNode gave it).
 * Only in force when {@code dfs.block.access.token.enable} is on; otherwise every replica is readable, as in HDFS.
 */
final class BlockTokenAccess implements ReplicaAccess, TokenKeys {
  private final DataNode dn;
  /** The user this DataNode mints its own tokens under (BlockTokenSecretManager#generateToken: the current user). */
  private final String ownUser;

  private BlockTokenAccess(DataNode dn) {
    this.dn = dn;
    this.ownUser = currentUser();
  }

  private static String currentUser() {
    try {
      return UserGroupInformation.getCurrentUser().getShortUserName();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot tell which user this DataNode runs as: " + e.getMessage(), e);
    }
  }

  /** The checker of a DataNode, or null when its block tokens are off. */
  static BlockTokenAccess of(DataNode dn) {
    return enabled(dn) ? new BlockTokenAccess(dn) : null;
  }

  static boolean enabled(DataNode dn) {
    return dn.getConf().getBoolean(DFSConfigKeys.DFS_BLOCK_ACCESS_TOKEN_ENABLE_KEY,
        DFSConfigKeys.DFS_BLOCK_ACCESS_TOKEN_ENABLE_DEFAULT);
  }

  @Override
  public void checkRead(BlockRef unit) throws IOException {
    check(dn, unit, BlockTokenIdentifier.AccessMode.READ);
  }

  /** Checks that the unit's token grants {@code mode} on its block, as DataXceiver#checkAccess would. */
  static void check(DataNode dn, BlockRef unit, BlockTokenIdentifier.AccessMode mode)
      throws ReplicaAccess.DeniedException {
    if (unit.token().length == 0) {
      throw new ReplicaAccess.DeniedException("no block token for " + unit + " (dfs.block.access.token.enable is on)");
    }
    try {
      dn.getBlockPoolTokenSecretManager().checkAccess(tokenOf(unit), null,
          new ExtendedBlock(unit.pool(), unit.blockId(), unit.numBytes(), unit.genStamp()), mode);
    } catch (SecretManager.InvalidToken e) {
      throw new ReplicaAccess.DeniedException("block token refused for " + unit + ": " + e.getMessage());
    } catch (IOException | RuntimeException e) {
      throw new ReplicaAccess.DeniedException("malformed block token for " + unit + ": " + e);
    }
  }

  /**
   * The WRITE token a request carries for the block it has this DataNode write (a rebuilt unit, a codeword), checked
   * against the block pool's secret manager for that exact block and WRITE, as DataXceiver#writeBlock would. Null
   * when block tokens are off and none was sent (the writer then uses HDFS's dummy token).
   */
  static Token<BlockTokenIdentifier> checkWrite(DataNode dn, BlockRef target) throws IOException {
    if (enabled(dn)) {
      if (target.token().length == 0) {
        throw new ReplicaAccess.DeniedException("no WRITE token for " + target
            + " (dfs.block.access.token.enable is on)");
      }
      check(dn, target, BlockTokenIdentifier.AccessMode.WRITE);
    }
    return tokenOf(target);
  }

  /**
   * The Hadoop token a reference carries ({@code Token.readFields} of its bytes); null when it carries none (block
   * tokens off: a writer then uses HDFS's dummy token).
   */
  static Token<BlockTokenIdentifier> tokenOf(BlockRef b) throws IOException {
    if (b.token().length == 0) {
      return null;
    }
    Token<BlockTokenIdentifier> token = new Token<>();
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(b.token()))) {
      token.readFields(in);
    }
    return token;
  }

  /** A token's identifier ({@code BlockTokenIdentifier.readFields} of its bytes). */
  private static BlockTokenIdentifier identifierOf(byte[] identifier) throws IOException {
    BlockTokenIdentifier id = new BlockTokenIdentifier();
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(identifier))) {
      id.readFields(in);
    }
    return id;
  }

  @Override
  public byte[] passwordOf(byte[] identifier) throws Handshake.AuthenticationException {
    try {
      return dn.getBlockPoolTokenSecretManager().retrievePassword(identifierOf(identifier));
    } catch (SecretManager.InvalidToken e) {
      throw new Handshake.AuthenticationException("block token refused: " + e.getMessage());
    } catch (IOException | RuntimeException e) {
      throw new Handshake.AuthenticationException("malformed block token identifier: " + e);
    }
  }

  /** The token's user (whom the NameNode issued it to): what the slice port counts a client's requests under. */
  @Override
  public String ownerOf(byte[] identifier) {
    try {
      return identifierOf(identifier).getUserId();
    } catch (IOException | RuntimeException e) {
      return null; // passwordOf refused it already; counted under its address
    }
  }

  /**
   * The user a reference's token was issued to, unless it is the user this DataNode runs as: DataNodes mint their own
   * repairs' tokens under it (all of a cluster's DataNodes run as HDFS's service user), and the HDFS superuser is
   * trusted as they are. The token was verified by {@link #checkRead} first.
   */
  @Override
  public String clientOf(BlockRef unit) {
    if (unit.token().length == 0) {
      return null;
    }
    Token<BlockTokenIdentifier> token;
    try {
      token = tokenOf(unit);
    } catch (IOException | RuntimeException e) {
      return null; // checkRead refused it already
    }
    String user = ownerOf(token.getIdentifier());
    return user == null || user.isEmpty() || user.equals(ownUser) ? null : user;
  }

  /**
   * A READ token for a replica, minted for {@code client} (a relayed read then counts under that client at the
   * helper, as the client's own would), or under this DataNode's user when null; empty when block tokens are off.
   */
  static byte[] readToken(DataNode dn, ExtendedBlock block, String client) {
    if (client == null) {
      return readToken(dn, block);
    }
    if (!enabled(dn)) {
      return new byte[0];
    }
    return TokenBytes.of(dn.getBlockPoolTokenSecretManager().get(block.getBlockPoolId()).generateToken(client, block,
        EnumSet.of(BlockTokenIdentifier.AccessMode.READ), new StorageType[0], new String[0]));
  }

  /** A READ token for a replica, serialized for a {@link BlockRef}; empty when block tokens are off. */
  static byte[] readToken(DataNode dn, ExtendedBlock block) {
    try {
      Token<BlockTokenIdentifier> t = dn.getBlockAccessToken(block, EnumSet.of(BlockTokenIdentifier.AccessMode.READ),
          new StorageType[0], new String[0]);
      return TokenBytes.of(t);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot mint a block token for " + block + ": " + e.getMessage(), e);
    }
  }
}
