package org.wideec.archive.hdfs;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.HdfsFileStatus;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.wideec.archive.ArchiveOrphans;
import org.wideec.archive.ArchivePointer;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.CorruptManifestException;
import org.wideec.archive.StripeAudit;
import org.wideec.archive.StripeAudit.Finding;
import org.wideec.archive.StripeAudit.Observed;
import org.wideec.archive.StripeAudit.Presence;
import org.wideec.archive.StripeAudit.Problem;
import org.wideec.archive.StripeManifest;
import org.wideec.archive.StripeMember;
import org.wideec.code.UnitRole;
import org.wideec.topology.Site;
import org.wideec.topology.hdfs.DataNodeSites;

/**
 * Gathers what {@code wide-ec fsck} judges about archived data under a path ({@link StripeAudit},
 * {@link ArchiveOrphans}): it only reads. In scope are the manifests of the path and of every file and directory
 * under it, the manifests their pointers name, manifests whose archived inode is gone but whose recorded path lies
 * under the path, and the parity directories of those inodes; for {@code /} everything in the system directory.
 */
public final class ArchiveInspector {
  /** What fsck found about archived data. */
  public record Report(List<StripeAudit.Verdict> stripes, List<Finding> findings, int manifestsChecked,
      String notChecked) {
    public long problems() {
      return findings.size() + stripes.stream().mapToLong(v -> v.findings().size()).sum();
    }
  }

  private final DistributedFileSystem dfs;
  private final ManifestStore store;
  /** Inode → what the NameNode lists for it now (null: gone), cached for one inspection. */
  private final Map<Long, FileNow> files = new HashMap<>();

  private record FileNow(HdfsFileStatus status, List<LocatedBlock> blocks) {}

  public ArchiveInspector(DistributedFileSystem dfs, ManifestStore store) {
    this.dfs = dfs;
    this.store = store;
  }

  /**
   * Inspects the archived data under the path. A user who may not read the system directory (it is the HDFS
   * superusers', {@link ArchiveLayout#PRIVATE}) gets a report that says so ({@code notChecked}) rather than an error,
   * so fsck of striped data keeps working for everyone.
   */
  public Report inspect(Path path) throws IOException {
    try {
      return inspectAll(path);
    } catch (org.apache.hadoop.security.AccessControlException e) {
      return new Report(List.of(), List.of(), 0, "archived data not checked: " + e.getMessage().lines().findFirst()
          .orElse("permission denied") + " (run fsck as an HDFS superuser)");
    }
  }

  private Report inspectAll(Path path) throws IOException {
    Inspection in = new Inspection(path);
    in.listManifests();
    for (Map.Entry<Long, String> e : in.manifests.entrySet()) {
      in.audit(e.getKey(), e.getValue());
    }
    in.orphans();
    return new Report(in.verdicts, in.findings, in.checked, null);
  }

  /** One inspection's view of the namespace and the system directory, and what it found so far. */
  private final class Inspection {
    final String root;
    final boolean everything;
    final List<Finding> findings = new ArrayList<>();
    /** The namespace under the path: inode → current path, and each archived file's pointer. */
    final Map<Long, String> names = new HashMap<>();
    final Map<String, String> pointers = new TreeMap<>();
    final Map<String, Long> placeholders = new TreeMap<>();
    /** Archived inode → its manifest's path; the inodes whose archive lock exists. */
    final Map<Long, String> manifests = new TreeMap<>();
    final Set<Long> locked = new HashSet<>();
    /** Inode → the entries of its parity and codeword directories. */
    Map<Long, Set<String>> parityDirs = Map.of();
    Map<Long, Set<String>> codewordDirs = Map.of();
    final Map<Long, ArchiveOrphans.SealedIndex> indexes = new TreeMap<>();
    /** A sealed manifest's path → its placeholder's inode. */
    final Map<String, Long> placeholderOf;
    final Set<String> named;
    final Map<Long, String> inScope = new TreeMap<>();
    final Map<Long, String> archivedPaths = new HashMap<>();
    final Map<Long, Set<Long>> manifestStripes = new HashMap<>();
    final Set<Long> live = new HashSet<>();
    final List<StripeAudit.Verdict> verdicts = new ArrayList<>();
    final QuotaRoom quotas = new QuotaRoom(dfs);
    int checked;

    Inspection(Path path) throws IOException {
      root = Path.getPathWithoutSchemeAndAuthority(dfs.getFileStatus(path).getPath()).toString();
      String system = Path.getPathWithoutSchemeAndAuthority(store.layout().manifestDir().getParent()).toString();
      everything = root.equals("/");
      walk(path, system, names, pointers, placeholders, findings);
      placeholderOf = sealedIndexes(names, indexes, findings);
      named = new HashSet<>(pointers.values());
    }

