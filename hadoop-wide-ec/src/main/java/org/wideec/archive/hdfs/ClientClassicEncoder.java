package org.wideec.archive.hdfs;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32C;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.io.IOUtils;
import org.apache.hadoop.net.NetUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.StripeMember;
import org.wideec.code.LinearCode;
import org.wideec.coder.ErasureCoder;

/**
 * The baseline encoder ({@code classic}), run by the archiver process itself: it pulls the k data blocks
 * of a stripe through the stock HDFS client (positional reads, block by block), encodes them with our coder and
 * writes every parity unit. Every byte of data crosses to this one process, which is what the chain encoder
 * (ECWide §4.2) avoids; this is the honest "pull k blocks and encode at one node" that it is measured against.
 *
 * <p>It streams in chunks, so memory stays at (k + parities) x chunk whatever the block size: virtual padding units
 * and the zero tails of short blocks are zeros that are never read (DESIGN.md §3.2: the short last stripe is padded
 * virtually). The CRC32C of every data block and every parity block is computed on the way. Each parity unit is a
 * single-block file of replication 1 written with the unit's planned node as favored node; favored nodes are hints
 * (the research note, §4), so after closing it the encoder looks where HDFS put the block and reports a miss. It
 * does not move a misplaced block: the manifest keeps the planned node as the target that the placement fixer of a
 * later slice (replaceBlock with a delete hint, as the Balancer does) moves it to.
 */
public final class ClientClassicEncoder implements StripeEncoder {
  /** Bytes per unit coded at a time (a multiple of 512). */
  public static final String CHUNK_KEY = "wide-ec.archive.classic.chunk.bytes";
  public static final int CHUNK_DEFAULT = 1 << 20;
  private static final Logger LOG = LoggerFactory.getLogger(ClientClassicEncoder.class);

  private final DistributedFileSystem dfs;
  private final int chunkBytes;

  public ClientClassicEncoder(DistributedFileSystem dfs, int chunkBytes) {
    if (chunkBytes < 512 || chunkBytes % 512 != 0) {
      throw new IllegalArgumentException(CHUNK_KEY + " must be a positive multiple of 512, got " + chunkBytes);
    }
    this.dfs = dfs;
    this.chunkBytes = chunkBytes;
  }

  public static ClientClassicEncoder from(DistributedFileSystem dfs) {
    long chunk = dfs.getConf().getLongBytes(CHUNK_KEY, CHUNK_DEFAULT);
    if (chunk > Integer.MAX_VALUE / 2) {
      throw new IllegalArgumentException(CHUNK_KEY + " must be below 1 GiB, got " + chunk);
    }
    return new ClientClassicEncoder(dfs, (int) chunk);
  }

  @Override
  public String name() {
    return "classic";
  }

  @Override
  public Encoded encode(ArchivedStripe stripe) throws IOException {
    LinearCode code = stripe.code();
    List<StripeData.Unit> data = StripeData.locate(dfs, stripe);
    long blockSize = 0;
    for (StripeData.Unit d : data) {
      blockSize = Math.max(blockSize, d.fileBlockSize()); // each file's block size is at least the unit length
    }
    Path dir = new Path(stripe.parityFilePath());
    dfs.mkdirs(dir);
    CRC32C[] crcs = new CRC32C[code.n()];
    Map<Long, FSDataInputStream> inputs = new HashMap<>();
    FSDataOutputStream[] outputs = new FSDataOutputStream[code.n() - code.k()];
    Moved moved;
    try {
      for (StripeData.Unit d : data) {
        crcs[d.unit()] = new CRC32C();
        if (!inputs.containsKey(d.member().inodeId())) {
          inputs.put(d.member().inodeId(), dfs.open(d.file()));
        }
      }
      createParityFiles(stripe, blockSize, crcs, outputs);
      moved = encodeChunks(stripe, data, inputs, outputs, crcs);
      closeSynced(outputs);
    } finally {
      IOUtils.cleanupWithLogger(LOG, outputs);
      IOUtils.cleanupWithLogger(LOG, inputs.values().toArray(new FSDataInputStream[0]));
    }
    List<StripeMember> members = new ArrayList<>(stripe.members());
    for (StripeData.Unit d : data) {
      members.set(d.unit(), d.member().withCrc(crcs[d.unit()].getValue()));
    }
    List<String> offPlan = recordParityUnits(stripe, crcs, members);
    return Encoded.systematic(members, fileInode(dir), moved.read(), moved.written(), offPlan);
  }

  /** Bytes of data read and of parity written by one stripe's encoding. */
  private record Moved(long read, long written) {}

  /** One single-block file of replication 1 per stored parity unit, its planned node the favored node. */
  private void createParityFiles(ArchivedStripe stripe, long blockSize, CRC32C[] crcs, FSDataOutputStream[] outputs)
      throws IOException {
    LinearCode code = stripe.code();
    for (int p = 0; p < outputs.length; p++) {
      StripeMember m = stripe.member(code.k() + p);
      if (!m.padding()) {
        crcs[code.k() + p] = new CRC32C();
        outputs[p] = dfs.create(ArchiveLayout.parityUnit(stripe.parityFilePath(), code.k() + p),
            new FsPermission((short) 0600), false, 64 * 1024, (short) 1, blockSize, null,
            new InetSocketAddress[] {NetUtils.createSocketAddr(m.plannedNode())});
      }
    }
  }

