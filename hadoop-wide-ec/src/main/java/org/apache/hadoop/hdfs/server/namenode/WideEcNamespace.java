package org.apache.hadoop.hdfs.server.namenode;

import java.io.IOException;
import java.util.function.Function;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.server.blockmanagement.BlockInfo;

/**
 * Thin adapter: the erasure-coding policy of a path, for our block placement policy, which HDFS tells the
 * path but not the policy (DESIGN.md §2). Lives in this package only because the lookup is package-private.
 */
public final class WideEcNamespace {
  private WideEcNamespace() {}

  /** The EC policy in effect for src, or null (replicated file, unknown path). */
  public static ErasureCodingPolicy policyOf(FSNamesystem fsn, String src) {
    fsn.readLock();
    try {
      INodesInPath iip = fsn.getFSDirectory().getINodesInPath(src, FSDirectory.DirOp.READ);
      return FSDirErasureCodingOp.unprotectedGetErasureCodingPolicy(fsn, iip);
    } catch (IOException e) {
      return null;
    } finally {
      fsn.readUnlock();
    }
  }

  /**
   * Applies f to the blocks of file src under the namesystem's read lock (block locations do not move while f
   * looks at them); null for an unknown path or a directory.
   */
  public static <T> T withBlocks(FSNamesystem fsn, String src, Function<BlockInfo[], T> f) {
    fsn.readLock();
    try {
      INode inode = fsn.getFSDirectory().getINodesInPath(src, FSDirectory.DirOp.READ).getLastINode();
      return inode != null && inode.isFile() ? f.apply(inode.asFile().getBlocks()) : null;
    } catch (IOException e) {
      return null;
    } finally {
      fsn.readUnlock();
    }
  }
}
