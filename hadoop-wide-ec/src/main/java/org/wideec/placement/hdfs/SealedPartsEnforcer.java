package org.wideec.placement.hdfs;

import org.apache.hadoop.fs.permission.FsAction;
import org.apache.hadoop.hdfs.server.namenode.FSNamesystem;
import org.apache.hadoop.hdfs.server.namenode.INode;
import org.apache.hadoop.hdfs.server.namenode.INodeAttributeProvider.AccessControlEnforcer;
import org.apache.hadoop.hdfs.server.namenode.INodeAttributeProvider.AuthorizationContext;
import org.apache.hadoop.hdfs.server.namenode.INodeAttributes;
import org.apache.hadoop.hdfs.server.namenode.WideEcNamespace;
import org.apache.hadoop.security.AccessControlException;
import org.apache.hadoop.security.UserGroupInformation;
import org.wideec.archive.hdfs.SealedPart;

/**
 * One permission checker's enforcer ({@link SealedPartsProvider}): every check goes to the wrapped enforcer, except a
 * non-superuser's check on a path under the system directory's {@code sealed/} or {@code codewords/}. There a check
 * that asks only to read a reader's index or a codeword (or its status) passes exactly when the same caller may read
 * the sealed file at its current path, checked through the NameNode's whole chain; anything else (a write, a delete,
 * a listing, an ACL change, a set-aside original, a part whose sealed file is unknown) is refused, whatever the
 * part's own permission bits and ACL entries say (parts sealed by older builds carried copies of the file's ACL).
 * Only {@link AccessControlException} leaves it.
 */