    /** The manifests, archive locks, parity and codeword directories in the system directory. */
    void listManifests() throws IOException {
      Path manifestDir = store.layout().manifestDir();
      if (dfs.exists(manifestDir)) {
        for (FileStatus st : dfs.listStatus(manifestDir)) {
          String name = st.getPath().getName();
          Long inode = numericPrefix(name, ".wecm");
          if (inode != null) {
            manifests.put(inode, Path.getPathWithoutSchemeAndAuthority(st.getPath()).toString());
          } else if ((inode = numericPrefix(name, ".lock")) != null) {
            locked.add(inode);
          }
        }
      }
      parityDirs = entries(store.layout().parityRoot(0).getParent());
      codewordDirs = entries(store.layout().codewordRoot(0).getParent());
    }

    /** One manifest: in scope or not, then each of its stripes judged, unless its archive is gone. */
    void audit(long inode, String manifest) throws IOException {
      // A sealed file lives on as its placeholder (a new inode, found through its reader's index and pointer).
      Long placeholder = placeholderOf.get(manifest);
      boolean exists = now(inode) != null || placeholder != null;
      if (exists) {
        live.add(inode);
      }
      boolean ours = everything || names.containsKey(inode) || named.contains(manifest);
      StripeManifest m;
      try {
        m = store.read(new Path(manifest));
      } catch (CorruptManifestException ex) {
        if (ours) {
          inScope.put(inode, manifest);
          findings.add(new Finding(Problem.CORRUPT_MANIFEST, manifest, -1, -1, 0, ex.getMessage()));
        }
        return;
      } catch (FileNotFoundException ex) {
        return; // removed while listed (an unarchive finished)
      }
      if (!ours && !(!exists && under(m.archivedPath(), root))) {
        return;
      }
      inScope.put(inode, manifest);
      archivedPaths.put(inode, m.archivedPath());
      Set<Long> ids = new HashSet<>();
      m.stripes().forEach(s -> ids.add(s.stripeId()));
      manifestStripes.put(inode, ids);
      checked++;
      if (!exists && m.sealed()) {
        live.add(inode); // reported here, not as an archive's orphan: its codewords are the file's only copy
        findings.add(sealedOrphan(inode, manifest, m));
        return;
      }
      if (exists) { // otherwise an orphan: reported with the others, its stripes protect nothing
        auditStripes(inode, manifest, m, placeholder);
      }
    }

    private Finding sealedOrphan(long inode, String manifest, StripeManifest m) {
      return new Finding(Problem.ORPHAN_MANIFEST, manifest, -1, -1, 0, "manifest " + manifest
          + " seals " + m.archivedPath() + ", but no sealed placeholder names it any more (deleted, or replaced by"
          + " another file): its codewords in " + store.layout().codewordRoot(inode) + " are the only copy of those "
          + SealedFiles.length(m) + " bytes; if the deletion was meant, delete the manifest and that directory as an"
          + " HDFS superuser");
    }

    private void auditStripes(long inode, String manifest, StripeManifest m, Long placeholder) throws IOException {
      String current = placeholder != null ? names.getOrDefault(placeholder, m.archivedPath())
          : names.getOrDefault(inode, m.archivedPath());
      if (placeholder != null) {
        findings.addAll(placeholderChanged(current, placeholder, manifest));
      }
      String resume = "rerun 'wide-ec archive " + current + " --code " + m.stripes().get(0).codeSpec() + "' to resume"
          + (locked.contains(inode) ? " (a run holds " + store.layout().manifestDir() + "/" + inode + ".lock: if it is"
              + " still running, let it finish)" : "");
      for (ArchivedStripe s : m.stripes()) {
        try {
          verdicts.add(StripeAudit.audit(manifest, current, s, u -> observe(s, u, names), resume, quotas));
        } catch (java.io.UncheckedIOException ex) {
          throw ex.getCause();
        }
      }
      findings.addAll(unprotected(m, names));
    }

    /** What is left over in scope: parity and codeword directories, indexes and pointers nothing archived needs. */
    void orphans() throws IOException {
      Path parityRoot = store.layout().parityRoot(0).getParent();
      // A sealed placeholder's dangling pointer is judged with its reader's index below, once.
      Map<String, String> plainPointers = new TreeMap<>(pointers);
      placeholders.keySet().forEach(plainPointers::remove);
      findings.addAll(ArchiveOrphans.of(new ArchiveOrphans.Inventory(inScope, archivedPaths, manifestStripes,
          inScope(parityDirs, true), live, plainPointers,
          Path.getPathWithoutSchemeAndAuthority(parityRoot).toString())));
      Path codewordRoot = store.layout().codewordRoot(0).getParent();
      findings.addAll(ArchiveOrphans.sealed(new ArchiveOrphans.SealedInventory(new TreeMap<>(manifests),
          manifestStripes, inScope(codewordDirs, true), inScope(indexes, false), placeholders, pointers,
          Path.getPathWithoutSchemeAndAuthority(codewordRoot).toString())));
    }

