package org.wideec.client;

import java.io.EOFException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import org.apache.hadoop.fs.BlockLocation;
import org.apache.hadoop.fs.FileSystem;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.CodewordSubsets;
import org.wideec.archive.SourcePiece;
import org.wideec.archive.StripeManifest;
import org.wideec.archive.SymbolDecoder;
import org.wideec.archive.hdfs.CodewordFiles;
import org.wideec.archive.hdfs.SealedFiles;
import org.wideec.archive.hdfs.SealedStripeReader;
import org.wideec.code.NotDecodableException;
import org.wideec.coder.Kernels;

/**
 * Reads a sealed file: each range is decoded from k live codewords of its stripe, read with stock reads of the
 * codeword files under the reader's own identity (the NameNode decides them on the sealed file's path, so a refusal
 * ends the read at once, saying so). Per stripe the live codewords are those whose block the NameNode lists with a replica; the k read are the first independent ones among them in unit order (the subset
 * the archiver verified when all are live). A codeword whose read fails is dropped and another subset chosen, until
 * the live ones no longer decode: then the read fails naming the file, stripe and codewords.
 */
final class SealedInputStream extends FixedLengthInputStream {
  private static final Logger LOG = LoggerFactory.getLogger(SealedInputStream.class);
  private static final int WINDOW = 1 << 20;
  private final FileSystem fs;
  private final StripeManifest index;
  private final SealedStripeReader[] readers;
  private final BitSet[] live;
  private final ReadPathCounters counters;
  private byte[] window; // allocated by the first read
  private long windowStart = -1;
  private int windowLength;

  SealedInputStream(FileSystem fs, String src, StripeManifest index, ReadPathCounters counters) {
    super(src, SealedFiles.length(index));
    this.fs = fs;
    this.index = index;
    this.readers = new SealedStripeReader[index.stripes().size()];
    this.live = new BitSet[readers.length];
    this.counters = counters;
  }

  @Override
  public synchronized int read(byte[] b, int off, int len) throws IOException {
    checkOpen();
    if (len == 0) {
      return 0;
    }
    if (pos >= length) {
      return -1;
    }
    int n = readAt(pos, b, off, len);
    pos += n;
    return n;
  }

  /**
   * Up to len bytes at position p, within one piece and one window. A window is decoded whole and kept: every byte
   * of a non-systematic stripe costs k codeword reads, so small sequential reads must not each pay them again.
   */
  private int readAt(long p, byte[] b, int off, int len) throws IOException {
    if (p < windowStart || p >= windowStart + windowLength) {
      fill(p);
    }
    int n = (int) Math.min(len, windowStart + windowLength - p);
    System.arraycopy(window, (int) (p - windowStart), b, off, n);
    counters.bytesFromSealedReads.addAndGet(n);
    return n;
  }

  /** Decodes the window that starts at p and runs to the end of its piece or {@link #WINDOW} bytes. */
  private void fill(long p) throws IOException {
    for (int s = 0; s < readers.length; s++) {
      ArchivedStripe stripe = index.stripes().get(s);
      for (int t = 0; t < stripe.sources().size(); t++) {
        SourcePiece piece = stripe.sources().get(t);
        if (p >= piece.offset() && p < piece.offset() + piece.length()) {
          long in = p - piece.offset();
          int n = (int) Math.min(WINDOW, piece.length() - in);
          windowStart = -1; // a failed decode leaves no stale window behind
          if (window == null) {
            window = new byte[WINDOW];
          }
          decode(s, t, in, window, 0, n);
          windowStart = p;
          windowLength = n;
          return;
        }
      }
    }
    throw new EOFException(src + ": position " + p + " is past the " + length + " bytes the index records");
  }

  private void decode(int s, int t, long in, byte[] b, int off, int n) throws IOException {
    SealedStripeReader r = reader(s);
    List<IOException> failed = new ArrayList<>();
    while (true) {
      int[] units;
      try {
        units = CodewordSubsets.basis(r.stripe().code(), live[s]);
      } catch (NotDecodableException e) {
        IOException none = new IOException(src + ": stripe " + r.stripe().stripeId() + " cannot be decoded: live"
            + " codewords " + live[s] + " of " + r.stripe().codeSpec() + " (" + e.getMessage() + ")");
        failed.forEach(none::addSuppressed);
        throw none;
      }
      try {
        r.readPiece(units, t, in, b, off, n);
        return;
      } catch (org.apache.hadoop.security.AccessControlException e) {
        throw SealedFiles.refused(src, e); // access changed since the open: no other codeword would be read either
      } catch (IOException e) {
        // Which codeword failed is not known from a positional read's error: drop the subset's first one that the
        // NameNode no longer lists, else the last one tried, and choose again.
        int bad = units[units.length - 1];
        for (int u : units) {
          if (!listed(r.stripe(), u)) {
            bad = u;
            break;
          }
        }
        LOG.debug("{}: stripe {} codeword {} failed ({}); choosing other codewords", src, r.stripe().stripeId(), bad,
            e.toString());
        live[s].clear(bad);
        r.drop(bad);
        failed.add(e);
      }
    }
  }

  private SealedStripeReader reader(int s) throws IOException {
    if (readers[s] == null) {
      ArchivedStripe stripe = index.stripes().get(s);
      readers[s] = new SealedStripeReader(fs, stripe, new SymbolDecoder(stripe.code(), Kernels.best()));
      BitSet l = new BitSet();
      for (int u = 0; u < stripe.members().size(); u++) {
        if (listed(stripe, u)) {
          l.set(u);
        }
      }
      live[s] = l;
    }
    return readers[s];
  }

  /** The codeword's file exists and the NameNode lists its block with a replica. */
  private boolean listed(ArchivedStripe stripe, int u) throws IOException {
    try {
      BlockLocation[] at = fs.getFileBlockLocations(CodewordFiles.file(stripe, u), 0, Math.max(1, stripe.unitLength()));
      return at.length == 1 && at[0].getHosts().length > 0;
    } catch (org.apache.hadoop.security.AccessControlException e) {
      throw SealedFiles.refused(src, e);
    } catch (IOException e) {
      LOG.debug("{}: stripe {} codeword {} not listed: {}", src, stripe.stripeId(), u, e.toString());
      return false;
    }
  }

  @Override
  public synchronized void close() {
    closed = true;
    for (SealedStripeReader r : readers) {
      if (r != null) {
        r.close();
      }
    }
  }
}
