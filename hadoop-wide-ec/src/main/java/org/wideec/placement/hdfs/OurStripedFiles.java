package org.wideec.placement.hdfs;

import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.server.namenode.FSDirectory;
import org.apache.hadoop.hdfs.server.namenode.FSNamesystem;
import org.apache.hadoop.hdfs.server.namenode.INode;
import org.apache.hadoop.hdfs.server.namenode.INodeFile;
import org.wideec.coder.StripedCodec;

/**
 * The closed files under a striped policy of our codecs, in inode-id order from a cursor, found in the namesystem's
 * inode map a bounded window at a time under its read lock (a short hold: a lookup per id, nothing evaluated). Inode
 * ids only grow and never change on rename, so a cursor saved mid-walk stays meaningful across restarts.
 */
final class OurStripedFiles {
  /** Ids looked at per lock hold. */
  static final int WINDOW = 65_536;

  /**
   * One window's files.
   *
   * @param inodes the files found, ascending
   * @param through the last id looked at: the next window starts after it
   * @param end whether no id after {@code through} existed when the window was taken
   */
  record Window(List<Long> inodes, long through, boolean end) {}

  private OurStripedFiles() {}

  /** Files after inode {@code after} among the next {@link #WINDOW} ids. */
  static Window after(FSNamesystem fsn, long after) {
    List<Long> out = new ArrayList<>();
    fsn.readLock();
    try {
      FSDirectory dir = fsn.getFSDirectory();
      long last = dir.getLastInodeId();
      long from = Math.max(after + 1, org.apache.hadoop.hdfs.server.namenode.INodeId.ROOT_INODE_ID);
      long to = Math.min(last, from + WINDOW - 1);
      for (long id = from; id <= to; id++) {
        INode inode = dir.getInode(id);
        if (inode != null && inode.isFile() && ours(fsn, inode.asFile())) {
          out.add(id);
        }
      }
      return new Window(out, Math.max(after, to), to >= last);
    } finally {
      fsn.readUnlock();
    }
  }

  /** Closed (a group being written is not yet what its code computes) and under one of our striped policies. */
  private static boolean ours(FSNamesystem fsn, INodeFile f) {
    if (!f.isStriped() || f.isUnderConstruction()) {
      return false;
    }
    ErasureCodingPolicy p = fsn.getErasureCodingPolicyManager().getByID(f.getErasureCodingPolicyID());
    return p != null && StripedCodec.names().contains(p.getCodecName());
  }
}
