package org.wideec.repair;

/**
 * The stored replica a helper reads: block pool, block id, generation stamp and replica length, and the authority to
 * read it: a serialized HDFS block access token (minted by the NameNode for a client, by the requesting DataNode for
 * a repair), empty when block tokens are off. The helper checks the token as DataTransferProtocol would.
 */
public record BlockRef(String pool, long blockId, long genStamp, long numBytes, byte[] token) {
  private static final byte[] NO_TOKEN = new byte[0];

  public BlockRef {
    token = token == null ? NO_TOKEN : token;
  }

  public BlockRef(String pool, long blockId, long genStamp, long numBytes) {
    this(pool, blockId, genStamp, numBytes, NO_TOKEN);
  }

  /** The same replica with the authority to read it. */
  public BlockRef withToken(byte[] t) {
    return new BlockRef(pool, blockId, genStamp, numBytes, t);
  }

  // A record compares arrays by identity; two references to the same replica with the same token are equal.
  @Override
  public boolean equals(Object o) {
    return o instanceof BlockRef b && pool.equals(b.pool) && blockId == b.blockId && genStamp == b.genStamp
        && numBytes == b.numBytes && java.util.Arrays.equals(token, b.token);
  }

  @Override
  public int hashCode() {
    return java.util.Objects.hash(pool, blockId, genStamp, numBytes, java.util.Arrays.hashCode(token));
  }

  @Override
  public String toString() {
    return pool + ":blk_" + blockId + "_" + genStamp + " (" + numBytes + " bytes)";
  }
}
