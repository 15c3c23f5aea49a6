package org.wideec.archive.hdfs;

import java.io.IOException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
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
import org.apache.hadoop.fs.permission.AclEntry;
import org.apache.hadoop.fs.permission.AclEntryScope;
import org.apache.hadoop.fs.permission.AclEntryType;
import org.apache.hadoop.fs.permission.FsAction;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.AclException;
import org.apache.hadoop.hdfs.protocol.AddErasureCodingPolicyResponse;
import org.apache.hadoop.hdfs.protocol.ClientProtocol;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.protocol.HdfsFileStatus;
import org.apache.hadoop.io.EnumSetWritable;
import org.apache.hadoop.io.erasurecode.ECSchema;
import org.wideec.archive.StripeManifest;
import org.wideec.coder.hadoop.SealedCoderFactory;

/**
 * The HDFS side of sealed files (issue 14 item 2): the placeholder that takes an archived file's path, its EC policy,
 * and the reader's index. A placeholder is a zero-length striped file of the {@link #POLICY}, whose codec's coder
 * refuses to be built ({@link SealedCoderFactory}), so every stock open fails before reading a byte; it is created
 * through ClientProtocol (create with the policy name, then complete), since a stock output stream would build that
 * encoder too.
 */
public final class SealedFiles {
  /** One data and one parity unit: the smallest schema HDFS takes; no block of this policy is ever written. */
  public static final ErasureCodingPolicy POLICY = new ErasureCodingPolicy(
      new ECSchema(SealedCoderFactory.CODEC, 1, 1), 1 << 20);
  /** Directories between the system directory and a codeword: traverse only (no listing). */
  static final FsPermission TRAVERSE = new FsPermission((short) 0711);

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

