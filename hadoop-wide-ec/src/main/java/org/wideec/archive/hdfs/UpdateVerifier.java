package org.wideec.archive.hdfs;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.io.IOUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.StripeUpdate;
import org.wideec.code.LinearCode;
import org.wideec.coder.ErasureCoder;

/**
 * The check before an update commits (DESIGN.md §3.3): the stripe as the next manifest version will describe it is
 * read back through HDFS from each of {@link StripeUpdate#verificationSets} (random k-subsets holding every rewritten
 * parity, the virtual units as zeros), every remaining data unit outside the set is decoded and compared with its
 * stored bytes. A wrong new parity in a set changes some decoded unit, so the commit never names parity that
 * disagrees with its data.
 */
final class UpdateVerifier {
  private static final Logger LOG = LoggerFactory.getLogger(UpdateVerifier.class);
  private final DistributedFileSystem dfs;
  private final int chunkBytes;
  private final Random rnd;

  UpdateVerifier(DistributedFileSystem dfs, int chunkBytes, Random rnd) {
    this.dfs = dfs;
    this.chunkBytes = chunkBytes;
    this.rnd = rnd;
  }

  /** Returns the number of unit sets decoded; throws naming the stripe, unit and offset at the first mismatch. */
  int verify(StripeUpdate up, ArchivedStripe next, long version) throws IOException {
    List<int[]> sets = up.verificationSets(next, rnd);
    Map<Integer, StripeData.Unit> data = new HashMap<>();
    for (StripeData.Unit d : StripeData.locate(dfs, next)) {
      data.put(d.unit(), d);
    }
    for (int[] set : sets) {
      decodeAndCompare(next, set, data, version);
    }
    return sets.size();
  }

  private void decodeAndCompare(ArchivedStripe s, int[] set, Map<Integer, StripeData.Unit> data, long version)
      throws IOException {
    LinearCode code = s.code();
    long length = s.unitLength();
    int chunk = (int) Math.min(chunkBytes, Math.max(1, length));
    java.util.BitSet inSet = new java.util.BitSet();
    for (int u : set) {
      inSet.set(u);
    }
    List<Integer> decoded = new ArrayList<>();
    for (int u = 0; u < code.k(); u++) {
      if (!inSet.get(u) && !s.member(u).padding()) {
        decoded.add(u);
      }
    }
    int[] wanted = decoded.stream().mapToInt(Integer::intValue).toArray();
    Map<Integer, FSDataInputStream> in = new HashMap<>();
    ErasureCoder coder = ErasureCoder.best(code);
    try {
      for (int u = 0; u < code.n(); u++) {
        if (!s.member(u).padding() && (inSet.get(u) || u < code.k())) {
          in.put(u, dfs.open(u < code.k() ? data.get(u).file() : ArchiveLayout.inodePath(s.member(u).inodeId())));
        }
      }
      byte[] buf = new byte[chunk];
      ByteBuffer[] units = new ByteBuffer[code.n()];
      ByteBuffer[] outs = new ByteBuffer[wanted.length];
      for (int i = 0; i < outs.length; i++) {
        outs[i] = ByteBuffer.allocateDirect(chunk);
      }
      for (long pos = 0; pos < length; pos += chunk) {
        int len = (int) Math.min(chunk, length - pos);
        java.util.Arrays.fill(units, null);
        for (int u = 0; u < code.n(); u++) {
          if (s.member(u).padding() && u < code.k()) {
            units[u] = ByteBuffer.allocateDirect(len); // a virtual unit is known: zeros
          } else if (inSet.get(u)) {
            units[u] = ByteBuffer.allocateDirect(len).put(read(s, u, data, in, pos, len, buf), 0, len).flip();
          }
        }
        for (ByteBuffer o : outs) {
          o.clear().limit(len);
        }
        if (wanted.length > 0) {
          coder.reconstruct(units, wanted, outs);
        }
        for (int i = 0; i < wanted.length; i++) {
          byte[] stored = read(s, wanted[i], data, in, pos, len, buf);
          for (int b = 0; b < len; b++) {
            if (outs[i].get(b) != stored[b]) {
              throw new IOException("update of stripe " + s.stripeId() + " to manifest version " + version + ": data"
                  + " unit " + wanted[i] + " decoded from units " + java.util.Arrays.toString(set) + " differs from"
                  + " its block " + s.member(wanted[i]).blockId() + " at byte " + (pos + b) + "; the new parity is"
                  + " wrong, nothing was committed");
            }
          }
        }
      }
    } finally {
      IOUtils.cleanupWithLogger(LOG, in.values().toArray(new FSDataInputStream[0]));
    }
  }

  /** Bytes [pos, pos + len) of a stored unit, a short data block zero-padded. */
  private static byte[] read(ArchivedStripe s, int u, Map<Integer, StripeData.Unit> data,
      Map<Integer, FSDataInputStream> in, long pos, int len, byte[] buf) throws IOException {
    if (u < s.code().k()) {
      StripeData.Unit d = data.get(u);
      int have = (int) Math.max(0, Math.min(len, d.member().length() - pos));
      in.get(u).readFully(d.offset() + pos, buf, 0, have);
      java.util.Arrays.fill(buf, have, len, (byte) 0);
    } else {
      in.get(u).readFully(pos, buf, 0, len);
    }
    return buf;
  }
}
