package org.wideec.archive.hdfs;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;
import java.util.zip.CRC32C;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.HdfsFileStatus;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.io.IOUtils;
import org.apache.hadoop.net.NetUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.StripeMember;
import org.wideec.archive.StripeUpdate;
import org.wideec.code.LinearCode;
import org.wideec.coder.ErasureCoder;

/**
 * Writes the new parity of one stripe update in the archiver's process: for each rewritten parity unit, its old block
 * read through HDFS plus the parity delta of the removed data units (their old bytes: a removed unit's delta is
 * old XOR 0, seed "Optimal Rack-Coordinated Updates" §II-C Eq. 3, by {@link ErasureCoder#update}, ISA-L's
 * {@code ec_encode_data_update} when loaded), into a new single-block file of replication 1 with the planned node
 * favored ({@link ArchiveLayout#parityUnit(String, int, long)}): a finalized replica is never rewritten. Chunk by
 * chunk, so memory stays at a few chunks per unit whatever the block size.
 */
final class ParityDeltaWriter implements ParityDeltaExecutor {
  private static final Logger LOG = LoggerFactory.getLogger(ParityDeltaWriter.class);
  private final DistributedFileSystem dfs;
  private final int chunkBytes;

  /** Bytes the run read and wrote. */
  private long read;
  private long written;

  ParityDeltaWriter(DistributedFileSystem dfs, int chunkBytes) {
    this.dfs = dfs;
    this.chunkBytes = chunkBytes;
  }

  @Override
  public String name() {
    return "client";
  }

  @Override
  public long bytesRead() {
    return read;
  }

  @Override
  public long bytesWritten() {
    return written;
  }

  @Override
  public Map<Integer, StripeMember> write(StripeUpdate up, long version, java.util.Set<Long> gone)
      throws IOException {
    ArchivedStripe s = up.before();
    int[] changed = up.changedUnits();
    int[] rewritten = up.rewrittenParities();
    long length = up.nextUnitLength();
    Map<Integer, StripeData.Unit> data = new HashMap<>();
    long blockSize = 0;
    for (StripeData.Unit d : StripeData.locate(dfs, s, gone)) { // also checks every data block is the one archived
      data.put(d.unit(), d);
      blockSize = Math.max(blockSize, d.fileBlockSize());
    }
    Map<Integer, Source> sources = new HashMap<>();
    Map<Integer, Source> survivors = new HashMap<>();
    FSDataOutputStream[] outputs = new FSDataOutputStream[rewritten.length];
    CRC32C[] crcs = new CRC32C[rewritten.length];
    try {
      if (java.util.Arrays.stream(changed).anyMatch(u -> !data.containsKey(u) && !s.member(u).padding())) {
        openSurvivors(s, data, survivors); // a member deleted behind our back: its old bytes are decoded
      }
      for (int u : changed) {
        StripeData.Unit d = data.get(u);
        if (d != null) {
          sources.put(u, new Source(dfs.open(d.file()), d.offset(), d.member().length()));
        } else if (s.member(u).padding()) {
          sources.put(u, Source.ZEROS); // a filled slot: its old content is the virtual unit's zeros
        }
        StripeMember next = up.after(u);
        if (!next.padding()) {
          LocatedBlock b = replacementBlock(dfs, s, u, next);
          sources.put(-1 - u, new Source(dfs.open(ArchiveLayout.inodePath(next.inodeId())), b.getStartOffset(),
              next.length()));
        }
      }
      for (int i = 0; i < rewritten.length; i++) {
        int u = rewritten[i];
        sources.put(u, s.member(u).padding() ? Source.ZEROS // a virtual parity a fill brings on was zero
            : new Source(dfs.open(ArchiveLayout.inodePath(s.member(u).inodeId())), 0, s.unitLength()));
        Path file = ArchiveLayout.parityUnit(s.parityFilePath(), u, version);
        outputs[i] = dfs.create(file, new FsPermission((short) 0600), false, 64 * 1024, (short) 1,
            Math.max(blockSize, length), null,
            new InetSocketAddress[] {NetUtils.createSocketAddr(up.after(u).plannedNode())});
        crcs[i] = new CRC32C();
      }
      Map<Integer, CRC32C> dataCrcs = apply(s, up, sources, survivors, outputs, crcs, length);
      for (int i = 0; i < outputs.length; i++) {
        FSDataOutputStream o = outputs[i];
        outputs[i] = null;
        o.hsync(); // on disk before the commit makes it the stripe's only parity for this unit
        o.close();
      }
      return members(up, version, crcs, dataCrcs);
    } finally {
      IOUtils.cleanupWithLogger(LOG, outputs);
      for (Source src : sources.values()) {
        IOUtils.cleanupWithLogger(LOG, src.in());
      }
      for (Source src : survivors.values()) {
        IOUtils.cleanupWithLogger(LOG, src.in());
      }
    }
  }

