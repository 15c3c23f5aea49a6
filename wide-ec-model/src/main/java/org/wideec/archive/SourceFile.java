package org.wideec.archive;

import java.util.Comparator;
import java.util.List;
import org.wideec.topology.Site;

/**
 * A replicated file as the archival planner sees it (the HDFS slice fills it from the NameNode's block
 * locations): path, inode id, length, block size and every block with its live replicas.
 */
public record SourceFile(String path, long inodeId, long length, long blockSize, List<Block> blocks) {
  /**
   * One block of the file and where its replicas are. The replicas are a set: the NameNode lists them nearest the
   * asking client first and shuffles those at one distance, so they are kept by rack and node, and a plan made twice
   * from one layout is the same plan.
   */
  public record Block(long blockId, long generationStamp, long length, List<Site> replicas) {
    private static final Comparator<Site> CANONICAL = Comparator.comparing(Site::rack).thenComparing(Site::node);

    public Block {
      replicas = replicas.stream().sorted(CANONICAL).toList();
    }
  }

  public SourceFile {
    blocks = List.copyOf(blocks);
    if (path == null || !path.startsWith("/")) {
      throw new ArchivalPlanException("a source file needs an absolute path, got '" + path + "'");
    }
    if (inodeId <= 0) {
      throw new ArchivalPlanException(path + ": inode id " + inodeId + " is not an HDFS inode id");
    }
    long sum = 0;
    for (int i = 0; i < blocks.size(); i++) {
      Block b = blocks.get(i);
      if (b.length() < 0 || b.length() > blockSize) {
        throw new ArchivalPlanException(path + ": block " + i + " (id " + b.blockId() + ") has " + b.length()
            + " bytes, the file's block size is " + blockSize);
      }
      if (b.blockId() == 0 || b.generationStamp() <= 0) {
        throw new ArchivalPlanException(path + ": block " + i + " has id " + b.blockId() + " and generation stamp "
            + b.generationStamp() + "; a finalized block has both");
      }
      sum += b.length();
    }
    if (sum != length) {
      throw new ArchivalPlanException(path + ": its blocks hold " + sum + " bytes, the file " + length
          + " (still being written?)");
    }
  }
}
