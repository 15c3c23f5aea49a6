package org.wideec.scrub.hdfs;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.ArchivedStripeRepair;
import org.wideec.archive.StripeManifest;
import org.wideec.archive.StripeMember;
import org.wideec.archive.hdfs.ArchiveLayout;
import org.wideec.archive.hdfs.ManifestStore;
import org.wideec.archive.hdfs.SlicePortClient;
import org.wideec.code.LinearCode;
import org.wideec.scrub.ScrubVerdict;
import org.wideec.scrub.SummaryCheck;

/**
 * Checks the stripes of an archived file or directory without reading them: each member block's holder folds its
 * replica into a one-page summary and the stripe's code, the manifest's, checks the summaries. A member shorter than
 * the stripe's units and a virtual (padding) member count as zeros, as the encoder padded them.
 */
public final class ArchivedStripeScrub {
  /** One stripe's result: a verdict, or why none could be reached. */
  public record StripeResult(String stripe, ScrubVerdict verdict, String error) {}

  private final DistributedFileSystem fs;
  private final ManifestStore store;
  private final SummaryFetch fetch;

  public ArchivedStripeScrub(DistributedFileSystem fs, ManifestStore store, SlicePortClient port, int pageSize,
      long seed) {
    this.fs = fs;
    this.store = store;
    this.fetch = new SummaryFetch(port, pageSize, seed);
  }

  /** Summary bytes the holders sent so far. */
  public long summaryBytes() {
    return fetch.bytes();
  }

  /** Of {@link #summaryBytes}, those sent from another rack than this client's. */
  public long crossRackSummaryBytes() {
    return fetch.crossRackBytes();
  }

  /** The archived file's or directory's manifest, or null when the path was never archived. */
  public StripeManifest manifestOf(Path path) throws IOException {
    return store.find(store.inodeOf(path));
  }

  public List<StripeResult> verify(StripeManifest m, org.wideec.code.Progress progress) throws IOException {
    List<StripeResult> out = new ArrayList<>();
    for (ArchivedStripe s : m.stripes()) {
      String name = m.archivedPath() + " stripe " + s.stripeId() + " (" + s.codeSpec() + ")";
      if (!ArchivedStripeRepair.protects(s)) {
        out.add(new StripeResult(name, null, "not checked: the stripe is " + s.state()
            + ", its parity protects nothing yet"));
      } else {
        try {
          out.add(new StripeResult(name, SummaryCheck.check(s.code(), summaries(s, name)), null));
        } catch (IOException e) {
          out.add(new StripeResult(name, null, e.getMessage()));
        }
      }
      progress.at(out.size(), m.stripes().size());
    }
    return out;
  }

  private byte[][] summaries(ArchivedStripe s, String name) throws IOException {
    LinearCode code = s.code();
    byte[][] out = new byte[code.n()][];
    for (int u = 0; u < code.n(); u++) {
      StripeMember m = s.member(u);
      if (m.padding()) {
        out[u] = fetch.zeros();
        continue;
      }
      LocatedBlock lb = located(m, name + " unit " + u);
      if (lb.getLocations().length == 0) {
        throw new IOException(name + ": unit " + u + " (block " + m.blockId() + ") has no live replica; repair the"
            + " stripe before scrubbing it");
      }
      out[u] = fetch.of(lb, name + " unit " + u);
    }
    return out;
  }

  /** The member's block as the NameNode locates it now, reached by inode so that a renamed file is found too. */
  private LocatedBlock located(StripeMember m, String where) throws IOException {
    String file = ArchiveLayout.inodePath(m.inodeId()).toString();
    for (LocatedBlock lb : fs.getClient().getLocatedBlocks(file, 0, Long.MAX_VALUE).getLocatedBlocks()) {
      if (lb.getBlock().getBlockId() == m.blockId()) {
        if (lb.getBlock().getGenerationStamp() != m.generationStamp()) {
          throw new IOException(where + ": block " + m.blockId() + " changed since archival (generation stamp "
              + lb.getBlock().getGenerationStamp() + ", manifest " + m.generationStamp() + ")");
        }
        return lb;
      }
    }
    throw new IOException(where + ": block " + m.blockId() + " is no longer in inode " + m.inodeId());
  }
}
