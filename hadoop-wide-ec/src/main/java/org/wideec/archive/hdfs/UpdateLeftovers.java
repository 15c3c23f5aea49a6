package org.wideec.archive.hdfs;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.HdfsFileStatus;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.StripeManifest;
import org.wideec.archive.StripeMember;
import org.wideec.archive.StripeState;
import org.wideec.archive.UpdateLifecycle;
import org.wideec.code.UnitRole;

/**
 * What an archive's updates left in HDFS, judged against its current manifest (the one writer holds the lock):
 * pending removals (set-aside members whose stripes still hold them, and members a stock client deleted), parity of
 * a version above the current one (a run stopped before its commit: uncommitted), and parity or set-aside files no
 * stripe of the current version names (superseded by a commit). Nothing is judged by a record of its own: the
 * versioned names and the manifest say it all, so a crash between any two HDFS calls leaves a state this class reads
 * correctly.
 */
final class UpdateLeftovers {
  /** Files deleted, and superseded files kept for the grace period. */
  record Freed(int deleted, int deferred) {}

  private final DistributedFileSystem dfs;
  private final ManifestStore store;
  private final long archive;
  private final StripeManifest current;
  private final Set<Long> pending = new TreeSet<>();
  /** Pending replacements: the replaced member's inode → its replacement's (from the aside file's name). */
  private final java.util.Map<Long, Long> replacements = new java.util.TreeMap<>();
  /** Member files deleted by a stock client (hdfs dfs -rm): pending removals whose old bytes are decoded. */
  private final Set<Long> gone = new TreeSet<>();
  /** Committed replacements, whose new file needs its pointer: replacement inode. */
  private final Set<Long> replacedBy = new TreeSet<>();
  private final List<Path> uncommitted = new ArrayList<>();
  private final List<Path> superseded = new ArrayList<>();

  UpdateLeftovers(DistributedFileSystem dfs, ManifestStore store, long archive, StripeManifest current) {
    this.dfs = dfs;
    this.store = store;
    this.archive = archive;
    this.current = current;
  }

  UpdateLifecycle.Found find() throws IOException {
    return find(false);
  }

  /**
   * What the archive's updates left; with {@code reconcile}, also the members of committed stripes a stock client
   * deleted (one NameNode lookup per member file, so only when asked).
   */
  UpdateLifecycle.Found find(boolean reconcile) throws IOException {
    Set<Long> dataInodes = new HashSet<>();
    Set<Long> parityInodes = new HashSet<>();
    for (ArchivedStripe s : current.stripes()) {
      for (StripeMember m : s.members()) {
        if (!m.padding()) {
          (m.role() == UnitRole.DATA ? dataInodes : parityInodes).add(m.inodeId());
        }
      }
    }
    Path aside = store.layout().asideRoot(archive);
    if (dfs.exists(aside)) {
      for (FileStatus st : dfs.listStatus(aside)) {
        long inode = inode(st.getPath());
        Long replacement = replacementOf(st.getPath().getName());
        if (dataInodes.contains(inode)) {
          pending.add(inode);
          if (replacement != null) {
            replacements.put(inode, replacement);
          }
        } else {
          superseded.add(st.getPath());
          if (replacement != null && dataInodes.contains(replacement)) {
            replacedBy.add(replacement);
          }
        }
      }
    }
    Path parityRoot = store.layout().parityRoot(archive);
    if (dfs.exists(parityRoot)) {
      for (FileStatus stripeDir : dfs.listStatus(parityRoot)) {
        judgeStripeDir(stripeDir.getPath(), parityInodes);
      }
    }
    findGone(reconcile);
    pending.addAll(gone);
    return new UpdateLifecycle.Found(!uncommitted.isEmpty(), !pending.isEmpty(), !superseded.isEmpty());
  }

  /**
   * Members of committed stripes a stock client deleted: of every such stripe when reconciling, else of the stripes an
   * update touches anyway (their parity is rewritten, so the deleted member's bytes come out in the same update).
   */
  private void findGone(boolean reconcile) throws IOException {
    for (ArchivedStripe s : current.stripes()) {
      boolean touched = s.members().stream()
          .anyMatch(m -> m.role() == UnitRole.DATA && !m.padding() && pending.contains(m.inodeId()));
      if ((!reconcile && !touched) || (s.state() != StripeState.COMMITTED && s.state() != StripeState.TRIMMED)) {
        continue; // a stripe not yet protecting anything is the archive run's to judge
      }
      for (StripeMember m : s.members()) {
        if (m.role() == UnitRole.DATA && !m.padding() && !gone.contains(m.inodeId()) && !exists(m.inodeId())) {
          gone.add(m.inodeId()); // deleted behind wide-ec's back: its stripes are re-encoded without it
        }
      }
    }
  }

