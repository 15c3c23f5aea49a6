package org.wideec.archive.hdfs;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;

/**
 * Where the archival layout keeps its own files in HDFS (DESIGN.md §3.2), under one system directory:
 * <pre>
 * /.wideec/manifests/&lt;inode id of the archived path&gt;.wecm         the manifest (format 1)
 * /.wideec/parity/&lt;inode id of the archived path&gt;/&lt;stripe id&gt;/u&lt;unit&gt;   one single-block file per parity unit
 * /.wideec/parity/&lt;archive&gt;/&lt;stripe&gt;/v&lt;version&gt;/u&lt;unit&gt;  a parity unit rewritten by an update
 * /.wideec/aside/&lt;archive&gt;/&lt;inode id&gt;                 a member removed by wide-ec rm, until freed
 * /.wideec/aside/&lt;archive&gt;/&lt;inode id&gt;.by.&lt;inode id&gt;  a member replaced by the second file
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

  /**
   * The file of parity unit {@code unit} as the manifest version {@code version} wrote it: archival writes version 0
   * ({@link #parityUnit(String, int)}); a parity update to version v writes its new blocks beside the old ones, in
   * {@code v<v>/} (a finalized replica is never rewritten, DESIGN.md §3.3), so what a crashed update left is found by
   * its version and the old units stay readable until they are freed.
   */
  public static Path parityUnit(String parityDir, int unit, long version) {
    return version == 0 ? parityUnit(parityDir, unit) : new Path(parityVersionDir(parityDir, version), "u" + unit);
  }

  /** The directory of the parity units that manifest version {@code version} (above 0) wrote for a stripe. */
  public static Path parityVersionDir(String parityDir, long version) {
    return new Path(parityDir, "v" + version);
  }

  /**
   * Where removed members of one archive wait (moved out of the users' namespace at once, owner only like all of the
   * system directory) while the stripes still count their blocks: until the update that zeroes them in the parity is
   * committed and its grace period has passed. The directory listing is the archive's queue of pending removals.
   */
  public Path asideRoot(long archivedInode) {
    return new Path(new Path(root, "aside"), Long.toString(archivedInode));
  }

  /** The place a removed member file waits: named by its inode id, which the manifest's members name too. */
  public Path asideFile(long archivedInode, long fileInode) {
    return new Path(asideRoot(archivedInode), Long.toString(fileInode));
  }

  /**
   * The place a replaced member file waits: named by its own inode id and its replacement's, which is how a rerun
   * knows which new blocks take its units (the name is set by the same rename that takes the file aside).
   */
  public Path asideReplaced(long archivedInode, long fileInode, long replacementInode) {
    return new Path(asideRoot(archivedInode), fileInode + ".by." + replacementInode);
  }

  /**
   * Every codeword directory of one sealed archive: {@code codewords/<archive inode>/<stripe>/u<i>}, one single-block
   * file per codeword, the archiving superuser's alone (0600 in 0700 directories): whoever may read the sealed file at
   * its path reads them through the NameNode plugin ({@link SealedPart}).
   */
  public Path codewordRoot(long archivedInode) {
    return new Path(new Path(root, "codewords"), Long.toString(archivedInode));
  }

  /** The codeword directory of one stripe of a sealed archive: what its manifest records as the "parity path". */
  public Path codewordDir(long archivedInode, long stripeId) {
    return new Path(codewordRoot(archivedInode), Long.toString(stripeId));
  }

  /**
   * The reader's copy of a sealed file's manifest, named by the placeholder's own inode id (which any reader of the
   * file learns from its status, and which its owner cannot change): the manifest itself stays owner-only, and the
   * pointer xattr is in the superuser-only namespace, so this is how a reader finds the codewords. Its name is also
   * how the NameNode plugin knows whose path decides who reads it.
   */
  public Path sealedIndex(long placeholderInode) {
    return new Path(new Path(root, "sealed"), placeholderInode + ".wecm");
  }

  /** The archive inode a manifest path is named by ({@code <inode>.wecm}). */
  public static long archiveInodeOf(String manifestPath) {
    String name = new Path(manifestPath).getName();
    if (!name.endsWith(".wecm")) {
      throw new IllegalArgumentException(manifestPath + " is not a manifest path (<inode>.wecm)");
    }
    return Long.parseLong(name.substring(0, name.length() - ".wecm".length()));
  }

  /** The system directory itself. */
  public Path root() {
    return root;
  }

  /** A path that reaches an inode whatever its current name ({@code /.reserved/.inodes/<id>}, rename-safe). */
  public static Path inodePath(long inodeId) {
    return new Path("/.reserved/.inodes/" + inodeId);
  }
}
