package org.wideec.client;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.hadoop.fs.ByteBufferPositionedReadable;
import org.apache.hadoop.fs.ByteBufferReadable;
import org.apache.hadoop.fs.StreamCapabilities;
import org.apache.hadoop.hdfs.DFSInputStream;
import org.apache.hadoop.hdfs.WideEcClientAccess;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedBlocks;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A striped file of our codec, read group by group: groups whose data units are all listed go through
 * HDFS's own DFSStripedInputStream untouched; a group that has lost a data unit is read by
 * {@link DegradedGroupReader}, which decodes every pattern the code can (HDFS's reader takes the
 * lowest-index parities and fails on the rest, DESIGN.md §2). The NameNode's block list is the one the
 * stock stream holds, so routing costs no extra NameNode call. A stock read that fails on a group listed
 * as whole (a DataNode died since the list was fetched) is retried once by our path with fresh locations,
 * and that group stays on our path for this stream. The DataNodes HDFS's reader could not reach are remembered by the
 * FileSystem ({@link StripedFile#reachable}): a group with a data unit on one of them is read by our path around it,
 * in every stream, until the memory lapses. HDFS's reader would decode that unit from k units of the group, an LRC's
 * local group needs far fewer.
 *
 * <p>Sequential reads of a degraded group decode one stripe at a time and serve from it, as the stock
 * reader does; positional reads decode only the range asked for (at most {@link #MAX_PREAD_BYTES}).
 */
final class CodeAwareInputStream extends WrappingInputStream
    implements ByteBufferReadable, ByteBufferPositionedReadable, StreamCapabilities {
  private static final Logger LOG = LoggerFactory.getLogger(CodeAwareInputStream.class);
  /** Largest range one positional read decodes, bounding its buffers (it may return fewer bytes). */
  static final int MAX_PREAD_BYTES = 8 << 20;

  private final StripedFile file;
  private final DegradedGroupReader degraded;
  /** Groups, by start offset, that a failed stock read moved to our path (with the refreshed listing). */
  private final ConcurrentHashMap<Long, LocatedStripedBlock> movedToDegraded = new ConcurrentHashMap<>();
  /** The last decoded stripe of a degraded group (file offset stripeStart), for sequential reads. */
  private ByteBuffer stripe;
  private long stripeStart = -1;

  CodeAwareInputStream(DFSInputStream stock, StripedFile file) {
    super(stock, file.src());
    this.file = file;
    this.degraded = new DegradedGroupReader(file, this::refresh);
  }

  /** True when the stream's block list is one our path can serve: complete, not encrypted. */
  static boolean servable(LocatedBlocks blocks) {
    return blocks != null && !blocks.isUnderConstruction() && blocks.isLastBlockComplete()
        && blocks.getFileEncryptionInfo() == null;
  }

  @Override
  public synchronized int read(byte[] b, int off, int len) throws IOException {
    java.util.Objects.checkFromIndexSize(off, len, b.length);
    return read(ByteBuffer.wrap(b, off, len));
  }

  @Override
  public synchronized int read(ByteBuffer dst) throws IOException {
    checkOpen();
    if (!dst.hasRemaining()) {
      return 0;
    }
    if (pos >= length) {
      return -1;
    }
    int n = stripe != null && pos >= stripeStart && pos < stripeStart + stripe.limit() ? fromStripe(dst) : readAt(dst);
    pos += n;
    return n;
  }

  /** One sequential read at pos: stock for a whole group, a decoded stripe for a degraded one. */
  private int readAt(ByteBuffer dst) throws IOException {
    LocatedStripedBlock group = group(pos);
    if (isDegraded(group)) {
      decodeStripeAround(group, pos);
      return fromStripe(dst);
    }
    ByteBuffer window = limitToGroup(dst, pos, group);
    try {
      if (stock.getPos() != pos) {
        stock.seek(pos);
      }
      return advance(dst, window, stock.read(window));
    } catch (IOException e) {
      LocatedStripedBlock moved = moveToDegraded(group, e);
      try {
        decodeStripeAround(moved, pos);
      } catch (IOException ours) {
        ours.addSuppressed(e);
        throw ours;
      }
      return fromStripe(dst);
    } finally {
      noteUnreachable();
    }
  }

  private void decodeStripeAround(LocatedStripedBlock group, long at) throws IOException {
    long[] s = file.layout(group).stripeAround(at - group.getStartOffset());
    ByteBuffer buf = ByteBuffer.allocate((int) (s[1] - s[0]));
    degraded.read(group, s[0], s[1], buf);
    buf.flip();
    stripe = buf;
    stripeStart = group.getStartOffset() + s[0];
  }

  private int fromStripe(ByteBuffer dst) {
    int at = (int) (pos - stripeStart);
    int n = Math.min(dst.remaining(), stripe.limit() - at);
    dst.put(stripe.duplicate().position(at).limit(at + n));
    return n;
  }

  @Override
  public int read(long position, byte[] b, int off, int len) throws IOException {
    java.util.Objects.checkFromIndexSize(off, len, b.length);
    return read(position, ByteBuffer.wrap(b, off, len));
  }

  @Override
  public int read(long position, ByteBuffer dst) throws IOException {
    checkOpen();
    if (!dst.hasRemaining()) {
      return 0;
    }
    if (position < 0) {
      throw new EOFException(file.src() + ": negative position " + position);
    }
    if (position >= length) {
      return -1;
    }
    LocatedStripedBlock group = group(position);
    if (isDegraded(group)) {
      return preadDegraded(group, position, dst);
    }
    ByteBuffer window = limitToGroup(dst, position, group);
    try {
      return advance(dst, window, stock.read(position, window));
    } catch (IOException e) {
      LocatedStripedBlock moved = moveToDegraded(group, e);
      try {
        return preadDegraded(moved, position, dst);
      } catch (IOException ours) {
        ours.addSuppressed(e);
        throw ours;
      }
    } finally {
      noteUnreachable();
    }
  }

  @Override
  public void readFully(long position, ByteBuffer dst) throws IOException {
    while (dst.hasRemaining()) {
      int n = read(position, dst);
      if (n < 0) {
        throw new EOFException(file.src() + ": end of file at " + position + " with " + dst.remaining() + " bytes to read");
      }
      position += n;
    }
  }

  private int preadDegraded(LocatedStripedBlock group, long position, ByteBuffer dst) throws IOException {
    long from = position - group.getStartOffset();
    long to = Math.min(group.getBlockSize(), from + Math.min(dst.remaining(), MAX_PREAD_BYTES));
    int n = (int) (to - from);
    ByteBuffer out = dst.duplicate().limit(dst.position() + n);
    degraded.read(group, from, to, out);
    dst.position(dst.position() + n);
    return n;
  }

  /** A view of dst no longer than what is left of the group from file offset at. */
  private static ByteBuffer limitToGroup(ByteBuffer dst, long at, LocatedStripedBlock group) {
    long left = group.getStartOffset() + group.getBlockSize() - at;
    return dst.duplicate().limit(dst.position() + (int) Math.min(dst.remaining(), left));
  }

  private int advance(ByteBuffer dst, ByteBuffer window, int n) throws EOFException {
    if (n < 0) {
      throw new EOFException(file.src() + ": HDFS's stream ended before the block group did (file length " + length + ")");
    }
    dst.position(window.position());
    return n;
  }

  /**
   * The group holding file offset at, as the stock stream lists it unless a failure moved it, less the replicas on
   * DataNodes the FileSystem could not reach lately.
   */
  private LocatedStripedBlock group(long at) throws IOException {
    LocatedBlock b = WideEcClientAccess.blockAt(stock, at);
    if (!(b instanceof LocatedStripedBlock g)) {
      throw new IOException(file.src() + ": block at offset " + at + " is not striped: " + b);
    }
    LocatedStripedBlock moved = movedToDegraded.get(g.getStartOffset());
    LocatedStripedBlock listed = moved != null ? moved : g;
    LocatedStripedBlock reachable = file.reachable(listed);
    if (reachable != listed && !file.lostData(listed) && file.lostData(reachable)) {
      file.counters().readsAroundUnreachable.incrementAndGet();
    }
    return reachable;
  }

  /**
   * Remembers, for every stream of the FileSystem, the DataNodes HDFS's reader of this stream could not reach (it
   * reads without them for its own life only).
   */
  private void noteUnreachable() {
    for (DatanodeInfo d : WideEcClientAccess.localDeadNodes(stock)) {
      // Once per node and lapse: the stream keeps it for its life, and this runs after every read.
      if (file.unreachable().why(d.getXferAddr()) == null
          && file.unreachable().avoid(d.getXferAddr(), "a read of " + file.src() + " could not reach it")) {
        LOG.info("{}: DataNode {} could not be reached; reads of this FileSystem go around it for {} ms ({})",
            file.src(), d.getXferAddr(), file.unreachable().avoidMs(), org.wideec.repair.UnusableHelpers.AVOID_KEY);
      }
    }
  }

  private boolean isDegraded(LocatedStripedBlock group) {
    return movedToDegraded.containsKey(group.getStartOffset()) || file.lostData(group);
  }

  /** After a stock failure on a group listed as whole: fresh locations, and our path from now on. */
  private LocatedStripedBlock moveToDegraded(LocatedStripedBlock group, IOException stockFailure) throws IOException {
    checkOpen();
    LOG.warn("{}: stock read of block group {} failed ({}); reading it through {}", file.src(), group.getBlock(),
        stockFailure.getMessage(), file.code().spec());
    file.counters().stockFallbacks.incrementAndGet();
    try {
      LocatedStripedBlock fresh = refresh(group);
      movedToDegraded.put(fresh.getStartOffset(), fresh);
      return fresh;
    } catch (IOException e) {
      e.addSuppressed(stockFailure);
      throw e;
    }
  }

  private LocatedStripedBlock refresh(LocatedStripedBlock group) throws IOException {
    LocatedBlocks now = file.client().getLocatedBlocks(file.src(), group.getStartOffset(), 1);
    if (now == null || now.locatedBlockCount() == 0 || !(now.get(0) instanceof LocatedStripedBlock fresh)
        || !fresh.getBlock().equals(group.getBlock())) {
      throw new IOException(file.src() + ": block group " + group.getBlock() + " at offset " + group.getStartOffset()
          + " is no longer listed by the NameNode");
    }
    return fresh;
  }

  @Override
  protected void dropBuffers() {
    stripe = null;
    stripeStart = -1;
  }

  @Override
  public boolean hasCapability(String capability) {
    return switch (capability.toLowerCase(java.util.Locale.ROOT)) {
      case "in:readbytebuffer", "in:preadbytebuffer", "in:unbuffer" -> true;
      default -> false;
    };
  }
}