  /** Reads the data units chunk by chunk, encodes each chunk and writes its parity, CRCs updated on the way. */
  private Moved encodeChunks(ArchivedStripe stripe, List<StripeData.Unit> data, Map<Long, FSDataInputStream> inputs,
      FSDataOutputStream[] outputs, CRC32C[] crcs) throws IOException {
    LinearCode code = stripe.code();
    long unitLength = stripe.unitLength();
    int chunk = (int) Math.min(chunkBytes, Math.max(1, unitLength));
    int parities = outputs.length;
    byte[][] dataBuf = new byte[code.k()][];
    byte[] zeros = new byte[chunk];
    for (int u = 0; u < code.k(); u++) {
      dataBuf[u] = stripe.member(u).padding() ? zeros : new byte[chunk];
    }
    byte[][] parityBuf = new byte[parities][chunk];
    long read = 0;
    long written = 0;
    ErasureCoder coder = ErasureCoder.best(code);
    ByteBuffer[] in = new ByteBuffer[code.k()];
    ByteBuffer[] out = new ByteBuffer[parities];
    for (long pos = 0; pos < unitLength; pos += chunk) {
      int len = (int) Math.min(chunk, unitLength - pos);
      for (StripeData.Unit d : data) {
        int have = (int) Math.max(0, Math.min(len, d.member().length() - pos));
        byte[] b = dataBuf[d.unit()];
        inputs.get(d.member().inodeId()).readFully(d.offset() + pos, b, 0, have);
        Arrays.fill(b, have, len, (byte) 0); // a short block counts as zero-padded to the unit length
        crcs[d.unit()].update(b, 0, have);
        read += have;
      }
      for (int u = 0; u < code.k(); u++) {
        in[u] = ByteBuffer.wrap(dataBuf[u], 0, len);
      }
      for (int p = 0; p < parities; p++) {
        out[p] = ByteBuffer.wrap(parityBuf[p], 0, len);
      }
      coder.encode(in, out);
      for (int p = 0; p < parities; p++) {
        if (outputs[p] != null) {
          outputs[p].write(parityBuf[p], 0, len);
          crcs[code.k() + p].update(parityBuf[p], 0, len);
          written += len;
        }
      }
    }
    return new Moved(read, written);
  }

  /** Syncs and closes every parity file; a closed one is cleared from {@code outputs}. */
  private static void closeSynced(FSDataOutputStream[] outputs) throws IOException {
    for (int p = 0; p < outputs.length; p++) {
      if (outputs[p] != null) {
        OutputStream o = outputs[p];
        outputs[p] = null;
        if (o instanceof org.apache.hadoop.fs.Syncable sync) {
          // On disk before the stripe can advance: once trimmed, this single replica is all that protects data.
          sync.hsync();
        }
        o.close();
      }
    }
  }

  /**
   * Records where each parity unit was written (inode, block, CRC) in {@code members}; returns the units HDFS placed
   * off their planned node, each said in a line, left for the placement fixer.
   */
  private List<String> recordParityUnits(ArchivedStripe stripe, CRC32C[] crcs, List<StripeMember> members)
      throws IOException {
    LinearCode code = stripe.code();
    List<String> offPlan = new ArrayList<>();
    for (int u = code.k(); u < code.n(); u++) {
      StripeMember m = stripe.member(u);
      if (m.padding()) {
        continue;
      }
      Path file = ArchiveLayout.parityUnit(stripe.parityFilePath(), u);
      LocatedBlock block = singleBlock(stripe, u, file, stripe.unitLength());
      String actual = block.getLocations().length == 0 ? "nowhere" : block.getLocations()[0].getXferAddr();
      if (!actual.equals(m.plannedNode())) {
        String miss = "stripe " + stripe.stripeId() + " unit " + u + " (" + file + "): HDFS placed the parity block on "
            + actual + ", the plan says " + m.plannedNode() + " (" + m.plannedRack() + ")";
        LOG.warn("{}; left for the placement fixer", miss);
        offPlan.add(miss);
      }
      members.set(u, m.written(fileInode(file), block.getBlock().getBlockId(), block.getBlock().getGenerationStamp(),
          crcs[u].getValue()));
    }
    return offPlan;
  }

  /** The one block of a parity file, which must hold exactly the unit length. */
  private LocatedBlock singleBlock(ArchivedStripe stripe, int unit, Path file, long unitLength) throws IOException {
    return ParityFiles.closedSingleBlock(dfs, stripe, unit, file, unitLength);
  }

  private long fileInode(Path p) throws IOException {
    return ParityFiles.inodeOf(dfs, p);
  }
}
