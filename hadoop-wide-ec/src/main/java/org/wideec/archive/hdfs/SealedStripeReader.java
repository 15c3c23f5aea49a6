package org.wideec.archive.hdfs;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
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

  /** The CRC32C of each codeword's bytes, read whole. */
  public long[] codewordCrcs() throws IOException {
    long length = stripe.unitLength();
    long[] out = new long[stripe.members().size()];
    byte[] buf = new byte[(int) Math.min(CHUNK, Math.max(1, length))];
    for (int i = 0; i < out.length; i++) {
      CRC32C crc = new CRC32C();
      for (long pos = 0; pos < length; pos += buf.length) {
        int len = (int) Math.min(buf.length, length - pos);
        open(i).readFully(pos, buf, 0, len);
        crc.update(buf, 0, len);
      }
      out[i] = crc.getValue();
    }
    return out;
  }

  /** The CRC32C of every source piece decoded from the given k codewords. */
  public long[] pieceCrcs(int[] units) throws IOException {
    int pieces = stripe.sources().size();
    int[] symbols = new int[pieces];
    CRC32C[] crcs = new CRC32C[pieces];
    for (int t = 0; t < pieces; t++) {
      symbols[t] = t;
      crcs[t] = new CRC32C();
    }
    long length = stripe.unitLength();
    int chunk = (int) Math.min(CHUNK, Math.max(1, length));
    byte[][] outs = new byte[pieces][chunk];
    for (long pos = 0; pos < length; pos += chunk) {
      int len = (int) Math.min(chunk, length - pos);
      decode(units, pos, len, symbols, outs);
      for (int t = 0; t < pieces; t++) {
        long have = Math.max(0, Math.min(len, stripe.sources().get(t).length() - pos));
        crcs[t].update(outs[t], 0, (int) have);
      }
    }
    return Arrays.stream(crcs).mapToLong(CRC32C::getValue).toArray();
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
