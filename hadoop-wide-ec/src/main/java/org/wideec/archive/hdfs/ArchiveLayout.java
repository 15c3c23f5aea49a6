package org.wideec.archive.hdfs;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;

/**
 * Where the archival layout keeps its own files in HDFS (DESIGN.md §3.2), under one system directory:
 * <pre>
 * /.wideec/manifests/&lt;inode id of the archived path&gt;.wecm         the manifest (format 1)
 * /.wideec/parity/&lt;inode id of the archived path&gt;/&lt;stripe id&gt;/u&lt;unit&gt;   one single-block file per parity unit
 * </pre>
 * Everything is named by inode id, never by the archived path, so renaming an archived file or directory changes
 * nothing here. One file per parity unit, because favored nodes apply to a whole write: a file per unit is what lets
 * each parity block go to the node the plan chose (and be rebuilt there later under its own id).
 */
public final class ArchiveLayout {
  /** The system directory; an absolute HDFS path. */
  public static final String DIR_KEY = "wide-ec.archive.dir";
  public static final String DIR_DEFAULT = "/.wideec";
  /** Replication of manifest files (they are small and authoritative, so replicated even when data is not). */
  public static final String MANIFEST_REPLICATION_KEY = "wide-ec.archive.manifest.replication";
  public static final short MANIFEST_REPLICATION_DEFAULT = 3;

  private final Path root;
  private final short manifestReplication;

  public ArchiveLayout(String root, short manifestReplication) {
    if (root == null || !root.startsWith("/")) {
      throw new IllegalArgumentException(DIR_KEY + " must be an absolute path, got '" + root + "'");
    }
    if (manifestReplication < 1) {
      throw new IllegalArgumentException(MANIFEST_REPLICATION_KEY + " must be at least 1, got " + manifestReplication);
    }
    this.root = new Path(root);
    this.manifestReplication = manifestReplication;
  }

  public static ArchiveLayout from(Configuration conf) {
    int replication = conf.getInt(MANIFEST_REPLICATION_KEY, MANIFEST_REPLICATION_DEFAULT);
    if (replication < 1 || replication > Short.MAX_VALUE) {
      throw new IllegalArgumentException(MANIFEST_REPLICATION_KEY + " must be 1.." + Short.MAX_VALUE + ", got "
          + replication);
    }
    return new ArchiveLayout(conf.getTrimmed(DIR_KEY, DIR_DEFAULT), (short) replication);
  }

  public short manifestReplication() {
    return manifestReplication;
  }

  /**
   * Only the superusers that archive (and the NameNode's trimmer) may look inside: a user who could read k - 1
   * members of a directory stripe and one parity could solve for a member they may not read.
   */
  public static final org.apache.hadoop.fs.permission.FsPermission PRIVATE =
      new org.apache.hadoop.fs.permission.FsPermission((short) 0700);

  /** Creates the system directory (owner only) and the manifest directory beneath it, if missing. */
  public void ensureDirs(org.apache.hadoop.fs.FileSystem fs) throws java.io.IOException {
    Path root = manifestDir().getParent();
    if (!fs.exists(root)) {
      fs.mkdirs(root, PRIVATE);
      fs.setPermission(root, PRIVATE); // mkdirs applies the umask
    }
    fs.mkdirs(manifestDir(), PRIVATE);
  }

  public Path manifestDir() {
    return new Path(root, "manifests");
  }

  /** The manifest of the file or directory with this inode id. */
  public Path manifest(long archivedInode) {
    return new Path(manifestDir(), archivedInode + ".wecm");
  }

  /** Every parity directory of one archive. */
  public Path parityRoot(long archivedInode) {
    return new Path(new Path(root, "parity"), Long.toString(archivedInode));
  }

  /** The parity directory of one stripe: what the manifest records as the stripe's parity path. */
  public Path parityDir(long archivedInode, long stripeId) {
    return new Path(parityRoot(archivedInode), Long.toString(stripeId));
  }

  /** The single-block file holding parity unit {@code unit} of the stripe whose parity directory is given. */
  public static Path parityUnit(String parityDir, int unit) {
    return new Path(parityDir, "u" + unit);
  }

  /** A path that reaches an inode whatever its current name ({@code /.reserved/.inodes/<id>}, rename-safe). */
  public static Path inodePath(long inodeId) {
    return new Path("/.reserved/.inodes/" + inodeId);
  }
}
