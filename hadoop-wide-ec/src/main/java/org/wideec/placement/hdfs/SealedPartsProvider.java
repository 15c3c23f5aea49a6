package org.wideec.placement.hdfs;

import org.apache.hadoop.hdfs.server.namenode.FSNamesystem;
import org.apache.hadoop.hdfs.server.namenode.INodeAttributeProvider;
import org.apache.hadoop.hdfs.server.namenode.INodeAttributes;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.wideec.archive.hdfs.ArchiveLayout;
import org.wideec.archive.hdfs.SealedPart;

/**
 * The attribute provider the NameNode plugin puts in force, wrapping the one configured (Ranger's, say, or none):
 * attributes and every decision come from it, except that a non-superuser's read of a sealed file's reader's index
 * or codeword is decided by a read of the sealed file at its current path ({@link SealedPartsEnforcer}). The parts
 * themselves are the archiving superuser's, 0600 in 0700 directories with no ACL entry, so without this provider
 * stock HDFS refuses them to everyone else: access to a sealed file's bytes follows its path, or nobody but a
 * superuser has it (DESIGN.md §2, "access follows the path").
 */
final class SealedPartsProvider extends INodeAttributeProvider {
  private static final Logger LOG = LoggerFactory.getLogger(SealedPartsProvider.class);
  private final FSNamesystem fsn;
  private final INodeAttributeProvider wrapped;
  private final byte[][] root;
  private final RateLimitedWarning failures = new RateLimitedWarning(LOG, 10 * 60_000L);

  SealedPartsProvider(FSNamesystem fsn, INodeAttributeProvider wrapped, ArchiveLayout layout) {
    this.fsn = fsn;
    this.wrapped = wrapped;
    this.root = SealedPart.rootComponents(layout);
  }

  /** Puts a provider wrapping the configured one in force; null (logged) when the layout key or Hadoop does not let it. */
  static SealedPartsProvider install(FSNamesystem fsn, org.apache.hadoop.conf.Configuration conf) {
    try {
      ArchiveLayout layout = ArchiveLayout.from(conf);
      INodeAttributeProvider configured = org.apache.hadoop.hdfs.server.namenode.WideEcNamespace.attributeProvider(fsn);
      if (configured instanceof SealedPartsProvider already) {
        return already;
      }
      SealedPartsProvider p = new SealedPartsProvider(fsn, configured, layout);
      org.apache.hadoop.hdfs.server.namenode.WideEcNamespace.setAttributeProvider(fsn, p);
      LOG.info("sealed files' parts under {} are readable to whoever may read the sealed file at its path{}",
          layout.root(), configured == null ? "" : " (decided through " + configured.getClass().getName() + ")");
      return p;
    } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
      LOG.error("cannot put the sealed-parts check in force ({}): only HDFS superusers can read sealed files", e.toString());
      return null;
    }
  }

  /** Puts the configured provider back, if this one is still in force. */
  void uninstall() {
    try {
      if (org.apache.hadoop.hdfs.server.namenode.WideEcNamespace.attributeProvider(fsn) == this) {
        org.apache.hadoop.hdfs.server.namenode.WideEcNamespace.setAttributeProvider(fsn, wrapped);
      }
    } catch (ReflectiveOperationException | RuntimeException e) {
      LOG.warn("cannot put the configured attribute provider back: {}", e.toString());
    }
  }

  INodeAttributeProvider wrapped() {
    return wrapped;
  }

  @Override
  public void start() {
    // The wrapped provider was started by the namesystem, which also stops it.
  }

  @Override
  public void stop() {
  }

  @Override
  public INodeAttributes getAttributes(String[] pathElements, INodeAttributes inode) {
    return wrapped == null ? inode : wrapped.getAttributes(pathElements, inode);
  }

  @Override
  public INodeAttributes getAttributes(byte[][] components, INodeAttributes inode) {
    return wrapped == null ? inode : wrapped.getAttributes(components, inode);
  }

  @Override
  public AccessControlEnforcer getExternalAccessControlEnforcer(AccessControlEnforcer defaultEnforcer) {
    AccessControlEnforcer inner = wrapped == null ? defaultEnforcer
        : wrapped.getExternalAccessControlEnforcer(defaultEnforcer);
    return new SealedPartsEnforcer(fsn, inner == null ? defaultEnforcer : inner, root, failures);
  }
}
