package org.wideec.archive.hdfs;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32C;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.io.IOUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.SourcePiece;
import org.wideec.archive.SymbolDecoder;

/**
 * Reads one sealed stripe back through stock reads of its codeword files, with the identity of the
 * FileSystem given (a reader's own permissions; the archiver's when verifying): codewords' CRC32Cs, and ranges of
 * source pieces decoded from a chosen k-subset of codewords. Streams are opened once per codeword and kept.
 */
public final class SealedStripeReader implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(SealedStripeReader.class);
  private static final int CHUNK = 1 << 20;
  private final FileSystem fs;
  private final ArchivedStripe stripe;
  private final SymbolDecoder decoder;
  private final FSDataInputStream[] in;

  public SealedStripeReader(FileSystem fs, ArchivedStripe stripe, SymbolDecoder decoder) {
    this.fs = fs;
    this.stripe = stripe;
    this.decoder = decoder;
    this.in = new FSDataInputStream[stripe.members().size()];
  }

  public ArchivedStripe stripe() {
    return stripe;
  }

  private FSDataInputStream open(int unit) throws IOException {
    if (in[unit] == null) {
      in[unit] = fs.open(CodewordFiles.file(stripe, unit));
    }
    return in[unit];
  }

  /** What {@link #readBack} found: each codeword's CRC32C, and per k-subset the CRC32C of every piece it decodes to. */
  public record Readback(long[] codewordCrcs, List<long[]> pieceCrcs) {}

  /**
   * One pass over the stripe: every codeword read once, chunk by chunk, into its CRC32C, and each chunk decoded by
   * every given k-subset into the pieces' CRC32Cs. One pass rather than one per subset: the archiver verifies through
   * its own link, where each extra pass costs the whole stripe again (n codewords, not k).
   */
  public Readback readBack(List<int[]> subsets) throws IOException {
    int n = stripe.members().size();
    int pieces = stripe.sources().size();
    long length = stripe.unitLength();
    int chunk = (int) Math.min(CHUNK, Math.max(1, length));
    int[] symbols = new int[pieces];
    Arrays.setAll(symbols, t -> t);
    CRC32C[] words = new CRC32C[n];
    Arrays.setAll(words, i -> new CRC32C());
    CRC32C[][] decoded = new CRC32C[subsets.size()][pieces];
    for (CRC32C[] d : decoded) {
      Arrays.setAll(d, t -> new CRC32C());
    }
    byte[][] buf = new byte[n][chunk];
    byte[][] outs = new byte[pieces][chunk];
    for (long pos = 0; pos < length; pos += chunk) {
      int len = (int) Math.min(chunk, length - pos);
      for (int i = 0; i < n; i++) {
        open(i).readFully(pos, buf[i], 0, len);
        words[i].update(buf[i], 0, len);
      }
      for (int s = 0; s < subsets.size(); s++) {
        int[] units = subsets.get(s);
        ByteBuffer[] inputs = new ByteBuffer[units.length];
        for (int j = 0; j < units.length; j++) {
          inputs[j] = ByteBuffer.wrap(buf[units[j]], 0, len);
        }
        decodeInto(units, inputs, symbols, outs, len);
        for (int t = 0; t < pieces; t++) {
          long have = Math.max(0, Math.min(len, stripe.sources().get(t).length() - pos));
          decoded[s][t].update(outs[t], 0, (int) have);
        }
      }
    }
    List<long[]> pieceCrcs = new ArrayList<>();
    for (CRC32C[] d : decoded) {
      pieceCrcs.add(Arrays.stream(d).mapToLong(CRC32C::getValue).toArray());
    }
    return new Readback(Arrays.stream(words).mapToLong(CRC32C::getValue).toArray(), pieceCrcs);
  }

  /** Bytes [pos, pos + len) of piece {@code t}, decoded from the given k codewords into {@code dst}. */
  public void readPiece(int[] units, int t, long pos, byte[] dst, int off, int len) throws IOException {
    SourcePiece p = stripe.sources().get(t);
    if (pos < 0 || pos + len > p.length()) {
      throw new IOException("stripe " + stripe.stripeId() + " piece " + t + ": range [" + pos + ", +" + len
          + ") is outside its " + p.length() + " bytes");
    }
    byte[][] out = {new byte[len]};
    decode(units, pos, len, new int[] {t}, out);
    System.arraycopy(out[0], 0, dst, off, len);
  }

  private void decode(int[] units, long pos, int len, int[] symbols, byte[][] outs) throws IOException {
    ByteBuffer[] inputs = new ByteBuffer[units.length];
    for (int j = 0; j < units.length; j++) {
      byte[] b = new byte[len];
      open(units[j]).readFully(pos, b, 0, len);
      inputs[j] = ByteBuffer.wrap(b);
    }
    decodeInto(units, inputs, symbols, outs, len);
  }

  private void decodeInto(int[] units, ByteBuffer[] inputs, int[] symbols, byte[][] outs, int len) {
    ByteBuffer[] outputs = new ByteBuffer[symbols.length];
    for (int t = 0; t < symbols.length; t++) {
      outputs[t] = ByteBuffer.wrap(outs[t], 0, len);
    }
    decoder.decode(units, inputs, symbols, outputs, len);
  }

  /** Forgets a codeword's stream (after a read of it failed), so the next use opens it again. */
  public void drop(int unit) {
    IOUtils.cleanupWithLogger(LOG, in[unit]);
    in[unit] = null;
  }

  @Override
  public void close() {
    IOUtils.cleanupWithLogger(LOG, in);
    Arrays.fill(in, null);
  }
}
