package org.apache.hadoop.hdfs;

import java.io.IOException;
import org.apache.hadoop.fs.StorageType;
import org.apache.hadoop.hdfs.client.impl.BlockReaderFactory;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedBlocks;
import org.apache.hadoop.net.NetUtils;

/**
 * The few package-private or protected HDFS client members our code-aware reads need, and nothing else.
 * It lives in Hadoop's package for the same reason as the raw-coder adapters (DESIGN.md §2): the block
 * list a stream already holds and the DataNode reader setup the stream itself uses are not public.
 * Translation only; all logic is in {@code org.wideec.client}.
 */
public final class WideEcClientAccess {
  private WideEcClientAccess() {}

  /** The block list the stream fetched when it was opened: no NameNode call. */
  public static LocatedBlocks locatedBlocks(DFSInputStream in) {
    synchronized (in.infoLock) {
      return in.locatedBlocks;
    }
  }

  /**
   * The DataNodes a stream could not reach and reads without for its life (its local dead nodes): a read-only view,
   * no copy (asked after every read).
   */
  public static java.util.Set<DatanodeInfo> localDeadNodes(DFSInputStream in) {
    return java.util.Collections.unmodifiableSet(in.getLocalDeadNodes().keySet());
  }

  /** The block holding file offset {@code offset}, from the stream's cache or fetched exactly as the stream would. */
  public static LocatedBlock blockAt(DFSInputStream in, long offset) throws IOException {
    return in.getBlockAt(offset);
  }

  /** The path the stream reads, after symlinks were resolved. */
  public static String src(DFSInputStream in) {
    return in.src;
  }

  public static boolean verifiesChecksums(DFSInputStream in) {
    return in.verifyChecksum;
  }

  /**
   * A reader of bytes [offset, offset + length) of one replica, set up as {@code DFSInputStream.getBlockReader}
   * does: the replica's block token, the client's SASL and encryption settings, short-circuit when allowed.
   */
  public static BlockReader blockReader(DFSClient client, String src, LocatedBlock block, int location, long offset,
      long length, boolean verifyChecksum) throws IOException {
    DatanodeInfo dn = block.getLocations()[location];
    StorageType[] types = block.getStorageTypes();
    return new BlockReaderFactory(client.getConf())
        .setInetSocketAddress(NetUtils.createSocketAddr(dn.getXferAddr(client.getConf().isConnectToDnViaHostname())))
        .setRemotePeerFactory(client)
        .setDatanodeInfo(dn)
        .setStorageType(types != null && types.length > location ? types[location] : StorageType.DEFAULT)
        .setFileName(src)
        .setBlock(block.getBlock())
        .setBlockToken(block.getBlockToken())
        .setStartOffset(offset)
        .setLength(length)
        .setVerifyChecksum(verifyChecksum)
        .setClientName(client.getClientName())
        .setCachingStrategy(client.getDefaultReadCachingStrategy())
        .setAllowShortCircuitLocalReads(true)
        .setClientCacheContext(client.getClientContext())
        .setUserGroupInformation(client.ugi)
        .setConfiguration(client.getConfiguration())
        .build();
  }

  /** The client's pool for striped reads (dfs.client.read.striped.threadpool.size), shared with the stock reader. */
  public static java.util.concurrent.ExecutorService stripedReadsPool(DFSClient client) {
    return client.getStripedReadsThreadPool();
  }

  /** Counts bytes fetched from a DataNode at the given network distance in the FileSystem's statistics. */
  public static void countFetched(DFSClient client, int distance, int bytes, long millis) {
    client.updateFileSystemReadStats(distance, bytes, millis);
  }

  /** Counts bytes rebuilt by decoding, as HDFS's striped reader does. */
  public static void countDecoded(DFSClient client, int bytes) {
    client.updateFileSystemECReadStats(bytes);
  }
}
