package org.wideec.archive.hdfs;

import java.io.IOException;
import java.util.EnumSet;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.crypto.CryptoProtocolVersion;
import org.apache.hadoop.fs.CreateFlag;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Options;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.XAttrSetFlag;
import org.apache.hadoop.fs.permission.AclEntry;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.AddErasureCodingPolicyResponse;
import org.apache.hadoop.hdfs.protocol.ClientProtocol;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.protocol.HdfsFileStatus;
import org.apache.hadoop.io.EnumSetWritable;
import org.apache.hadoop.io.erasurecode.ECSchema;
import org.wideec.archive.ArchivePointer;
import org.wideec.archive.StripeManifest;
import org.wideec.coder.hadoop.SealedCoderFactory;

/**
 * The HDFS side of sealed files: the placeholder that takes an archived file's path, its EC policy,
 * and the reader's index. A placeholder is a zero-length striped file of the {@link #POLICY}, whose codec's coder
 * refuses to be built ({@link SealedCoderFactory}), so every stock open fails before reading a byte; it is created
 * through ClientProtocol (create with the policy name, then complete), since a stock output stream would build that
 * encoder too.
 */
public final class SealedFiles {
  /** One data and one parity unit: the smallest schema HDFS takes; no block of this policy is ever written. */
  public static final ErasureCodingPolicy POLICY = new ErasureCodingPolicy(
      new ECSchema(SealedCoderFactory.CODEC, 1, 1), 1 << 20);
  /** A part's file (codeword, reader's index): the archiving superuser's alone, like its directories (0700). */
  static final FsPermission PART = new FsPermission((short) 0600);

  private final DistributedFileSystem dfs;
  private final ArchiveLayout layout;

  public SealedFiles(DistributedFileSystem dfs, ArchiveLayout layout) {
    this.dfs = dfs;
    this.layout = layout;
  }

  /** True when the status is a sealed placeholder's. */
  public static boolean isSealed(HdfsFileStatus st) {
    return st != null && st.isErasureCoded() && st.getErasureCodingPolicy() != null
        && SealedCoderFactory.CODEC.equals(st.getErasureCodingPolicy().getCodecName());
  }

  /** Adds and enables the sealed policy once (superuser); the NameNode needs this jar for the codec. */
  public void ensurePolicy() throws IOException {
    boolean enabled = dfs.getAllErasureCodingPolicies().stream()
        .anyMatch(p -> p.getPolicy().getName().equals(POLICY.getName()) && p.isEnabled());
    if (enabled) {
      return;
    }
    AddErasureCodingPolicyResponse[] r = dfs.addErasureCodingPolicies(new ErasureCodingPolicy[] {POLICY});
    if (!r[0].isSucceed() && dfs.getAllErasureCodingPolicies().stream()
        .noneMatch(p -> p.getPolicy().getName().equals(POLICY.getName()))) {
      throw new IOException("the NameNode refused the sealed policy " + POLICY.getName() + " (" + r[0].getErrorMsg()
          + "); is the wide-ec jar (codec " + SealedCoderFactory.CODEC + ") on the NameNode's classpath?");
    }
    dfs.enableErasureCodingPolicy(POLICY.getName());
  }

  /**
   * What {@link #ensurePolicy} would do, changing nothing ({@code --dry-run}): null when the policy is enabled, a note
   * when the run would add or enable it.
   *
   * @throws IOException when the NameNode lacks the codec, where the run would fail
   */
  public String policyCheck() throws IOException {
    for (org.apache.hadoop.hdfs.protocol.ErasureCodingPolicyInfo p : dfs.getAllErasureCodingPolicies()) {
      if (p.getPolicy().getName().equals(POLICY.getName())) {
        return p.isEnabled() ? null : "the run enables the sealed policy " + POLICY.getName() + " (superuser)";
      }
    }
    Map<String, String> codecs = dfs.getAllErasureCodingCodecs();
    if (!codecs.containsKey(SealedCoderFactory.CODEC)) {
      throw new IOException("the NameNode has no codec " + SealedCoderFactory.CODEC + " (it lists " + codecs.keySet()
          + "), so it would refuse the sealed policy " + POLICY.getName() + ": put the wide-ec jar on the NameNode's"
          + " classpath and restart it");
    }
    return "the run adds and enables the sealed policy " + POLICY.getName() + " (superuser)";
  }

