package org.wideec.archive.hdfs;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.HdfsFileStatus;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.wideec.time.Backoff;

/**
 * The {@link org.wideec.archive.UnarchiveLifecycle.Step#WAIT} of the way back, for either layout: the files of the
 * own copy raised to the wanted replication, then waited for until the NameNode lists that many live replicas of
 * every block. A block with no live replica refuses the run (rebuilding it is the repair worker's job, from the very
 * units the way back would free).
 *
 * <p>Raising replication is not held back by our placement: {@code WideEcReplicaPlacementPolicy} only chooses which
 * excess replicas to delete (it keeps one replica only for a file at replication 1 that the trimmer trims), and the
 * trimmer trims only files at replication 1, so a raised file is re-replicated by the stock path.
 */
final class RestoredReplicas {
  private final DistributedFileSystem dfs;

  RestoredReplicas(DistributedFileSystem dfs) {
    this.dfs = dfs;
  }

  /**
   * Refuses, changing nothing, while a block of the files has no live replica.
   *
   * @param files inode to the path named in messages
   * @param where block id to its place in the stripes ("stripe 0 unit 3"), for messages
   */
  void checkNoneMissing(Map<Long, String> files, Map<Long, String> where) throws IOException {
    for (Map.Entry<Long, String> f : files.entrySet()) {
      for (LocatedBlock lb : blocks(f.getKey())) {
        if (lb.isCorrupt() || lb.getLocations().length == 0) {
          throw missing(f.getValue(), lb, where, false);
        }
      }
    }
  }

  /**
   * Raises each file to {@code replication} and waits until the NameNode lists that many replicas of every block.
   * Refuses (raising nothing more) while a block has no live replica.
   *
   * @return the number of blocks
   */
  long await(Map<Long, String> files, Map<Long, String> where, short replication, Unarchiver.Progress progress)
      throws IOException {
    for (Map.Entry<Long, String> f : files.entrySet()) {
      HdfsFileStatus st = status(f.getKey());
      if (st != null && st.getReplication() != replication) {
        dfs.setReplication(ArchiveLayout.inodePath(f.getKey()), replication);
      }
    }
    long waitMs = dfs.getConf().getLong(Unarchiver.WAIT_KEY, Unarchiver.WAIT_DEFAULT);
    Backoff poll = Backoff.pollingNameNode(50, waitMs);
    while (true) {
      long total = 0;
      long ready = 0;
      String short1 = null;
      for (Map.Entry<Long, String> f : files.entrySet()) {
        for (LocatedBlock lb : blocks(f.getKey())) {
          total++;
          int live = lb.isCorrupt() ? 0 : lb.getLocations().length;
          if (live == 0) {
            throw missing(f.getValue(), lb, where, true);
          }
          if (live >= replication) {
            ready++;
          } else if (short1 == null) {
            short1 = f.getValue() + " block blk_" + lb.getBlock().getBlockId() + " has " + live + " of "
                + replication + " replicas";
          }
        }
      }
      progress.at(ready, total);
      if (ready == total) {
        return total;
      }
      if (poll.expired()) {
        throw new IOException("unarchive: " + (total - ready) + " of " + total + " blocks are still below replication "
            + replication + " after " + waitMs + " ms (" + Unarchiver.WAIT_KEY + "; e.g. " + short1 + "); nothing was"
            + " freed, the files keep the raised replication: rerun once HDFS has re-replicated them");
      }
      poll.pause("interrupted while waiting for re-replication; nothing was freed");
    }
  }

  private IOException missing(String file, LocatedBlock lb, Map<Long, String> where, boolean raised) {
    String at = where.get(lb.getBlock().getBlockId());
    return new IOException("unarchive refused: " + file + " block blk_" + lb.getBlock().getBlockId()
        + (at == null ? "" : " (" + at + ")") + " has no live replica; rebuild it first (the wide-ec repair worker"
        + " does, from the stripe's parity; WideEcFileSystem reads through it meanwhile). Nothing was freed"
        + (raised ? " (the files' replication is already raised)" : " or changed") + "; rerun once it is back");
  }

  private List<LocatedBlock> blocks(long inode) throws IOException {
    HdfsFileStatus st = status(inode);
    if (st == null) {
      return List.of();
    }
    String p = ArchiveLayout.inodePath(inode).toString();
    return dfs.getClient().getLocatedBlocks(p, 0, st.getLen()).getLocatedBlocks();
  }

  /** The file with this inode id, or null when it is gone or a directory. */
  HdfsFileStatus status(long inode) throws IOException {
    try {
      HdfsFileStatus st = dfs.getClient().getFileInfo(ArchiveLayout.inodePath(inode).toString());
      return st == null || st.isDirectory() ? null : st;
    } catch (FileNotFoundException e) {
      return null;
    }
  }
}