    /** The entries of inodes in scope: everything, inodes under the path, and (if asked) inodes of manifests in scope. */
    private <V> Map<Long, V> inScope(Map<Long, V> byInode, boolean withManifests) {
      Map<Long, V> in = new TreeMap<>();
      byInode.forEach((inode, v) -> {
        if (everything || names.containsKey(inode) || (withManifests && inScope.containsKey(inode))) {
          in.put(inode, v);
        }
      });
      return in;
    }
  }


  /** Files and directories under the path (the system directory excluded): current names and pointers. */
  private void walk(Path path, String system, Map<Long, String> names, Map<String, String> pointers,
      Map<String, Long> placeholders, List<Finding> findings) throws IOException {
    java.util.ArrayDeque<FileStatus> todo = new java.util.ArrayDeque<>();
    todo.push(dfs.getFileStatus(path));
    while (!todo.isEmpty()) {
      FileStatus st = todo.pop();
      String name = Path.getPathWithoutSchemeAndAuthority(st.getPath()).toString();
      if (name.equals(system) || name.startsWith(system + "/")) {
        continue;
      }
      if (st instanceof HdfsFileStatus h) {
        names.put(h.getFileId(), name);
        if (SealedFiles.isSealed(h)) {
          placeholders.put(name, h.getFileId());
        }
      } else {
        names.put(store.inodeOf(st.getPath()), name);
      }
      if (st.isDirectory()) {
        for (FileStatus c : dfs.listStatus(st.getPath())) {
          todo.push(c);
        }
      } else if (st.isFile()) {
        try {
          ArchivePointer p = store.pointer(st.getPath());
          if (p != null) {
            pointers.put(name, p.manifestPath());
          }
        } catch (CorruptManifestException e) {
          findings.add(new Finding(Problem.CORRUPT_MANIFEST, name, -1, -1, 0, e.getMessage()));
        }
      }
    }
  }

  /** Entries of each numbered directory under {@code root} (parity or codeword directories), by archived inode. */
  private Map<Long, Set<String>> entries(Path root) throws IOException {
    Map<Long, Set<String>> out = new TreeMap<>();
    if (!dfs.exists(root)) {
      return out;
    }
    for (FileStatus st : dfs.listStatus(root)) {
      Long inode = numericPrefix(st.getPath().getName(), "");
      if (inode != null && st.isDirectory()) {
        Set<String> names = new HashSet<>();
        for (FileStatus e : dfs.listStatus(st.getPath())) {
          names.add(e.getPath().getName());
        }
        out.put(inode, names);
      }
    }
    return out;
  }

  /**
   * Every reader's index and what it leads to: the live sealed placeholder of its inode and the manifest that
   * placeholder's pointer names. Returns manifest path → placeholder inode for the placeholders that name one.
   */
  private Map<String, Long> sealedIndexes(Map<Long, String> names, Map<Long, ArchiveOrphans.SealedIndex> indexes,
      List<Finding> findings) throws IOException {
    Map<String, Long> placeholderOf = new HashMap<>();
    Path dir = store.layout().sealedIndex(0).getParent();
    if (!dfs.exists(dir)) {
      return placeholderOf;
    }
    for (FileStatus st : dfs.listStatus(dir)) {
      Long inode = numericPrefix(st.getPath().getName(), ".wecm");
      if (inode == null) {
        continue; // a temp file of a write in progress (or crashed: the next archive run replaces it)
      }
      String index = Path.getPathWithoutSchemeAndAuthority(st.getPath()).toString();
      FileNow f = now(inode);
      String placeholder = null;
      String pointer = null;
      if (f != null && SealedFiles.isSealed(f.status())) {
        placeholder = names.getOrDefault(inode, "inode " + inode);
        try {
          ArchivePointer p = store.pointer(ArchiveLayout.inodePath(inode));
          pointer = p == null ? null : p.manifestPath();
        } catch (CorruptManifestException e) {
          findings.add(new Finding(Problem.CORRUPT_MANIFEST, placeholder, -1, -1, 0, e.getMessage()));
          continue;
        }
        if (pointer != null) {
          placeholderOf.put(pointer, inode);
        }
      }
      indexes.put(inode, new ArchiveOrphans.SealedIndex(inode, index, placeholder, pointer));
    }
    return placeholderOf;
  }