  /** Creates an empty placeholder at {@code at} (replacing a leftover) and returns its status. */
  public HdfsFileStatus createPlaceholder(Path at) throws IOException {
    ClientProtocol nn = dfs.getClient().getNamenode();
    String client = dfs.getClient().getClientName();
    String src = Path.getPathWithoutSchemeAndAuthority(at).toString();
    HdfsFileStatus st = nn.create(src, new FsPermission((short) 0600), client,
        new EnumSetWritable<>(EnumSet.of(CreateFlag.CREATE, CreateFlag.OVERWRITE)), true, (short) 1,
        POLICY.getCellSize(), CryptoProtocolVersion.supported(), POLICY.getName(), null);
    if (!nn.complete(src, client, null, st.getFileId())) {
      throw new IOException("the NameNode did not close the empty placeholder " + src);
    }
    HdfsFileStatus done = dfs.getClient().getFileInfo(src);
    if (!isSealed(done) || done.getLen() != 0) {
      throw new IOException(src + " should be an empty file of policy " + POLICY.getName() + "; the NameNode made "
          + (done == null ? "nothing" : done.getLen() + " bytes of policy " + done.getErasureCodingPolicy()));
    }
    return done;
  }

  /**
   * Gives each file the owner, group, permission and ACL of {@code like}: the placeholder and a restored file are the
   * file, so HDFS decides who reads them (and, through the NameNode plugin, the parts) on that access.
   */
  public void copyAccess(FileStatus like, List<Path> files) throws IOException {
    List<AclEntry> acl = like.hasAcl() ? dfs.getAclStatus(like.getPath()).getEntries() : List.of();
    for (Path f : files) {
      if (dfs.getFileStatus(f).hasAcl()) { // copied before: entries removed from the file since must go too
        dfs.removeAcl(f);
      }
      dfs.setOwner(f, like.getOwner(), like.getGroup());
      dfs.setPermission(f, like.getPermission());
      if (!acl.isEmpty()) {
        dfs.modifyAclEntries(f, acl);
      }
    }
  }

  /**
   * Refuses to seal a file in an encryption zone (its codewords, outside the zone, would hold its plaintext) or under
   * a directory with snapshots (they keep the original's blocks, and its bytes readable past every access change).
   */
  public void checkNoZoneNorSnapshot(String name) throws IOException {
    Path dir = new Path(name).getParent(); // the file may be aside (a swap stopped between its renames)
    if (dfs.getEZForPath(dir) != null) {
      throw new IOException("sealing " + name + " refused: it is in the encryption zone "
          + dfs.getEZForPath(dir).getPath() + ", and its codewords, outside the zone, would hold its bytes"
          + " unencrypted");
    }
    var d = StripeTrim.snapshotted(dfs, name);
    if (d != null) {
      throw new IOException("sealing " + name + " refused: " + d.getFullPath().toUri().getPath() + " has "
          + d.getSnapshotNumber() + " snapshot(s), which keep the original's blocks (sealing would free nothing, and"
          + " its bytes stay readable there whatever access the sealed file gets); delete the snapshots and rerun");
    }
  }

  /**
   * Makes the parts of archive {@code archive}, whose sealed file is the placeholder {@code placeholder}, the
   * archiving superuser's alone, and links them to that file: the system, index and codeword directories and each
   * stripe's directory 0700, each codeword and the reader's index 0600, no ACL entry anywhere (parts sealed by earlier
   * builds carried copies of the file's ACL), and {@link SealedPart#LINK_XATTR} on the archive's codeword directory.
   * Stock HDFS then lets nobody else near them; the NameNode plugin lets a reader of the sealed file at its path read
   * them. Files directly in the archive's directory (an original set aside, a restored copy) keep their own access:
   * they are the file, and the directory shuts them in. Idempotent.
   */
  public void privatize(long archive, long placeholder) throws IOException {
    for (Path dir : List.of(layout.root(), layout.sealedIndex(placeholder).getParent(),
        layout.codewordRoot(archive).getParent())) {
      if (dfs.exists(dir)) {
        makePrivate(dfs.getFileStatus(dir), ArchiveLayout.PRIVATE);
      }
    }
    Path index = layout.sealedIndex(placeholder);
    if (dfs.exists(index)) {
      makePrivate(dfs.getFileStatus(index), PART);
    }
    Path root = layout.codewordRoot(archive);
    if (!dfs.exists(root)) {
      return;
    }
    byte[] link = Long.toString(placeholder).getBytes(StandardCharsets.UTF_8);
    if (!java.util.Arrays.equals(link, dfs.getXAttrs(root).get(SealedPart.LINK_XATTR))) {
      dfs.setXAttr(root, SealedPart.LINK_XATTR, link, EnumSet.of(XAttrSetFlag.CREATE, XAttrSetFlag.REPLACE));
    }
    makePrivate(dfs.getFileStatus(root), ArchiveLayout.PRIVATE);
    for (FileStatus stripe : dfs.listStatus(root)) {
      if (stripe.isDirectory()) {
        makePrivate(stripe, ArchiveLayout.PRIVATE);
        for (FileStatus codeword : dfs.listStatus(stripe.getPath())) {
          makePrivate(codeword, codeword.isDirectory() ? ArchiveLayout.PRIVATE : PART);
        }
      }
    }
  }

