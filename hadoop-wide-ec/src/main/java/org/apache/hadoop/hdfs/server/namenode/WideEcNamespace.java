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

  /**
   * Whether the caller of the current RPC is an HDFS superuser (the NameNode's user or a member of
   * {@code dfs.permissions.superusergroup}), judged as the NameNode judges it. The caller's groups were resolved for
   * the same RPC's own permission check (and are cached by {@code Groups}), so this does not go to the group
   * service while the caller holds the namesystem lock. False when it cannot tell.
   */
  public static boolean isSuperUser(FSNamesystem fsn) {
    try {
      return fsn.getFSDirectory().getPermissionChecker().isSuperUser();
    } catch (IOException e) {
      return false;
    }
  }

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
