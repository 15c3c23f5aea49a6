package org.wideec.archive.hdfs;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32C;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.io.IOUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.SourcePiece;
import org.wideec.archive.StripeMember;
import org.wideec.code.LinearCode;
import org.wideec.coder.ErasureCoder;

/**
 * The classic sealed encoder ({@code --encoder classic} with a non-systematic code): this process reads the k pieces
 * of a stripe through a stock client, in chunks, encodes all n codewords (ISA-L when loaded) and writes each to its
 * file. Memory stays at (k + n) x chunk; a short last stripe's missing pieces and the zero tails of short pieces are
 * zeros never read. CRC32C of every piece and every codeword is computed on the way.
 */
public final class ClientCodewordEncoder implements StripeEncoder {
  private static final Logger LOG = LoggerFactory.getLogger(ClientCodewordEncoder.class);
  private final DistributedFileSystem dfs;
  private final Path file;
  private final int chunkBytes;
  private final CodewordFiles files;

  /** @param file the archived file (its current path), whose pieces are read */
  public ClientCodewordEncoder(DistributedFileSystem dfs, Path file, int chunkBytes) {
    this.dfs = dfs;
    this.file = file;
    this.chunkBytes = chunkBytes;
    this.files = new CodewordFiles(dfs);
  }

  @Override
  public String name() {
    return "classic";
  }

  @Override
  public Encoded encode(ArchivedStripe s) throws IOException {
    LinearCode code = s.code();
    int n = code.n();
    long unit = s.unitLength();
    long blockSize = Math.max(dfs.getFileStatus(file).getBlockSize(), roundUp(unit));
    dfs.mkdirs(new Path(s.parityFilePath()));
    CRC32C[] pieceCrc = new CRC32C[s.sources().size()];
    CRC32C[] wordCrc = new CRC32C[n];
    FSDataOutputStream[] outs = new FSDataOutputStream[n];
    ErasureCoder coder = ErasureCoder.best(code);
    Moved moved;
    try (FSDataInputStream in = dfs.open(file)) {
      for (int i = 0; i < n; i++) {
        wordCrc[i] = new CRC32C();
        outs[i] = files.create(s, i, blockSize);
      }
      for (int t = 0; t < pieceCrc.length; t++) {
        pieceCrc[t] = new CRC32C();
      }
      moved = encodeChunks(s, coder, in, outs, pieceCrc, wordCrc);
      for (int i = 0; i < n; i++) {
        FSDataOutputStream o = outs[i];
        outs[i] = null;
        o.hsync(); // on disk before the stripe advances: once sealed, the codewords are all there is
        o.close();
      }
    } finally {
      IOUtils.cleanupWithLogger(LOG, outs);
    }
    List<String> offPlan = new ArrayList<>();
    List<StripeMember> members = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      members.add(files.written(s, i, wordCrc[i].getValue(), offPlan));
    }
    List<SourcePiece> pieces = new ArrayList<>();
    for (int t = 0; t < pieceCrc.length; t++) {
      pieces.add(s.sources().get(t).withCrc(pieceCrc[t].getValue()));
    }
    long dirInode = dfs.getClient().getFileInfo(s.parityFilePath()).getFileId();
    return new Encoded(members, pieces, dirInode, moved.read(), moved.written(), offPlan);
  }

  /** Bytes of pieces read and of codewords written by one stripe's encoding. */
  private record Moved(long read, long written) {}

  /** Reads the pieces chunk by chunk, encodes each chunk into all n codewords and writes them, CRCs on the way. */
  private Moved encodeChunks(ArchivedStripe s, ErasureCoder coder, FSDataInputStream in, FSDataOutputStream[] outs,
      CRC32C[] pieceCrc, CRC32C[] wordCrc) throws IOException {
    LinearCode code = s.code();
    int k = code.k();
    int n = code.n();
    long unit = s.unitLength();
    int chunk = (int) Math.min(chunkBytes, Math.max(1, unit));
    byte[][] data = new byte[k][chunk];
    byte[][] out = new byte[n][chunk];
    long read = 0;
    long written = 0;
    ByteBuffer[] inBufs = new ByteBuffer[k];
    ByteBuffer[] outBufs = new ByteBuffer[n];
    for (long pos = 0; pos < unit; pos += chunk) {
      int len = (int) Math.min(chunk, unit - pos);
      for (int t = 0; t < k; t++) {
        int have = 0;
        if (t < s.sources().size()) {
          SourcePiece p = s.sources().get(t);
          have = (int) Math.max(0, Math.min(len, p.length() - pos));
          in.readFully(p.offset() + pos, data[t], 0, have);
          pieceCrc[t].update(data[t], 0, have);
          read += have;
        }
        Arrays.fill(data[t], have, len, (byte) 0); // short and missing pieces count as zeros
        inBufs[t] = ByteBuffer.wrap(data[t], 0, len);
      }
      for (int i = 0; i < n; i++) {
        outBufs[i] = ByteBuffer.wrap(out[i], 0, len);
      }
      coder.encode(inBufs, outBufs);
      for (int i = 0; i < n; i++) {
        outs[i].write(out[i], 0, len);
        wordCrc[i].update(out[i], 0, len);
        written += len;
      }
    }
    return new Moved(read, written);
  }

  /** Block sizes are multiples of the checksum chunk (512). */
  private static long roundUp(long unit) {
    return Math.max(512, (unit + 511) / 512 * 512);
  }
}
