package org.wideec.client;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.hadoop.hdfs.DFSClient;
import org.apache.hadoop.hdfs.DFSInputStream;
import org.apache.hadoop.hdfs.WideEcClientAccess;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.HdfsFileStatus;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedBlocks;

/**
 * A replicated file with a block the NameNode lists with no live replica (an archived file's single replica was lost,
 * DESIGN.md §3.2), read block by block: blocks with a replica go through HDFS's own stream untouched; a range of a
 * block without one is rebuilt by a DataNode ({@link ArchivedReads}) as soon as the read reaches it, without the stock
 * reader's seconds of retries first. A block whose rebuild fails is read as stock from then on (HDFS's
 * BlockMissingException), once per stream. A stock read that fails on a block listed with a replica takes our path
 * at once: the stream is opened through a client that does not retry a block's failed holders
 * ({@link ArchivedReads#openFailFast}), and the NameNode lists a dead DataNode's replica for minutes (until it
 * declares the node dead), so a failed holder is not taken as proof that the block can be read later.
 *
 * <p>Sequential reads of a lost block rebuild {@link #WINDOW} bytes at a time and serve from them; positional reads
 * rebuild only what they ask (at most {@link ArchivedReadRequestBound#MAX}).
 */
final class ArchivedInputStream extends WrappingInputStream {
  /** What one sequential step of a lost block rebuilds. */
  static final int WINDOW = 4 << 20;

  /** The largest range one positional read rebuilds (it may return fewer bytes). */
  static final int MAX_PREAD = 8 << 20;

  private final DFSClient client;
  private final ArchivedReads reads;
  private final ReadPathCounters counters;
  /** Lost blocks our path could not rebuild: read as stock from now on. */
  private final Set<Long> givenUp = ConcurrentHashMap.newKeySet();
  /** Blocks that a failed stock read showed lost (refreshed listing), by block id. */
  private final ConcurrentHashMap<Long, LocatedBlock> lostSinceOpen = new ConcurrentHashMap<>();
  private volatile long inode;
  private ByteBuffer window;
  private long windowStart = -1;

  ArchivedInputStream(DFSInputStream stock, DFSClient client, ArchivedReads reads, ReadPathCounters counters) {
    super(stock, WideEcClientAccess.src(stock));
    this.client = client;
    this.reads = reads;
    this.counters = counters;
  }

  /**
   * Whether a replicated file's block list, as opened, calls for this stream: complete, not encrypted, and a block
   * without a live replica in it, or every listed block at one replica at most, as an archived file's are after the
   * trim (its only holder may fail, or a later block be lost). Healthy files at full replication keep HDFS's stream.
   */
  static boolean wanted(LocatedBlocks blocks) {
    if (blocks == null || blocks.getErasureCodingPolicy() != null || blocks.isUnderConstruction()
        || !blocks.isLastBlockComplete() || blocks.getFileEncryptionInfo() != null) {
      return false;
    }
    boolean single = true;
    for (LocatedBlock b : blocks.getLocatedBlocks()) {
      if (lost(b)) {
        return true;
      }
      single &= b.getLocations().length <= 1;
    }
    return single && blocks.getFileLength() > 0;
  }

  /** No replica the NameNode would hand out: none listed, or only corrupt ones. */
  static boolean lost(LocatedBlock b) {
    return b.getLocations().length == 0 || b.isCorrupt();
  }

  @Override
  public synchronized int read(byte[] b, int off, int len) throws IOException {
    java.util.Objects.checkFromIndexSize(off, len, b.length);
    checkOpen();
    if (len == 0) {
      return 0;
    }
    if (pos >= length) {
      return -1;
    }
    if (window == null || pos < windowStart || pos >= windowStart + window.limit()) {
      LocatedBlock block = blockAt(pos);
      if (ours(block)) {
        long from = pos - block.getStartOffset();
        int n = (int) Math.min(WINDOW, block.getBlockSize() - from);
        ByteBuffer rebuilt = rebuild(block, from, n);
        if (rebuilt != null) {
          window = rebuilt;
          windowStart = pos;
        }
      }
      if (window == null || pos < windowStart || pos >= windowStart + window.limit()) {
        int n = stockRead(block, b, off, len);
        if (n > 0) {
          pos += n;
        }
        return n;
      }
    }
    int at = (int) (pos - windowStart);
    int n = Math.min(len, window.limit() - at);
    window.get(at, b, off, n);
    pos += n;
    return n;
  }

  /** A sequential stock read that ends at its block's end (the next block may need our path). */
  private int stockRead(LocatedBlock block, byte[] b, int off, int len) throws IOException {
    int n = (int) Math.min(len, block.getStartOffset() + block.getBlockSize() - pos);
    try {
      if (stock.getPos() != pos) {
        stock.seek(pos);
      }
      return stock.read(b, off, n);
    } catch (IOException e) {
      LocatedBlock now = lostNow(block, e);
      ByteBuffer rebuilt = rebuild(now, pos - now.getStartOffset(), n);
      if (rebuilt == null) {
        throw e;
      }
      rebuilt.get(0, b, off, n);
      return n;
    }
  }

