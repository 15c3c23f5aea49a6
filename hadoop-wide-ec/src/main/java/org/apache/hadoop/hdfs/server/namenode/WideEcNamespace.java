package org.apache.hadoop.hdfs.server.namenode;

import java.io.IOException;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;

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
}