  /** Where a unit's bytes are read: a stream, the block's offset in the file, and the bytes it holds. */
  private record Source(FSDataInputStream in, long offset, long length) {
    /** A virtual unit: no stream, every byte zero. */
    static final Source ZEROS = new Source(null, 0, 0);

    /** Bytes [pos, pos + len) of the unit into buf, zero past its length. */
    void read(long pos, byte[] buf, int len) throws IOException {
      int have = (int) Math.max(0, Math.min(len, length - pos));
      if (have > 0) {
        in.readFully(offset + pos, buf, 0, have);
      }
      java.util.Arrays.fill(buf, have, len, (byte) 0); // a short unit counts as zero-padded
    }
  }

  /** The members the writes produced: parity files located, replacements with their CRCs. */
  private Map<Integer, StripeMember> members(StripeUpdate up, long version, CRC32C[] crcs,
      Map<Integer, CRC32C> dataCrcs) throws IOException {
    ArchivedStripe s = up.before();
    int[] rewritten = up.rewrittenParities();
    long length = up.nextUnitLength();
    Map<Integer, StripeMember> out = new HashMap<>();
    dataCrcs.forEach((u, crc) -> out.put(u, up.after(u).withCrc(crc.getValue())));
    for (int i = 0; i < rewritten.length; i++) {
      int u = rewritten[i];
      Path file = ArchiveLayout.parityUnit(s.parityFilePath(), u, version);
      LocatedBlock b = ParityFiles.closedSingleBlock(dfs, s, u, file, length);
      StripeMember old = up.after(u); // the stored parity's planned member, or the one a fill brings on
      out.put(u, new StripeMember(old.role(), false, ParityFiles.inodeOf(dfs, file), b.getBlock().getBlockId(),
          b.getBlock().getGenerationStamp(), length, crcs[i].getValue(), old.plannedNode(), old.plannedRack()));
      String at = b.getLocations().length == 0 ? "nowhere" : b.getLocations()[0].getXferAddr();
      if (!at.equals(old.plannedNode())) {
        LOG.warn("stripe {} unit {} ({}): HDFS placed the updated parity on {}, the plan says {}; left for the"
            + " placement keeper", s.stripeId(), u, file, at, old.plannedNode());
      }
    }
    return out;
  }

  /**
   * The chunk loop: each changed unit's delta (old XOR new; a removed unit's new bytes are zeros) applied to the old
   * parity, the new parity written; returns the CRC32C of each replacement's bytes, read on the way.
   */
  private Map<Integer, CRC32C> apply(ArchivedStripe s, StripeUpdate up, Map<Integer, Source> sources,
      Map<Integer, Source> survivors, FSDataOutputStream[] outputs, CRC32C[] crcs, long length) throws IOException {
    LinearCode code = s.code();
    int[] changed = up.changedUnits();
    int[] rewritten = up.rewrittenParities();
    int chunk = (int) Math.min(chunkBytes, Math.max(1, length));
    ErasureCoder coder = ErasureCoder.best(code);
    ByteBuffer[] deltas = new ByteBuffer[changed.length];
    for (int h = 0; h < deltas.length; h++) {
      deltas[h] = ByteBuffer.allocateDirect(chunk);
    }
    ByteBuffer[] parities = new ByteBuffer[code.n() - code.k()];
    for (int p = 0; p < parities.length; p++) {
      parities[p] = ByteBuffer.allocateDirect(chunk); // the rows not rewritten are computed and dropped
    }
    Map<Integer, CRC32C> dataCrcs = new HashMap<>();
    byte[] buf = new byte[chunk];
    byte[] next = new byte[chunk];
    int[] lost = java.util.Arrays.stream(changed).filter(u -> !sources.containsKey(u)).toArray();
    for (long pos = 0; pos < length; pos += chunk) {
      int len = (int) Math.min(chunk, length - pos);
      Map<Integer, byte[]> decoded = lost.length == 0 ? Map.of() : decodeLost(s, lost, survivors, pos, len, coder);
      for (int h = 0; h < changed.length; h++) {
        if (sources.containsKey(changed[h])) {
          sources.get(changed[h]).read(pos, buf, len);
          read += len;
        } else {
          System.arraycopy(decoded.get(changed[h]), 0, buf, 0, len);
        }
        Source replacement = sources.get(-1 - changed[h]);
        if (replacement != null) {
          replacement.read(pos, next, len);
          int have = (int) Math.max(0, Math.min(len, replacement.length() - pos));
          dataCrcs.computeIfAbsent(changed[h], u -> new CRC32C()).update(next, 0, have);
          for (int b = 0; b < len; b++) {
            buf[b] ^= next[b];
          }
          read += len;
        }
        deltas[h].clear().put(buf, 0, len).flip();
      }
      for (ByteBuffer p : parities) {
        p.clear().limit(len);
      }
      for (int u : rewritten) {
        sources.get(u).read(pos, buf, len); // a parity growing with a longer replacement was zero past its length
        parities[u - code.k()].put(buf, 0, len).flip();
        read += len;
      }
      coder.update(changed, deltas, parities);
      for (int i = 0; i < rewritten.length; i++) {
        parities[rewritten[i] - code.k()].get(0, buf, 0, len);
        outputs[i].write(buf, 0, len);
        crcs[i].update(buf, 0, len);
        written += len;
      }
    }
    return dataCrcs;
  }