  /**
   * Refuses to seal {@code name} unless everyone who can reach its codewords could reach the file: each ancestor
   * directory must grant traverse to others (o+x) and carry no extended ACL entry. Codewords live under
   * {@code /.wideec}, not under the file's directories, so HDFS no longer checks those directories for a reader.
   */
  public void checkAncestorsTraversable(String name) throws IOException {
    for (Path dir = new Path(name).getParent(); dir != null; dir = dir.getParent()) {
      FileStatus st = dfs.getFileStatus(dir);
      boolean others = st.getPermission().getOtherAction().implies(FsAction.EXECUTE);
      boolean extended = st.hasAcl() && !dfs.getAclStatus(dir).getEntries().isEmpty();
      if (!others || extended) {
        throw new IOException("sealing " + name + " refused: its ancestor " + dir + " ("
            + st.getPermission() + (extended ? " with extended ACL entries" : "") + ") does not let every user"
            + " traverse it, but the codewords and reader's index live under " + layout.root() + ", outside it, so"
            + " that restriction would not protect them. Seal only files whose every ancestor is o+x with no ACL");
      }
    }
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
   * Gives each file the owner, group, permission and ACL of {@code like}, and each directory traverse-only access.
   * Used for the placeholder and a restored file, which are the file; parts get {@link #mirrorReadAccess}.
   */
  public void copyAccess(FileStatus like, List<Path> files, List<Path> dirs) throws IOException {
    List<AclEntry> acl = like.hasAcl() ? dfs.getAclStatus(like.getPath()).getEntries() : List.of();
    for (Path f : files) {
      dfs.setOwner(f, like.getOwner(), like.getGroup());
      dfs.setPermission(f, like.getPermission());
      if (!acl.isEmpty()) {
        dfs.modifyAclEntries(f, acl);
      }
    }
    for (Path d : dirs) {
      dfs.setPermission(d, TRAVERSE);
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
    var d = Archiver.snapshotted(dfs, name);
    if (d != null) {
      throw new IOException("sealing " + name + " refused: " + d.getFullPath().toUri().getPath() + " has "
          + d.getSnapshotNumber() + " snapshot(s), which keep the original's blocks (sealing would free nothing, and"
          + " its bytes stay readable there whatever access the sealed file gets); delete the snapshots and rerun");
    }
  }

  /** Refuses to seal when the NameNode has ACLs off: a sealed file's readers reach its parts through ACL entries. */
  public void checkAclsEnabled(String name) throws IOException {
    try {
      dfs.getAclStatus(new Path("/"));
    } catch (AclException e) {
      throw new IOException("sealing " + name + " refused: the NameNode has ACLs off (dfs.namenode.acls.enabled ="
          + " false), and a sealed file's readers reach its codewords and reader's index through ACL entries that"
          + " mirror who may read the file; enable ACLs and rerun (" + e.getMessage() + ")", e);
    }
  }

  /**
   * Sets the ACL of each part (codeword or reader's index) so that exactly those who may read {@code file} may read
   * it, and nobody may write it: the parts stay owned by the archiving superuser, so the file's owner cannot
   * overwrite her index, append to or re-replicate her codewords.
   */
  public void mirrorReadAccess(FileStatus file, List<Path> parts) throws IOException {
    List<AclEntry> acl = readAcl(file, file.hasAcl() ? dfs.getAclStatus(file.getPath()).getEntries() : List.of());
    for (Path p : parts) {
      dfs.setAcl(p, acl);
    }
  }

  /**
   * The full ACL of a part of {@code file}: a named entry for the file's owner and one for its group with their read
   * bit, each of the file's named entries with its effective read bit (under the file's mask), other's read bit;
   * the part's own owner (the archiver) reads, its own group nothing; no entry grants write or execute.
   */
  public static List<AclEntry> readAcl(FileStatus file, List<AclEntry> fileAcl) {
    FsPermission perm = file.getPermission();
    // With an ACL, the permission's group bits are the mask and the owning group's bits are the group:: entry.
    FsAction mask = perm.getGroupAction();
    FsAction owningGroup = perm.getGroupAction();
    for (AclEntry e : fileAcl) {
      if (e.getScope() == AclEntryScope.ACCESS && e.getType() == AclEntryType.GROUP && e.getName() == null) {
        owningGroup = e.getPermission();
      }
    }
    Map<String, FsAction> users = new LinkedHashMap<>();
    Map<String, FsAction> groups = new LinkedHashMap<>();
    users.put(file.getOwner(), read(perm.getUserAction()));
    groups.put(file.getGroup(), read(owningGroup.and(mask)));
    for (AclEntry e : fileAcl) {
      if (e.getScope() != AclEntryScope.ACCESS || e.getName() == null) {
        continue;
      }
      FsAction r = read(e.getPermission().and(mask));
      if (e.getType() == AclEntryType.USER) {
        users.putIfAbsent(e.getName(), r); // the owner matches user:: on the file, never her named entry
      } else if (e.getType() == AclEntryType.GROUP) {
        groups.merge(e.getName(), r, FsAction::or); // a member gets the union of her groups' entries
      }
    }
    List<AclEntry> acl = new ArrayList<>();
    acl.add(entry(AclEntryType.USER, null, FsAction.READ));
    users.forEach((u, a) -> acl.add(entry(AclEntryType.USER, u, a)));
    acl.add(entry(AclEntryType.GROUP, null, FsAction.NONE));
    groups.forEach((g, a) -> acl.add(entry(AclEntryType.GROUP, g, a)));
    acl.add(entry(AclEntryType.MASK, null, FsAction.READ));
    acl.add(entry(AclEntryType.OTHER, null, read(perm.getOtherAction())));
    return acl;
  }

  private static FsAction read(FsAction a) {
    return a.implies(FsAction.READ) ? FsAction.READ : FsAction.NONE;
  }

  private static AclEntry entry(AclEntryType type, String name, FsAction action) {
    AclEntry.Builder b = new AclEntry.Builder().setScope(AclEntryScope.ACCESS).setType(type).setPermission(action);
    return (name == null ? b : b.setName(name)).build();
  }

  /** Writes the reader's index of a placeholder: the manifest's bytes, temp-then-rename. */
  public Path writeIndex(long placeholderInode, StripeManifest manifest) throws IOException {
    Path index = layout.sealedIndex(placeholderInode);
    Path tmp = index.suffix(".tmp");
    try (FSDataOutputStream out = dfs.create(tmp, true, 4096, layout.manifestReplication(),
        dfs.getDefaultBlockSize(tmp))) {
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

  /** The original length of a sealed file: every source piece of every stripe. */
  public static long length(StripeManifest m) {
    return m.stripes().stream().flatMap(s -> s.sources().stream()).mapToLong(p -> p.length()).sum();
  }
}
