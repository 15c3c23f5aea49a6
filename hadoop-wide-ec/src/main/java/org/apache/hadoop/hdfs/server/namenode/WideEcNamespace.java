package org.apache.hadoop.hdfs.server.namenode;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.function.Function;
import org.apache.hadoop.fs.XAttr;
import org.apache.hadoop.fs.permission.FsAction;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.server.blockmanagement.BlockInfo;
import org.apache.hadoop.security.AccessControlException;
import org.apache.hadoop.security.UserGroupInformation;

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

  /**
   * The attribute provider the NameNode runs with (dfs.namenode.inode.attributes.provider.class, started by the
   * namesystem), or null when none. FSDirectory keeps it in a private field with no getter; read it once at start.
   *
   * @throws ReflectiveOperationException when this Hadoop names the field otherwise
   */
  public static INodeAttributeProvider attributeProvider(FSNamesystem fsn) throws ReflectiveOperationException {
    java.lang.reflect.Field f = FSDirectory.class.getDeclaredField("attributeProvider");
    f.setAccessible(true);
    return (INodeAttributeProvider) f.get(fsn.getFSDirectory());
  }

  /** Puts {@code provider} in force for every later permission check and file status (null: none). */
  public static void setAttributeProvider(FSNamesystem fsn, INodeAttributeProvider provider) {
    fsn.getFSDirectory().setINodeAttributeProvider(provider);
  }

  /** The value of an xattr of the inode with this id, read under the namesystem's read lock; null when either is absent. */
  public static byte[] xattrOf(FSNamesystem fsn, long inodeId, String prefixedName) {
    fsn.readLock();
    try {
      INode inode = fsn.getFSDirectory().getInode(inodeId);
      XAttrFeature f = inode == null ? null : inode.getXAttrFeature();
      XAttr x = f == null ? null : f.getXAttr(prefixedName);
      return x == null ? null : x.getValue();
    } finally {
      fsn.readUnlock();
    }
  }

  /** The decimal number an xattr of the inode holds (its current state), or -1 when absent or not a number. */
  public static long numberXAttr(INode inode, String prefixedName) {
    XAttrFeature f = inode == null ? null : inode.getXAttrFeature();
    XAttr x = f == null ? null : f.getXAttr(prefixedName);
    if (x == null || x.getValue() == null) {
      return -1;
    }
    try {
      return Long.parseLong(new String(x.getValue(), StandardCharsets.UTF_8).trim());
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /**
   * Checks that {@code ugi} may read the file with inode id {@code fileInode} at its current path, through the
   * NameNode's own chain (the attribute provider, the enforcer: traverse on every ancestor, ACLs and mask, or an
   * external enforcer such as Ranger's), as if it opened that path. Runs inside a permission check, so under the
   * namesystem lock the caller holds; without it (never in the RPCs that read) it refuses rather than look.
   *
   * @throws AccessControlException when it may not, or when the inode is gone, not a file, or not at its path
   */
  public static void checkReadAtCurrentPath(FSNamesystem fsn, long fileInode, String fsOwner, String supergroup,
      UserGroupInformation ugi) throws AccessControlException {
    FSDirectory fsd = fsn.getFSDirectory();
    if (!fsd.hasReadLock()) {
      throw new AccessControlException("the sealed file's path was not checked: no namesystem lock held");
    }
    INode inode = fsd.getInode(fileInode);
    if (inode == null || !inode.isFile()) {
      throw new AccessControlException("the sealed file (inode " + fileInode + ") is gone");
    }
    INodesInPath iip;
    try {
      iip = fsd.getINodesInPath(inode.getFullPathName(), FSDirectory.DirOp.READ);
    } catch (IOException e) {
      throw new AccessControlException("the sealed file (inode " + fileInode + ") has no current path");
    }
    // By id: a file a snapshot holds becomes an INodeReference when renamed, and the reference stands for it.
    INode last = iip.getLastINode();
    if (last == null || last.getId() != fileInode) {
      throw new AccessControlException("the sealed file (inode " + fileInode + ") is not at its path");
    }
    fsd.checkPermission(fsd.getPermissionChecker(fsOwner, supergroup, ugi), iip, false, null, null, FsAction.READ,
        null);
  }
}
