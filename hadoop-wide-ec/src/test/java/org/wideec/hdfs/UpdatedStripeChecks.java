package org.wideec.hdfs;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.StripeManifest;
import org.wideec.minicluster.StripeReadBack;

/**
 * The checks a parity update ends with (rm, replace, fill): each stripe's stored parity against an independent encode
 * of its data read back by inode and block id, decodes from random k-subsets ({@link StripeReadBack}, which the
 * product bench runs too), and every byte of every file.
 */
final class UpdatedStripeChecks {
  private final ArchiveChecks checks;
  private final StripeReadBack readBack;

  UpdatedStripeChecks(DistributedFileSystem fs, ArchiveChecks checks) {
    this.checks = checks;
    this.readBack = new StripeReadBack(fs);
  }

  /** The checks every update ends with: each stripe against an independent encode, decodes, and every byte. */
  void everythingChecksOut(StripeManifest m) throws Exception {
    for (ArchivedStripe s : m.stripes()) {
      stripeMatchesIndependentEncode(s);
      for (long seed = 0; seed < 4; seed++) {
        decodesFromARandomKSubset(s, new Random(seed));
      }
    }
    checks.everyByteReadsBack();
  }

  /** Every stored parity equals the encode of the data read back (by inode: updated parity lives in v<N>/). */
  void stripeMatchesIndependentEncode(ArchivedStripe s) throws Exception {
    readBack.parityEqualsEncode(s);
  }

  /** A random decodable k-subset of the stored units (virtual data as zeros) gives back every data unit. */
  void decodesFromARandomKSubset(ArchivedStripe s, Random rnd) throws Exception {
    readBack.decodesFromRandomKSubset(s, rnd);
  }

  /** The data units that name the inode, per stripe id. */
  static List<String> unitsOf(StripeManifest m, long inode) {
    List<String> out = new ArrayList<>();
    for (ArchivedStripe s : m.stripes()) {
      for (int u = 0; u < s.code().k(); u++) {
        if (!s.member(u).padding() && s.member(u).inodeId() == inode) {
          out.add(s.stripeId() + ":" + u);
        }
      }
    }
    return out;
  }
}