  /**
   * Brings every sealed file's parts to {@link #privatize}'s state, found from the reader's indexes (each names its
   * placeholder, whose pointer names its archive): parts sealed by earlier builds had mirrored ACL entries, 0711
   * directories and no link. An index whose placeholder is gone is made private and otherwise left to fsck.
   *
   * @return the sealed files whose parts were looked at
   */
  public int privatizeAll() throws IOException {
    Path indexes = layout.sealedIndex(0).getParent();
    if (!dfs.exists(indexes)) {
      return 0;
    }
    int n = 0;
    for (FileStatus st : dfs.listStatus(indexes)) {
      long placeholder = SealedPart.number(st.getPath().getName().getBytes(StandardCharsets.UTF_8), "", ".wecm");
      if (placeholder < 0 || st.isDirectory()) {
        continue;
      }
      byte[] pointer;
      try {
        pointer = dfs.getXAttrs(ArchiveLayout.inodePath(placeholder)).get(ArchivalSource.POINTER_XATTR);
      } catch (java.io.FileNotFoundException e) {
        pointer = null;
      }
      if (pointer == null) {
        makePrivate(st, PART);
        continue;
      }
      String at = ArchiveLayout.inodePath(placeholder).toString();
      privatize(ArchiveLayout.archiveInodeOf(ArchivePointer.parse(pointer, at).manifestPath()), placeholder);
      n++;
    }
    return n;
  }

  private void makePrivate(FileStatus st, FsPermission perm) throws IOException {
    if (st.getPermission().toShort() != perm.toShort()) {
      dfs.setPermission(st.getPath(), perm);
    }
    if (st.hasAcl()) {
      dfs.removeAcl(st.getPath());
    }
  }

  /** Writes the reader's index of a placeholder: the manifest's bytes, temp-then-rename. */
  public Path writeIndex(long placeholderInode, StripeManifest manifest) throws IOException {
    Path index = layout.sealedIndex(placeholderInode);
    Path tmp = index.suffix(".tmp");
    try (FSDataOutputStream out = dfs.create(tmp, PART, true, 4096, layout.manifestReplication(),
        dfs.getDefaultBlockSize(tmp), null)) {
      out.write(manifest.toBytes());
      out.hsync();
    }
    dfs.rename(tmp, index, Options.Rename.OVERWRITE);
    return index;
  }

  /** Reads a sealed file's index with any FileSystem (the reader's own identity), checked like a manifest. */
  public static StripeManifest readIndex(FileSystem fs, Path index) throws IOException {
    long length = fs.getFileStatus(index).getLen();
    if (length > ManifestStore.MAX_MANIFEST_BYTES) {
      throw new IOException(index + ": " + length + " bytes, more than any manifest; not a wide-ec index");
    }
    byte[] bytes = new byte[(int) length];
    try (FSDataInputStream in = fs.open(index)) {
      in.readFully(0, bytes);
    }
    return StripeManifest.parse(bytes, index.toString());
  }

  /**
   * What a reader refused a part of sealed file {@code file} is told: access to its bytes follows its path; when the
   * refusal came from stock permissions, the NameNode plugin that decides it on the path is not in force there.
   */
  public static org.apache.hadoop.security.AccessControlException refused(String file, IOException e) {
    String msg = String.valueOf(e.getMessage());
    String text = msg.contains(SealedPart.REFUSAL)
        ? file + " is sealed: access to its bytes follows its path, and the NameNode refused it there (" + msg + ")"
        : file + " is sealed: access to its bytes follows its path, decided by the wide-ec NameNode plugin"
            + " (dfs.namenode.plugins = org.wideec.placement.hdfs.WideEcNameNodePlugin), which this NameNode does not"
            + " run for this user; without it only HDFS superusers can read sealed files (" + msg + ")";
    org.apache.hadoop.security.AccessControlException r = new org.apache.hadoop.security.AccessControlException(text);
    r.initCause(e);
    return r;
  }

  /** The original length of a sealed file: every source piece of every stripe. */
  public static long length(StripeManifest m) {
    return m.stripes().stream().flatMap(s -> s.sources().stream()).mapToLong(p -> p.length()).sum();
  }
}
