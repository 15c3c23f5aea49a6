package org.wideec.archive.hdfs;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.StripeManifest;
import org.wideec.archive.StripeMember;
import org.wideec.archive.StripeUpdate;
import org.wideec.code.UnitRole;

/**
 * One update run's batch (DESIGN.md §3.3: removals are batched per stripe, which raises the changed units per rack
 * RackCU profits from): one {@link StripeUpdate} per stripe holding a pending member, the new members each rewritten
 * stripe got, and the stripes of the next manifest version.
 */
final class UpdateBatch {
  final Set<Long> files = new HashSet<>();
  final List<StripeUpdate> updates = new ArrayList<>();
  final Map<Long, ArchivedStripe> next = new LinkedHashMap<>();

  /** A batch of updates planned elsewhere (a fill's). */
  static UpdateBatch of(List<StripeUpdate> updates) {
    UpdateBatch b = new UpdateBatch();
    b.updates.addAll(updates);
    return b;
  }

  /**
   * Every stripe holding a pending member, with the update that zeroes those members or, for a replaced one, takes
   * its replacement's blocks in file order (a leftover old block is zeroed).
   */
  static UpdateBatch plan(DistributedFileSystem dfs, StripeManifest current, Set<Long> pending,
      Map<Long, Long> replacements) throws IOException {
    Map<Long, StripeMember> replaced = new java.util.HashMap<>();
    for (Map.Entry<Long, Long> e : replacements.entrySet()) {
      replaced.putAll(pairBlocks(dfs, current, e.getKey(), e.getValue()));
    }
    UpdateBatch b = new UpdateBatch();
    b.files.addAll(pending);
    for (ArchivedStripe s : current.stripes()) {
      boolean holds = s.members().stream()
          .anyMatch(m -> m.role() == UnitRole.DATA && !m.padding() && pending.contains(m.inodeId()));
      if (holds) {
        if (s.state() != org.wideec.archive.StripeState.COMMITTED
            && s.state() != org.wideec.archive.StripeState.TRIMMED) {
          throw new IOException("update of " + current.archivedPath() + ": stripe " + s.stripeId() + " is " + s.state()
              + "; only a committed stripe's parity matches its data, so only it takes a delta update (the set-aside"
              + " files stay pending; run wide-ec fsck " + current.archivedPath() + ")");
        }
        b.updates.add(StripeUpdate.changing(s, pending, replaced));
      }
    }
    return b;
  }

  /** Old block id → the replacement's block in the same place of its file, on the old unit's planned node. */
  private static Map<Long, StripeMember> pairBlocks(DistributedFileSystem dfs, StripeManifest current, long oldInode,
      long newInode) throws IOException {
    Map<Long, StripeMember> byBlock = new java.util.HashMap<>();
    for (ArchivedStripe s : current.stripes()) {
      for (StripeMember m : s.members()) {
        if (m.role() == UnitRole.DATA && !m.padding() && m.inodeId() == oldInode) {
          byBlock.put(m.blockId(), m);
        }
      }
    }
    org.apache.hadoop.hdfs.protocol.LocatedBlocks oldListed = ListedBlocks.of(dfs,
        ArchiveLayout.inodePath(oldInode).toString());
    org.apache.hadoop.hdfs.protocol.LocatedBlocks newListed = ListedBlocks.of(dfs,
        ArchiveLayout.inodePath(newInode).toString());
    if (oldListed == null || newListed == null) {
      throw new IOException("a pending replacement of inode " + oldInode + " by inode " + newInode + " cannot go on: "
          + (oldListed == null ? "the replaced file" : "its replacement") + " is gone (deleted by a stock client);"
          + " restore it or run wide-ec rm --finish after removing the aside entry");
    }
    List<org.apache.hadoop.hdfs.protocol.LocatedBlock> olds = oldListed.getLocatedBlocks();
    List<org.apache.hadoop.hdfs.protocol.LocatedBlock> news = newListed.getLocatedBlocks();
    if (news.size() > olds.size()) {
      throw new IOException("replacement inode " + newInode + " has " + news.size() + " blocks, the file it replaces"
          + " (inode " + oldInode + ") " + olds.size());
    }
    Map<Long, StripeMember> out = new java.util.HashMap<>();
    for (int i = 0; i < news.size(); i++) {
      StripeMember old = byBlock.get(olds.get(i).getBlock().getBlockId());
      org.apache.hadoop.hdfs.protocol.ExtendedBlock nb = news.get(i).getBlock();
      if (old != null) {
        out.put(old.blockId(), StripeMember.data(newInode, nb.getBlockId(), nb.getGenerationStamp(), nb.getNumBytes(),
            old.plannedNode(), old.plannedRack()));
      }
    }
    return out;
  }


  void write(ParityDeltaExecutor writer, long version, Set<Long> gone) throws IOException {
    for (StripeUpdate u : updates) {
      if (!u.dropsStripe()) {
        next.put(u.before().stripeId(), u.next(writer.write(u, version, gone)));
      }
    }
  }

  void verify(UpdateVerifier verifier, long version) throws IOException {
    for (StripeUpdate u : updates) {
      if (!u.dropsStripe()) {
        verifier.verify(u, next.get(u.before().stripeId()), version);
      }
    }
  }

  /** The stripes of the next version: each updated one replaced, each dropped one left out. */
  List<ArchivedStripe> nextStripes(StripeManifest current) {
    Set<Long> dropped = new HashSet<>();
    updates.stream().filter(StripeUpdate::dropsStripe).forEach(u -> dropped.add(u.before().stripeId()));
    List<ArchivedStripe> out = new ArrayList<>();
    for (ArchivedStripe s : current.stripes()) {
      if (!dropped.contains(s.stripeId())) {
        out.add(next.getOrDefault(s.stripeId(), s));
      }
    }
    return out;
  }

  int updated() {
    return next.size();
  }

  int dropped() {
    return updates.size() - next.size();
  }

  int parityWritten() {
    return updates.stream().filter(u -> !u.dropsStripe()).mapToInt(u -> u.rewrittenParities().length).sum();
  }
}