final class SealedPartsEnforcer implements AccessControlEnforcer {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(SealedPartsEnforcer.class);
  private static final String REFUSAL = SealedPart.REFUSAL;
  private static final String ONLY_READ = "only superusers may do more than read it";
  private static final String NOT_INDEX_NOR_CODEWORD = "not a reader's index or codeword";
  /** Set while the sealed file's path is checked: a part met again there is refused, never checked again. */
  private static final ThreadLocal<Boolean> NESTED = ThreadLocal.withInitial(() -> Boolean.FALSE);
  /** Whether an enforcer class implements the context API (HDFS asks the same of the configured one). */
  private static final ClassValue<Boolean> TAKES_CONTEXT = new ClassValue<>() {
    @Override
    protected Boolean computeValue(Class<?> type) {
      for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
        try {
          c.getDeclaredMethod("checkPermissionWithContext", AuthorizationContext.class);
          return true;
        } catch (NoSuchMethodException e) {
          // look further up
        }
      }
      return false;
    }
  };

  private final FSNamesystem fsn;
  private final AccessControlEnforcer inner;
  private final byte[][] root;
  private final RateLimitedWarning failures;

  SealedPartsEnforcer(FSNamesystem fsn, AccessControlEnforcer inner, byte[][] root, RateLimitedWarning failures) {
    this.fsn = fsn;
    this.inner = inner;
    this.root = root;
    this.failures = failures;
  }

  @Override
  public void checkPermission(String fsOwner, String supergroup, UserGroupInformation ugi, INodeAttributes[] attrs,
      INode[] inodes, byte[][] components, int snapshotId, String path, int ancestorIndex, boolean doCheckOwner,
      FsAction ancestorAccess, FsAction parentAccess, FsAction access, FsAction subAccess, boolean ignoreEmptyDir)
      throws AccessControlException {
    SealedPart part = partOf(components, fsOwner, supergroup, ugi);
    if (part == null) {
      inner.checkPermission(fsOwner, supergroup, ugi, attrs, inodes, components, snapshotId, path, ancestorIndex,
          doCheckOwner, ancestorAccess, parentAccess, access, subAccess, ignoreEmptyDir);
      return;
    }
    decide(part, fsOwner, supergroup, ugi, inodes, components, doCheckOwner, ancestorAccess, parentAccess, access,
        subAccess);
  }

  @Override
  public void checkPermissionWithContext(AuthorizationContext c) throws AccessControlException {
    SealedPart part = partOf(c.getPathByNameArr(), c.getFsOwner(), c.getSupergroup(), c.getCallerUgi());
    if (part == null) {
      if (TAKES_CONTEXT.get(inner.getClass())) {
        inner.checkPermissionWithContext(c);
      } else {
        inner.checkPermission(c.getFsOwner(), c.getSupergroup(), c.getCallerUgi(), c.getInodeAttrs(), c.getInodes(),
            c.getPathByNameArr(), c.getSnapshotId(), c.getPath(), c.getAncestorIndex(), c.isDoCheckOwner(),
            c.getAncestorAccess(), c.getParentAccess(), c.getAccess(), c.getSubAccess(), c.isIgnoreEmptyDir());
      }
      return;
    }
    decide(part, c.getFsOwner(), c.getSupergroup(), c.getCallerUgi(), c.getInodes(), c.getPathByNameArr(),
        c.isDoCheckOwner(), c.getAncestorAccess(), c.getParentAccess(), c.getAccess(), c.getSubAccess());
  }

  @Override
  public void checkSuperUserPermissionWithContext(AuthorizationContext c) throws AccessControlException {
    inner.checkSuperUserPermissionWithContext(c);
  }

  @Override
  public void denyUserAccess(AuthorizationContext c, String errorMessage) throws AccessControlException {
    inner.denyUserAccess(c, errorMessage);
  }

  /** The part a non-superuser's check is about, or null when the stock chain decides (not a part, or a superuser). */
  private SealedPart partOf(byte[][] components, String fsOwner, String supergroup, UserGroupInformation ugi)
      throws AccessControlException {
    SealedPart part;
    try {
      part = SealedPart.of(root, components);
    } catch (RuntimeException e) {
      failures.warn("sealed-part check failed to read a path ({}); refused", e.toString());
      throw new AccessControlException("Permission denied: " + REFUSAL);
    }
    if (part.kind() == SealedPart.Kind.NOT_A_PART) {
      return null;
    }
    boolean superuser = ugi != null && (ugi.getShortUserName().equals(fsOwner)
        || ugi.getGroupsSet().contains(supergroup));
    return superuser ? null : part;
  }

  private void decide(SealedPart part, String fsOwner, String supergroup, UserGroupInformation ugi, INode[] inodes,
      byte[][] components, boolean doCheckOwner, FsAction ancestorAccess, FsAction parentAccess, FsAction access,
      FsAction subAccess) throws AccessControlException {
    String why;
    try {
      why = refusal(part, fsOwner, supergroup, ugi, inodes, doCheckOwner, ancestorAccess, parentAccess, access,
          subAccess);
    } catch (RuntimeException | LinkageError e) {
      failures.warn("sealed-part check of {} failed ({}); refused", pathOf(components), e.toString(), e);
      why = "the check failed";
    }
    if (why != null) {
      // What the caller asked for may be named; what the namespace holds may not: "no such part" against "refused
      // at the sealed file's path" would tell a prober which inode ids are live sealed files.
      boolean aboutTheRequest = why.equals(ONLY_READ) || why.equals(NOT_INDEX_NOR_CODEWORD);
      LOG.debug("refused {} on {}: {}", ugi, pathOf(components), why);
      throw new AccessControlException("Permission denied: user=" + (ugi == null ? "?" : ugi.getShortUserName())
          + ", access=" + access + ", path=\"" + pathOf(components) + "\": " + REFUSAL
          + (aboutTheRequest ? " (" + why + ")" : ""));
    }
  }

  /** Null when the check passes, else why not (said to the caller: it names no path of the sealed file). */
  private String refusal(SealedPart part, String fsOwner, String supergroup, UserGroupInformation ugi, INode[] inodes,
      boolean doCheckOwner, FsAction ancestorAccess, FsAction parentAccess, FsAction access, FsAction subAccess) {
    if (!SealedPart.asksOnlyToRead(doCheckOwner, ancestorAccess, parentAccess, access, subAccess)) {
      return ONLY_READ;
    }
    if (part.kind() == SealedPart.Kind.OTHER_PART) {
      return NOT_INDEX_NOR_CODEWORD;
    }
    if (NESTED.get()) {
      return "met while checking the sealed file's own path";
    }
    INode last = inodes == null || inodes.length == 0 ? null : inodes[inodes.length - 1];
    if (last == null || !last.isFile()) {
      return "no such part";
    }
    long file = part.inode();
    if (part.kind() == SealedPart.Kind.CODEWORD) {
      INode archive = last.getParent() == null ? null : last.getParent().getParent();
      file = WideEcNamespace.numberXAttr(archive, SealedPart.LINK_XATTR);
      if (file < 0) {
        return "its sealed file is not recorded";
      }
    }
    NESTED.set(Boolean.TRUE);
    try {
      WideEcNamespace.checkReadAtCurrentPath(fsn, file, fsOwner, supergroup, ugi);
      return null;
    } catch (AccessControlException e) {
      return "refused at the sealed file's path";
    } finally {
      NESTED.set(Boolean.FALSE);
    }
  }

  private static String pathOf(byte[][] components) {
    StringBuilder b = new StringBuilder();
    for (int i = 1; components != null && i < components.length; i++) {
      b.append('/').append(components[i] == null ? "" : new String(components[i],
          java.nio.charset.StandardCharsets.UTF_8));
    }
    return b.length() == 0 ? "/" : b.toString();
  }
}