  /**
   * A placeholder is empty and closed for good: anything else means a stock client opened it for writing (an append
   * or a concat), which the sealed layout does not describe.
   */
  private List<Finding> placeholderChanged(String file, long inode, String manifest) throws IOException {
    FileNow f = now(inode);
    org.apache.hadoop.hdfs.protocol.LocatedBlocks lbs = ListedBlocks.of(dfs, ArchiveLayout.inodePath(inode).toString());
    if (f.status().getLen() == 0 && f.blocks().isEmpty() && (lbs == null || !lbs.isUnderConstruction())) {
      return List.of();
    }
    return List.of(new Finding(Problem.STALE, file, -1, -1, 0, "sealed file " + file + " (manifest " + manifest
        + ") is no longer its empty placeholder: " + f.status().getLen() + " bytes, " + f.blocks().size()
        + " block(s)" + (lbs != null && lbs.isUnderConstruction() ? ", open for writing" : "") + "; its codewords still hold the"
        + " archived bytes (read them with wide-ec's file system, or unarchive after removing what was added)"));
  }

  /** One stored member as the NameNode lists it now. */
  private Observed observe(ArchivedStripe s, int unit, Map<Long, String> names) {
    StripeMember m = s.member(unit);
    String file = m.isParity() ? ArchiveLayout.parityUnit(s.parityFilePath(), unit).toString()
        : names.getOrDefault(m.inodeId(), ArchiveLayout.inodePath(m.inodeId()).toString());
    FileNow f;
    try {
      f = now(m.inodeId());
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    if (f == null) {
      return Observed.gone(file, Presence.FILE_GONE);
    }
    for (LocatedBlock lb : f.blocks()) {
      if (lb.getBlock().getBlockId() == m.blockId()) {
        List<Site> replicas = new ArrayList<>();
        for (DatanodeInfo d : lb.getLocations()) {
          replicas.add(DataNodeSites.of(d));
        }
        return new Observed(file, Presence.PRESENT, lb.getBlock().getGenerationStamp(), lb.getBlock().getNumBytes(),
            replicas, lb.isCorrupt());
      }
    }
    return Observed.gone(file, Presence.BLOCK_GONE);
  }

  /** Blocks of the archive's data files that no stripe holds (appended since it was archived). */
  private List<Finding> unprotected(StripeManifest m, Map<Long, String> names) throws IOException {
    Map<Long, Set<Long>> recorded = new LinkedHashMap<>();
    for (ArchivedStripe s : m.stripes()) {
      for (StripeMember u : s.members()) {
        if (u.role() == UnitRole.DATA && !u.padding()) {
          recorded.computeIfAbsent(u.inodeId(), i -> new HashSet<>()).add(u.blockId());
        }
      }
    }
    List<Finding> out = new ArrayList<>();
    for (Map.Entry<Long, Set<Long>> e : recorded.entrySet()) {
      FileNow f = now(e.getKey());
      if (f == null) {
        continue; // reported stale, member by member
      }
      String file = names.getOrDefault(e.getKey(), ArchiveLayout.inodePath(e.getKey()).toString());
      long[] ids = f.blocks().stream().mapToLong(b -> b.getBlock().getBlockId()).toArray();
      out.addAll(StripeAudit.unprotected(file, e.getValue(), ids, f.status().getReplication()));
    }
    return out;
  }

  private FileNow now(long inode) throws IOException {
    if (files.containsKey(inode)) {
      return files.get(inode);
    }
    org.apache.hadoop.hdfs.protocol.HdfsLocatedFileStatus st = ListedBlocks.status(dfs,
        ArchiveLayout.inodePath(inode).toString());
    FileNow f = st == null ? null
        : new FileNow(st, st.isDirectory() || st.getLocatedBlocks() == null ? List.of()
            : st.getLocatedBlocks().getLocatedBlocks());
    files.put(inode, f);
    return f;
  }

  private static boolean under(String p, String root) {
    return p.equals(root) || p.startsWith(root.endsWith("/") ? root : root + "/");
  }

  /** The number a system file's name starts with ({@code 16386.wecm} → 16386), or null for another name. */
  private static Long numericPrefix(String name, String suffix) {
    if (!name.endsWith(suffix)) {
      return null;
    }
    String digits = name.substring(0, name.length() - suffix.length());
    if (digits.isEmpty() || digits.length() > 18 || !digits.chars().allMatch(Character::isDigit)) {
      return null;
    }
    return Long.parseLong(digits);
  }
}
