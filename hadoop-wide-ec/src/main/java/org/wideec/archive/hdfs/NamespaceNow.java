package org.wideec.archive.hdfs;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.HdfsFileStatus;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.wideec.topology.Site;
import org.wideec.topology.hdfs.DataNodeSites;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.StripeAudit;
import org.wideec.archive.StripeAudit.Finding;
import org.wideec.archive.StripeAudit.Observed;
import org.wideec.archive.StripeAudit.Presence;
import org.wideec.archive.StripeAudit.Problem;
import org.wideec.archive.StripeManifest;
import org.wideec.archive.StripeMember;
import org.wideec.code.UnitRole;

/**
 * What the NameNode lists now for the inodes an {@link ArchiveInspector} looks at, each asked once and cached: every
 * stored member of a stripe as {@link StripeAudit} observes it, the blocks of archived files no stripe holds, and a
 * sealed placeholder that is no longer empty. It only reads.
 */
final class NamespaceNow {
  /** An inode's status and blocks as the NameNode lists them. */
  record FileNow(HdfsFileStatus status, List<LocatedBlock> blocks) {}

  private final DistributedFileSystem dfs;
  /** Inode → what the NameNode lists for it now (null: gone). */
  private final Map<Long, FileNow> files = new HashMap<>();

  NamespaceNow(DistributedFileSystem dfs) {
    this.dfs = dfs;
  }

  /**
   * A placeholder is empty and closed for good: anything else means a stock client opened it for writing (an append
   * or a concat), which the sealed layout does not describe.
   */
  List<Finding> placeholderChanged(String file, long inode, String manifest) throws IOException {
    FileNow f = now(inode);
    org.apache.hadoop.hdfs.protocol.LocatedBlocks lbs = ListedBlocks.of(dfs, ArchiveLayout.inodePath(inode).toString());
    if (f.status().getLen() == 0 && f.blocks().isEmpty() && (lbs == null || !lbs.isUnderConstruction())) {
      return List.of();
    }
    return List.of(new Finding(Problem.STALE, file, -1, -1, 0, "sealed file " + file + " (manifest " + manifest
        + ") is no longer its empty placeholder: " + f.status().getLen() + " bytes, " + f.blocks().size()
        + " block(s)" + (lbs != null && lbs.isUnderConstruction() ? ", open for writing" : "") + "; its codewords still hold the"
        + " archived bytes (read them with wide-ec's file system, or unarchive after removing what was added)"));
  }

  /** One stored member as the NameNode lists it now. */
  Observed observe(ArchivedStripe s, int unit, Map<Long, String> names) {
    StripeMember m = s.member(unit);
    String file = m.isParity() ? ArchiveLayout.parityUnit(s.parityFilePath(), unit).toString()
        : names.getOrDefault(m.inodeId(), ArchiveLayout.inodePath(m.inodeId()).toString());
    FileNow f;
    try {
      f = now(m.inodeId());
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    if (f == null) {
      return Observed.gone(file, Presence.FILE_GONE);
    }
    for (LocatedBlock lb : f.blocks()) {
      if (lb.getBlock().getBlockId() == m.blockId()) {
        List<Site> replicas = new ArrayList<>();
        for (DatanodeInfo d : lb.getLocations()) {
          replicas.add(DataNodeSites.of(d));
        }
        return new Observed(file, Presence.PRESENT, lb.getBlock().getGenerationStamp(), lb.getBlock().getNumBytes(),
            replicas, lb.isCorrupt());
      }
    }
    return Observed.gone(file, Presence.BLOCK_GONE);
  }

  /** Blocks of the archive's data files that no stripe holds (appended since it was archived). */
  List<Finding> unprotected(StripeManifest m, Map<Long, String> names) throws IOException {
    Map<Long, Set<Long>> recorded = new LinkedHashMap<>();
    for (ArchivedStripe s : m.stripes()) {
      for (StripeMember u : s.members()) {
        if (u.role() == UnitRole.DATA && !u.padding()) {
          recorded.computeIfAbsent(u.inodeId(), i -> new HashSet<>()).add(u.blockId());
        }
      }
    }
    List<Finding> out = new ArrayList<>();
    for (Map.Entry<Long, Set<Long>> e : recorded.entrySet()) {
      FileNow f = now(e.getKey());
      if (f == null) {
        continue; // reported stale, member by member
      }
      String file = names.getOrDefault(e.getKey(), ArchiveLayout.inodePath(e.getKey()).toString());
      long[] ids = f.blocks().stream().mapToLong(b -> b.getBlock().getBlockId()).toArray();
      out.addAll(StripeAudit.unprotected(file, e.getValue(), ids, f.status().getReplication()));
    }
    return out;
  }

  /** What the NameNode lists for the inode now; null when it is gone. */
  FileNow now(long inode) throws IOException {
    if (files.containsKey(inode)) {
      return files.get(inode);
    }
    org.apache.hadoop.hdfs.protocol.HdfsLocatedFileStatus st = ListedBlocks.status(dfs,
        ArchiveLayout.inodePath(inode).toString());
    FileNow f = st == null ? null
        : new FileNow(st, st.isDirectory() || st.getLocatedBlocks() == null ? List.of()
            : st.getLocatedBlocks().getLocatedBlocks());
    files.put(inode, f);
    return f;
  }
}
