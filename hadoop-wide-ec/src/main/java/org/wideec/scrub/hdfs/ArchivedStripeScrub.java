package org.wideec.scrub.hdfs;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.ArchivedStripeRepair;
import org.wideec.archive.StripeManifest;
import org.wideec.archive.StripeMember;
import org.wideec.archive.hdfs.ArchiveLayout;
import org.wideec.archive.hdfs.ManifestStore;
import org.wideec.archive.hdfs.SlicePortClient;
import org.wideec.scrub.ScrubVerdict;
import org.wideec.scrub.SummaryCheck;

/**
 * Checks the stripes of an archived file or directory without reading them: each member block's holder folds its
 * replica into a one-page summary, summed in its rack where that saves cross-rack bytes, and the stripe's code, the
 * manifest's, checks the summaries. A member shorter than the stripe's units and a virtual (padding) member count as
 * zeros, as the encoder padded them.
 */
public final class ArchivedStripeScrub {
  /**
   * One stripe's result: a verdict, or why none could be reached.
   *
   * @param atFault the unit at fault with what the check saw; null unless the verdict names one unit
   */
  public record StripeResult(String stripe, ScrubVerdict verdict, String error, AtFault atFault) {
    StripeResult(String stripe, String error) {
      this(stripe, null, error, null);
    }
  }

  /**
   * The unit a check named, its member block as located then and every unit's summary (the one at fault from its
   * first listed holder): what {@link #repair} tests each of its replicas against.
   */
  public record AtFault(ArchivedStripe stripe, int unit, LocatedBlock block, byte[][] summaries) {}

  /**
   * What {@link #repair} did: the holders whose replica of the unit at fault it reported corrupt, and those whose
   * replica agrees with the other units (HDFS copies one of those; with none, the archive repair monitor rebuilds the
   * block under its own id from the units that agree).
   */
  public record Repair(List<String> reported, List<String> agreeing) {
    @Override
    public String toString() {
      return "reported corrupt on " + reported + (agreeing.isEmpty()
          ? ": no replica agrees, the archive repair monitor rebuilds the block from the units that agree"
          : ": HDFS copies a replica that agrees (" + agreeing + ")");
    }
  }

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
        out.add(new StripeResult(name, "not checked: the stripe is " + s.state()
            + ", its parity protects nothing yet"));
      } else {
        out.add(check(s, name));
      }
      progress.at(out.size(), m.stripes().size());
    }
    return out;
  }

  private StripeResult check(ArchivedStripe s, String name) {
    try {
      LocatedBlock[] members = members(s, name);
      SummaryFetch.Checked c = fetch.check(s.code(), members, name);
      ScrubVerdict v = c.verdict();
      AtFault atFault = null;
      if (v.outcome() == ScrubVerdict.Outcome.UNIT_AT_FAULT) {
        atFault = new AtFault(s, v.unitAtFault(), members[v.unitAtFault()], c.summaries());
      }
      return new StripeResult(name, v, null, atFault);
    } catch (IOException e) {
      return new StripeResult(name, e.getMessage());
    }
  }

  /**
   * Repairs the unit at fault without touching a finalized replica (DESIGN.md §3.3: changed bytes behind the
   * NameNode's back make a corrupt replica, so nothing is rewritten in place). Each replica's holder folds it, and
   * a replica counts as agreeing when the stripe checks consistent with its summary in the unit's place; every other
   * replica is reported to the NameNode as corrupt, as HDFS's own readers do. The NameNode then counts only the
   * agreeing replicas live: it copies one of those, or, with none, the archive repair monitor sees the block lost and
   * has it rebuilt under its own id from the units that agree, checked against the manifest's CRC32C.
   *
   * @throws IOException naming the stripe when the result names no unit at fault, or when every replica agrees now
   */
  public Repair repair(StripeResult r) throws IOException {
    AtFault f = r.atFault();
    if (f == null) {
      throw new IOException(r.stripe() + ": no single unit at fault to repair (" + (r.verdict() == null ? r.error()
          : r.verdict()) + ")");
    }
    String where = r.stripe() + " unit " + f.unit();
    List<DatanodeInfo> bad = new ArrayList<>();
    List<String> agreeing = new ArrayList<>();
    for (DatanodeInfo holder : f.block().getLocations()) {
      byte[][] with = f.summaries().clone();
      with[f.unit()] = fetch.of(f.block(), holder, where);
      if (SummaryCheck.check(f.stripe().code(), with).consistent()) {
        agreeing.add(holder.getXferAddr());
      } else {
        bad.add(holder);
      }
    }
    if (bad.isEmpty()) {
      throw new IOException(where + ": every replica (" + agreeing + ") agrees with the other units now; nothing"
          + " reported");
    }
    fs.getClient().reportBadBlocks(new LocatedBlock[] {new LocatedBlock(f.block().getBlock(),
        bad.toArray(new DatanodeInfo[0]))});
    return new Repair(bad.stream().map(DatanodeInfo::getXferAddr).toList(), agreeing);
  }

  /** Each member's block as located now; null for a virtual (padding) member, zeros as the encoder padded it. */
  private LocatedBlock[] members(ArchivedStripe s, String name) throws IOException {
    LocatedBlock[] out = new LocatedBlock[s.code().n()];
    for (int u = 0; u < out.length; u++) {
      StripeMember m = s.member(u);
      if (m.padding()) {
        continue;
      }
      LocatedBlock lb = located(m, name + " unit " + u);
      if (lb.getLocations().length == 0) {
        throw new IOException(name + ": unit " + u + " (block " + m.blockId() + ") has no live replica; repair the"
            + " stripe before scrubbing it");
      }
      out[u] = lb;
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
