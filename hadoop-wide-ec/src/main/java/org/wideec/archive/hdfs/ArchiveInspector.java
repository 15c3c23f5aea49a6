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
    String root = Path.getPathWithoutSchemeAndAuthority(dfs.getFileStatus(path).getPath()).toString();
    String system = Path.getPathWithoutSchemeAndAuthority(store.layout().manifestDir().getParent()).toString();
    boolean everything = root.equals("/");
    List<Finding> findings = new ArrayList<>();
    // The namespace under the path: inode → current path, and each archived file's pointer.
    Map<Long, String> names = new HashMap<>();
    Map<String, String> pointers = new TreeMap<>();
    walk(path, system, names, pointers, findings);

    Map<Long, String> manifests = new TreeMap<>();
    Set<Long> locked = new HashSet<>();
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
    Map<Long, Set<String>> parityDirs = new TreeMap<>();
    Path parityRoot = store.layout().parityRoot(0).getParent();
    if (dfs.exists(parityRoot)) {
      for (FileStatus st : dfs.listStatus(parityRoot)) {
        Long inode = numericPrefix(st.getPath().getName(), "");
        if (inode != null && st.isDirectory()) {
          Set<String> entries = new HashSet<>();
          for (FileStatus e : dfs.listStatus(st.getPath())) {
            entries.add(e.getPath().getName());
          }
          parityDirs.put(inode, entries);
        }
      }
    }
    Set<String> named = new HashSet<>(pointers.values());
    Map<Long, String> inScope = new TreeMap<>();
    Map<Long, String> archivedPaths = new HashMap<>();
    Map<Long, Set<Long>> manifestStripes = new HashMap<>();
    Set<Long> live = new HashSet<>();
    List<StripeAudit.Verdict> verdicts = new ArrayList<>();
    int checked = 0;
    for (Map.Entry<Long, String> e : manifests.entrySet()) {
      long inode = e.getKey();
      boolean exists = now(inode) != null;
      if (exists) {
        live.add(inode);
      }
      boolean ours = everything || names.containsKey(inode) || named.contains(e.getValue());
      StripeManifest m;
      try {
        m = store.read(new Path(e.getValue()));
      } catch (CorruptManifestException ex) {
        if (ours) {
          inScope.put(inode, e.getValue());
          findings.add(new Finding(Problem.CORRUPT_MANIFEST, e.getValue(), -1, -1, 0, ex.getMessage()));
        }
        continue;
      } catch (FileNotFoundException ex) {
        continue; // removed while listed (an unarchive finished)
      }
      if (!ours && !(!exists && under(m.archivedPath(), root))) {
        continue;
      }
      inScope.put(inode, e.getValue());
      archivedPaths.put(inode, m.archivedPath());
      Set<Long> ids = new HashSet<>();
      m.stripes().forEach(s -> ids.add(s.stripeId()));
      manifestStripes.put(inode, ids);
      checked++;
      if (!exists) {
        continue; // an orphan: reported below, its stripes protect nothing
      }
      String current = names.getOrDefault(inode, m.archivedPath());
      String resume = "rerun 'wide-ec archive " + current + " --code " + m.stripes().get(0).codeSpec() + "' to resume"
          + (locked.contains(inode) ? " (a run holds " + manifestDir + "/" + inode + ".lock: if it is still running,"
              + " let it finish)" : "");
      for (ArchivedStripe s : m.stripes()) {
        try {
          verdicts.add(StripeAudit.audit(e.getValue(), current, s, u -> observe(s, u, names), resume));
        } catch (java.io.UncheckedIOException ex) {
          throw ex.getCause();
        }
      }
      findings.addAll(unprotected(m, names));
    }
    Map<Long, Set<String>> parityInScope = new TreeMap<>();
    for (Map.Entry<Long, Set<String>> e : parityDirs.entrySet()) {
      long inode = e.getKey();
      if (everything || inScope.containsKey(inode) || names.containsKey(inode)) {
        parityInScope.put(inode, e.getValue());
      }
    }
    findings.addAll(ArchiveOrphans.of(new ArchiveOrphans.Inventory(inScope, archivedPaths, manifestStripes,
        parityInScope, live, pointers, Path.getPathWithoutSchemeAndAuthority(parityRoot).toString())));
    return new Report(verdicts, findings, checked, null);
  }

  /** Files and directories under the path (the system directory excluded): current names and pointers. */
  private void walk(Path path, String system, Map<Long, String> names, Map<String, String> pointers,
      List<Finding> findings) throws IOException {
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
        List<StripeAudit.Replica> replicas = new ArrayList<>();
        for (DatanodeInfo d : lb.getLocations()) {
          replicas.add(new StripeAudit.Replica(d.getXferAddr(), d.getNetworkLocation()));
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
    String p = ArchiveLayout.inodePath(inode).toString();
    HdfsFileStatus st;
    try {
      st = dfs.getClient().getFileInfo(p);
    } catch (FileNotFoundException e) {
      st = null;
    }
    FileNow f = null;
    if (st != null && !st.isDirectory()) {
      f = new FileNow(st, dfs.getClient().getLocatedBlocks(p, 0, st.getLen()).getLocatedBlocks());
    } else if (st != null) {
      f = new FileNow(st, List.of());
    }
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
