package org.wideec.archive;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Which blocks form which stripe (HDFS-RAID's layout, DESIGN.md §3.2). A file-level archive takes one file's blocks
 * in order, k per stripe, so a file of more than k blocks spans several stripes. A directory-level archive packs
 * the blocks of its files, in the order given (the caller sorts, e.g. by path), end to end into stripes of k, so
 * small files share stripes. Either way only the last stripe is short, and it is padded virtually: its missing
 * data units are zeros that are never stored, which keeps the redundancy at the code's n/k except for that one
 * stripe.
 */
final class StripeGrouping {
  private StripeGrouping() {}

  /** The data blocks of each stripe, in unit order; every list has 1..k blocks, only the last fewer than k. */
  static List<List<DataBlock>> group(String path, ArchiveScope scope, List<SourceFile> files, int k) {
    if (scope == ArchiveScope.FILE && files.size() != 1) {
      throw new ArchivalPlanException("a file-level archive takes exactly one file, got " + files.size()
          + " (archive their directory to pack many files into stripes)");
    }
    String under = path.endsWith("/") ? path : path + "/";
    for (SourceFile f : files) {
      boolean inside = scope == ArchiveScope.FILE ? f.path().equals(path) : f.path().startsWith(under);
      if (!inside) {
        throw new ArchivalPlanException(f.path() + " is not " + (scope == ArchiveScope.FILE ? "the archived file "
            : "under the archived directory ") + path);
      }
    }
    Map<Long, String> seenBlocks = new HashMap<>();
    Map<Long, String> seenInodes = new HashMap<>();
    List<DataBlock> all = new ArrayList<>();
    for (SourceFile f : files) {
      String before = seenInodes.putIfAbsent(f.inodeId(), f.path());
      if (before != null) {
        throw new ArchivalPlanException(f.path() + " and " + before + " are the same inode " + f.inodeId());
      }
      for (int i = 0; i < f.blocks().size(); i++) {
        DataBlock b = new DataBlock(f, i);
        String other = seenBlocks.putIfAbsent(b.blockId(), b.describe());
        if (other != null) {
          throw new ArchivalPlanException(b.describe() + " is also " + other);
        }
        all.add(b);
      }
    }
    if (all.isEmpty()) {
      throw new ArchivalPlanException("nothing to archive: " + files.size() + " file(s) without blocks");
    }
    List<List<DataBlock>> stripes = new ArrayList<>();
    for (int from = 0; from < all.size(); from += k) {
      stripes.add(List.copyOf(all.subList(from, Math.min(all.size(), from + k))));
    }
    return stripes;
  }
}