  /**
   * The units of one stripe directory: a version above the current one is uncommitted; below it, a file no current
   * stripe names was superseded. A stripe still being archived is the archiver's to judge, and a stripe the manifest no
   * longer lists (an update dropped it) is superseded as a whole.
   */
  private void judgeStripeDir(Path dir, Set<Long> parityInodes) throws IOException {
    ArchivedStripe s = stripeOf(dir.getName());
    if (s == null) {
      if (current.version() > 0) {
        superseded.add(dir);
      }
      return;
    }
    boolean committed = s.state() == StripeState.COMMITTED || s.state() == StripeState.TRIMMED;
    for (FileStatus st : dfs.listStatus(dir)) {
      String n = st.getPath().getName();
      long version = n.startsWith("v") && st.isDirectory() ? parseVersion(n) : 0;
      if (version > current.version()) {
        uncommitted.add(st.getPath());
      } else if (version > 0) {
        for (FileStatus unit : dfs.listStatus(st.getPath())) {
          if (!parityInodes.contains(inode(unit.getPath()))) {
            superseded.add(unit.getPath());
          }
        }
      } else if (committed && st.isFile() && !parityInodes.contains(inode(st.getPath()))) {
        superseded.add(st.getPath());
      }
    }
  }

  private ArchivedStripe stripeOf(String dirName) {
    try {
      return current.stripe(Long.parseLong(dirName));
    } catch (NumberFormatException e) {
      return null;
    }
  }

  private static long parseVersion(String name) {
    try {
      return Long.parseLong(name.substring(1));
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  /** The set-aside members still in stripes: the removals (and replacements) the next commit applies. */
  Set<Long> pendingInodes() {
    return pending;
  }

  /** Member files a stock client deleted, among {@link #pendingInodes}. */
  Set<Long> goneInodes() {
    return gone;
  }

  /** Pending replacements: replaced member inode → replacement inode. */
  java.util.Map<Long, Long> replacements() {
    return replacements;
  }

  /** Replacement files a committed version holds as members (each needs the archive's pointer). */
  Set<Long> committedReplacements() {
    return replacedBy;
  }

  /** The replacement inode an aside name records ({@code <inode>.by.<replacement>}), or null for a removal. */
  static Long replacementOf(String asideName) {
    int by = asideName.indexOf(".by.");
    if (by < 0) {
      return null;
    }
    try {
      return Long.parseLong(asideName.substring(by + 4));
    } catch (NumberFormatException e) {
      return null;
    }
  }

  /** Deletes the uncommitted parity; how many version directories went. */
  int rollBack() throws IOException {
    for (Path p : uncommitted) {
      if (!dfs.delete(p, true) && dfs.exists(p)) {
        throw new IOException("cannot delete the uncommitted parity " + p + "; rerun to roll back");
      }
    }
    return uncommitted.size();
  }

  /**
   * Deletes what the current version superseded when {@code due}; otherwise counts it as kept. An archive left with no
   * stripe (its last member removed) is forgotten too: its parity and aside directories, then its manifest last.
   */
  Freed free(boolean due) throws IOException {
    if (!due) {
      return new Freed(0, superseded.size());
    }
    for (Path p : superseded) {
      store.checkHeld(archive, "deleting the superseded " + p);
      dfs.delete(p, true);
    }
    if (current.stripes().isEmpty()) {
      store.checkHeld(archive, "deleting the manifest of " + current.archivedPath() + ", which has no stripe left");
      dfs.delete(store.layout().parityRoot(archive), true);
      dfs.delete(store.layout().asideRoot(archive), true);
      dfs.delete(store.layout().manifest(archive), false);
    }
    return new Freed(superseded.size(), 0);
  }

  private boolean exists(long inode) throws IOException {
    try {
      return dfs.getClient().getFileInfo(ArchiveLayout.inodePath(inode).toString()) != null;
    } catch (java.io.FileNotFoundException e) {
      return false; // an inode path of a deleted file is "not found"
    }
  }

  private long inode(Path p) throws IOException {
    HdfsFileStatus st = dfs.getClient().getFileInfo(Path.getPathWithoutSchemeAndAuthority(p).toString());
    if (st == null) {
      throw new IOException(p + " vanished while the update's leftovers were listed");
    }
    return st.getFileId();
  }
}
