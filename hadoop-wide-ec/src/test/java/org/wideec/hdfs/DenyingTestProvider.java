package org.wideec.hdfs;

import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.fs.permission.FsAction;
import org.apache.hadoop.hdfs.server.namenode.INode;
import org.apache.hadoop.hdfs.server.namenode.INodeAttributeProvider;
import org.apache.hadoop.hdfs.server.namenode.INodeAttributes;
import org.apache.hadoop.security.AccessControlException;
import org.apache.hadoop.security.UserGroupInformation;

/**
 * An external authorizer standing in for Ranger (dfs.namenode.inode.attributes.provider.class): it refuses user
 * {@link #DENIED} everything, whatever the mode bits say, and otherwise lets HDFS's default enforcer decide. Its
 * enforcer implements only the old checkPermission API, as older external enforcers do, so the sealed-parts check
 * must unpack the context form for it.
 */
public class DenyingTestProvider extends INodeAttributeProvider {
  static final String DENIED = "dave";
  /** Checks this enforcer made: the sealed-parts check must pass non-part checks through it. */
  static final AtomicLong CHECKS = new AtomicLong();

  @Override
  public void start() {
  }

  @Override
  public void stop() {
  }

  @Override
  public INodeAttributes getAttributes(String[] pathElements, INodeAttributes inode) {
    return inode;
  }

  @Override
  public AccessControlEnforcer getExternalAccessControlEnforcer(AccessControlEnforcer defaultEnforcer) {
    return new AccessControlEnforcer() {
      @Override
      public void checkPermission(String fsOwner, String supergroup, UserGroupInformation ugi,
          INodeAttributes[] inodeAttrs, INode[] inodes, byte[][] pathByNameArr, int snapshotId, String path,
          int ancestorIndex, boolean doCheckOwner, FsAction ancestorAccess, FsAction parentAccess, FsAction access,
          FsAction subAccess, boolean ignoreEmptyDir) throws AccessControlException {
        CHECKS.incrementAndGet();
        if (DENIED.equals(ugi.getShortUserName())) {
          throw new AccessControlException("Permission denied by the external authorizer: user=" + DENIED);
        }
        defaultEnforcer.checkPermission(fsOwner, supergroup, ugi, inodeAttrs, inodes, pathByNameArr, snapshotId, path,
            ancestorIndex, doCheckOwner, ancestorAccess, parentAccess, access, subAccess, ignoreEmptyDir);
      }
    };
  }
}