  @Override
  public int read(long position, byte[] b, int off, int len) throws IOException {
    java.util.Objects.checkFromIndexSize(off, len, b.length);
    checkOpen();
    if (len == 0) {
      return 0;
    }
    if (position < 0) {
      throw new EOFException(src + ": negative position " + position);
    }
    if (position >= length) {
      return -1;
    }
    LocatedBlock block = blockAt(position);
    long from = position - block.getStartOffset();
    int n = (int) Math.min(Math.min(len, MAX_PREAD), block.getBlockSize() - from);
    if (ours(block)) {
      ByteBuffer rebuilt = rebuild(block, from, n);
      if (rebuilt != null) {
        rebuilt.get(0, b, off, n);
        return n;
      }
    }
    try {
      return stock.read(position, b, off, (int) Math.min(len, block.getBlockSize() - from));
    } catch (IOException e) {
      LocatedBlock now = lostNow(block, e);
      ByteBuffer rebuilt = rebuild(now, from, n);
      if (rebuilt == null) {
        throw e;
      }
      rebuilt.get(0, b, off, n);
      return n;
    }
  }

  /** The block at a file offset, as the stock stream lists it, unless a failed read showed it lost since. */
  private LocatedBlock blockAt(long at) throws IOException {
    LocatedBlock b = WideEcClientAccess.blockAt(stock, at);
    LocatedBlock since = lostSinceOpen.get(b.getBlock().getBlockId());
    return since != null ? since : b;
  }

  private boolean ours(LocatedBlock block) {
    return lost(block) && !givenUp.contains(block.getBlock().getBlockId());
  }

  /**
   * After a stock failure: the block as the NameNode lists it now, taken as lost for this stream (its listed holders
   * just failed, even if the NameNode still lists them); the failure itself when the read was interrupted, the block
   * changed (another generation stamp or length: the file was appended or truncated), or our path gave up on it.
   */
  private LocatedBlock lostNow(LocatedBlock block, IOException stockFailure) throws IOException {
    if (stockFailure instanceof java.io.InterruptedIOException
        || givenUp.contains(block.getBlock().getBlockId())) {
      throw stockFailure;
    }
    LocatedBlocks now = client.getLocatedBlocks(src, block.getStartOffset(), 1);
    LocatedBlock fresh = now == null || now.locatedBlockCount() == 0 ? null : now.get(0);
    if (fresh == null || !fresh.getBlock().equals(block.getBlock())
        || fresh.getBlock().getNumBytes() != block.getBlock().getNumBytes()
        || fresh.getBlock().getGenerationStamp() != block.getBlock().getGenerationStamp()) {
      throw stockFailure;
    }
    LocatedBlock lost = lost(fresh) ? fresh : withoutHolders(fresh);
    lostSinceOpen.put(lost.getBlock().getBlockId(), lost);
    return lost;
  }

  /** The block with its token and offset but no holder: the ones listed failed this reader. */
  private static LocatedBlock withoutHolders(LocatedBlock b) {
    LocatedBlock out = new LocatedBlock(b.getBlock(), new DatanodeInfo[0], null, null, b.getStartOffset(), false, null);
    out.setBlockToken(b.getBlockToken());
    return out;
  }

  /** Bytes [from, from + n) of a lost block rebuilt by a DataNode, or null (logged) when that failed. */
  private ByteBuffer rebuild(LocatedBlock block, long from, int n) throws IOException {
    try {
      return reads.read(src, inode(), block, from, n, nearby(), counters);
    } catch (java.io.InterruptedIOException e) {
      throw e;
    } catch (IOException e) {
      givenUp.add(block.getBlock().getBlockId());
      reads.fellBack(src, block.getBlock().getBlockId(), e);
      return null;
    }
  }

  private long inode() throws IOException {
    if (inode == 0) {
      HdfsFileStatus st = client.getFileInfo(src);
      if (st == null) {
        throw new java.io.FileNotFoundException(src + " no longer exists");
      }
      inode = st.getFileId();
    }
    return inode;
  }

  /** DataNodes holding other blocks of this file, the nearest replica of each (the NameNode sorted them). */
  private List<DatanodeInfo> nearby() {
    List<DatanodeInfo> out = new ArrayList<>();
    LocatedBlocks all = WideEcClientAccess.locatedBlocks(stock);
    if (all != null) {
      for (LocatedBlock b : all.getLocatedBlocks()) {
        if (!lost(b)) {
          out.add(b.getLocations()[0]);
        }
      }
    }
    return out;
  }

  @Override
  protected void dropBuffers() {
    window = null;
    windowStart = -1;
  }
}