  /** Every stored unit of the stripe but those deleted behind our back: what their old bytes are decoded from. */
  private void openSurvivors(ArchivedStripe s, Map<Integer, StripeData.Unit> data, Map<Integer, Source> survivors)
      throws IOException {
    for (int u = 0; u < s.code().n(); u++) {
      StripeMember m = s.member(u);
      if (m.padding() || (u < s.code().k() && !data.containsKey(u))) {
        continue;
      }
      StripeData.Unit d = data.get(u);
      survivors.put(u, d != null ? new Source(dfs.open(d.file()), d.offset(), m.length())
          : new Source(dfs.open(ArchiveLayout.inodePath(m.inodeId())), 0, s.unitLength()));
    }
  }

  /**
   * Bytes [pos, pos + len) of data units whose files a stock client deleted, decoded from the surviving units (they
   * still hold the parity those bytes are part of): the delta that removes them from the parity.
   */
  private Map<Integer, byte[]> decodeLost(ArchivedStripe s, int[] lost, Map<Integer, Source> survivors, long pos,
      int len, ErasureCoder coder) throws IOException {
    ByteBuffer[] units = new ByteBuffer[s.code().n()];
    byte[] buf = new byte[len];
    for (int u = 0; u < units.length; u++) {
      if (s.member(u).padding() && u < s.code().k()) {
        units[u] = ByteBuffer.allocateDirect(len); // virtual: zeros
      } else if (survivors.containsKey(u)) {
        survivors.get(u).read(pos, buf, len);
        units[u] = ByteBuffer.allocateDirect(len).put(buf, 0, len).flip();
        read += len;
      }
    }
    ByteBuffer[] outs = new ByteBuffer[lost.length];
    for (int i = 0; i < outs.length; i++) {
      outs[i] = ByteBuffer.allocateDirect(len);
    }
    coder.reconstruct(units, lost, outs);
    Map<Integer, byte[]> out = new HashMap<>();
    for (int i = 0; i < lost.length; i++) {
      byte[] b = new byte[len];
      outs[i].get(0, b, 0, len);
      out.put(lost[i], b);
    }
    return out;
  }

  /** The replacement block of unit {@code u} as the NameNode lists it, checked to be what the plan says. */
  static LocatedBlock replacementBlock(DistributedFileSystem dfs, ArchivedStripe s, int u, StripeMember m)
      throws IOException {
    String file = ArchiveLayout.inodePath(m.inodeId()).toString();
    HdfsFileStatus st = dfs.getClient().getFileInfo(file);
    if (st != null) {
      for (LocatedBlock lb : dfs.getClient().getLocatedBlocks(file, 0, st.getLen()).getLocatedBlocks()) {
        if (lb.getBlock().getBlockId() == m.blockId() && lb.getBlock().getGenerationStamp() == m.generationStamp()
            && lb.getBlockSize() == m.length()) {
          return lb;
        }
      }
    }
    throw new StaleStripeException(s.stripeId(), "stripe " + s.stripeId() + " unit " + u + ": the replacement block "
        + m.blockId() + " of inode " + m.inodeId() + " is gone or changed since the update was planned");
  }

}
