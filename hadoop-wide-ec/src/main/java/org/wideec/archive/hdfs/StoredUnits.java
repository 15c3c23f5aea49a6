package org.wideec.archive.hdfs;

import java.io.FileNotFoundException;
import java.io.IOException;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.HdfsFileStatus;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.StripeMember;

/**
 * The check both layouts pass before the data's own replicas go (a trim, a swap): every stored unit of the stripe,
 * parity or codeword, is still the block that was verified and has a live, uncorrupt replica. The verification may
 * be old (archive --no-trim, a resumed seal), and once the replicas go the stored units are all that protects the
 * bytes (DESIGN.md §3.2: nothing is deleted before the units that protect it are durable and verified).
 */
final class StoredUnits {
  private StoredUnits() {}

  /** Why some stored unit of {@code s} is not live as verified, naming it; null when every one is. */
  static String notLive(DistributedFileSystem dfs, ArchivedStripe s) throws IOException {
    for (int u = 0; u < s.members().size(); u++) {
      StripeMember m = s.member(u);
      if (!m.isParity() || m.padding()) {
        continue;
      }
      LocatedBlock b = block(dfs, ArchiveLayout.inodePath(m.inodeId()).toString(), m.blockId());
      if (b == null || b.getBlock().getGenerationStamp() != m.generationStamp() || b.getLocations().length == 0
          || b.isCorrupt()) {
        return (m.role() == org.wideec.code.UnitRole.CODED ? "codeword " : "parity unit ") + u + " of stripe "
            + s.stripeId() + " (blk_" + m.blockId() + ") is " + (b == null ? "gone" : b.getLocations().length == 0
            ? "without a live replica" : b.isCorrupt() ? "corrupt" : "not the block that was verified")
            + "; rerun after repairing it";
      }
    }
    return null;
  }

  /** The block with that id of the file, or null when the file or the block is gone. */
  private static LocatedBlock block(DistributedFileSystem dfs, String file, long blockId) throws IOException {
    HdfsFileStatus st;
    try {
      st = dfs.getClient().getFileInfo(file);
    } catch (FileNotFoundException e) {
      return null; // an inode path of a deleted file is "not found"
    }
    if (st == null) {
      return null;
    }
    for (LocatedBlock lb : dfs.getClient().getLocatedBlocks(file, 0, Math.max(1, st.getLen())).getLocatedBlocks()) {
      if (lb.getBlock().getBlockId() == blockId) {
        return lb;
      }
    }
    return null;
  }
}
