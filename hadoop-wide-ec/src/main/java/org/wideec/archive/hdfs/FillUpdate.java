package org.wideec.archive.hdfs;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.HdfsFileStatus;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.wideec.archive.ArchivePointer;
import org.wideec.archive.ArchiveScope;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.SourceFile;
import org.wideec.archive.StripeFill;
import org.wideec.archive.StripeManifest;
import org.wideec.archive.StripeMember;
import org.wideec.archive.StripeState;
import org.wideec.archive.StripeUpdate;
import org.wideec.code.UnitRole;

/**
 * {@code wide-ec archive --fill DIR}: files added to an archived directory later are archived into the virtual data
 * slots of its stripes ({@link StripeFill}) by parity updates ({@link ParityUpdater#fill}: the same locked, verified,
 * crash-safe steps as a removal). Under the archive's lock, each new block is first moved onto its slot's planned
 * node (the Balancer's way, as before an encode: {@link PlanMoves}); the next manifest version names the new members;
 * only after that commit does each filled file get its archive pointer and go down to its planned replica (the
 * archival trim, {@link StripeTrim}), so a stripe never protects less than before. A rerun finishes a crashed run:
 * before the commit it is rolled back and planned again, after it the pointers and the trim are redone.
 */
public final class FillUpdate {
  private static final Logger LOG = LoggerFactory.getLogger(FillUpdate.class);

  /**
   * What a fill did.
   *
   * @param update the parity update's run (version, stripes updated, parity written, rolled back, freed)
   * @param filled the files archived into slots
   * @param left path → why it stays replicated, for a normal {@code wide-ec archive}
   * @param trimmed the trim after the commit, null when not asked for
   */
  public record Result(ParityUpdater.Result update, List<String> filled, Map<String, String> left,
      Archiver.TrimResult trimmed) {}

  /** What a fill would do ({@code --dry-run}): the stripe updates, the files they take and those left. */
  public record Preview(StripeManifest manifest, List<StripeUpdate> updates, List<String> filled,
      Map<String, String> left) {}

  private final DistributedFileSystem dfs;
  private final ManifestStore store;
  private final ParityUpdater updater;

  public FillUpdate(DistributedFileSystem dfs, ManifestStore store, ParityUpdater updater) {
    this.dfs = dfs;
    this.store = store;
    this.updater = updater;
  }

  /** Fills the open slots of the archived directory {@code dir}, then (with {@code trim}) trims the filled files. */
  public Result fill(Path dir, boolean trim) throws IOException {
    long archive = checkedArchive(dir);
    Planned[] planned = {null};
    ParityUpdater.Result r;
    try (BlockMover mover = new BlockMover(dfs)) { // its NameNode proxy and keys are made on the first move
      PlanMoves moves = new PlanMoves(dfs, mover);
      r = updater.fill(archive, current -> {
        pointMembers(archive, current); // a crashed run's committed fill rolls forward
        planned[0] = plan(dir, current);
        moveOntoSlots(dir, planned[0].fill(), moves);
        return updates(current, planned[0].fill());
      });
    }
    StripeManifest now = store.find(archive);
    pointMembers(archive, now);
    Archiver.TrimResult t = null;
    if (trim) {
      t = new Archiver(dfs, store, ClientClassicEncoder.from(dfs), Archiver.Hook.NONE, Archiver.Listener.NONE)
          .trim(dir, Archiver.TrimProgress.NONE);
    }
    List<String> filled = planned[0].filled();
    LOG.info("fill of {}: {} files archived into open slots (manifest version {}), {} left", dir, filled.size(),
        r.version(), planned[0].left().size());
    return new Result(r, filled, planned[0].left(), t);
  }

  /** The fill's stripe updates, changing nothing. */
  public Preview preview(Path dir) throws IOException {
    long archive = checkedArchive(dir);
    StripeManifest current = store.find(archive);
    Planned p = plan(dir, current);
    return new Preview(current, updates(current, p.fill()), p.filled(), p.left());
  }

  /** The archive's inode, after refusing what a fill cannot take: no manifest, a single file's, a sealed one. */
  private long checkedArchive(Path dir) throws IOException {
    String name = Path.getPathWithoutSchemeAndAuthority(dir).toString();
    HdfsFileStatus st = fileInfo(name);
    StripeManifest m = st == null ? null : store.find(st.getFileId());
    if (st != null && (SealedFiles.isSealed(st) || (m != null && m.sealed()))) {
      throw new IOException("fill of " + name + " refused: it is sealed (its stripes hold non-systematic codewords,"
          + " RapidRAID), so no stripe has a data slot a parity update can fill; archive new files on their own");
    }
    long archive = store.inodeOf(dir);
    if (m == null) {
      throw new IOException("fill of " + name + " refused: it is not archived (no manifest "
          + store.layout().manifest(archive).toUri().getPath() + "); archive it first with wide-ec archive " + name
          + " --code SPEC");
    }
    if (m.scope() == ArchiveScope.FILE) {
      throw new IOException("fill of " + name + " refused: it was archived as a single file; --fill takes an archived"
          + " directory, whose stripes new files of the directory can join");
    }
    return archive;
  }

  /**
   * The fill of the directory's new files: closed replicated files in no stripe and carrying no pointer, in path
   * order (as archival orders them). Refused, naming the file, for one still open for write or with another block
   * size than the stripes' (a slot holds one block of the stripe's block size).
   */
  private Planned plan(Path dir, StripeManifest current) throws IOException {
    String name = Path.getPathWithoutSchemeAndAuthority(dir).toString();
    Set<Long> members = new HashSet<>();
    long blockSize = 0;
    for (ArchivedStripe s : current.stripes()) {
      for (StripeMember m : s.members()) {
        if (m.role() == UnitRole.DATA && !m.padding() && members.add(m.inodeId()) && blockSize == 0) {
          HdfsFileStatus st = fileInfo(ArchiveLayout.inodePath(m.inodeId()).toString());
          blockSize = st == null ? 0 : st.getBlockSize();
        }
      }
    }
    ArchivalSource source = new ArchivalSource(dfs);
    List<SourceFile> files = new ArrayList<>();
    Map<String, String> archivedElsewhere = new LinkedHashMap<>();
    for (String p : filesUnder(dir)) {
      HdfsFileStatus st = fileInfo(p);
      if (st == null || members.contains(st.getFileId())) {
        continue;
      }
      if (dfs.getClient().getXAttrs(p).containsKey(ArchivalSource.POINTER_XATTR)) {
        archivedElsewhere.put(p, "it is archived on its own (it carries " + ArchivalSource.POINTER_XATTR + ")");
        continue;
      }
      SourceFile f;
      try {
        f = source.file(p); // refuses a file open for write, or erasure-coded
      } catch (IOException e) {
        throw new IOException("fill of " + name + " refused: " + e.getMessage(), e);
      }
      if (blockSize > 0 && f.blockSize() != blockSize) {
        throw new IOException("fill of " + name + " refused: " + p + " has block size " + f.blockSize() + ", the"
            + " stripes of " + name + " " + blockSize + " (a slot holds one block of the stripes' block size); copy it"
            + " with -D dfs.blocksize=" + blockSize + " or archive it elsewhere");
      }
      files.add(f);
    }
    files.sort(java.util.Comparator.comparing(SourceFile::path));
    StripeFill f = StripeFill.plan(current.stripes(), files, source.liveTopology());
    Map<String, String> left = new LinkedHashMap<>(archivedElsewhere);
    left.putAll(f.left());
    return new Planned(f, left);
  }

  /** The fill and every file of the directory it leaves, with why. */
  private record Planned(StripeFill fill, Map<String, String> left) {
    List<String> filled() {
      return fill.filled().stream().map(SourceFile::path).toList();
    }
  }

  private List<String> filesUnder(Path dir) throws IOException {
    List<String> out = new ArrayList<>();
    for (FileStatus st : dfs.listStatus(dir)) {
      if (st.isDirectory()) {
        out.addAll(filesUnder(st.getPath()));
      } else if (st.isFile()) {
        out.add(Path.getPathWithoutSchemeAndAuthority(st.getPath()).toString());
      }
    }
    return out;
  }

  /**
   * Each planned block not yet on its slot's planned node gets a replica copied there (the NameNode drops the
   * hinted source's, so the file keeps its replication); refused before any parity is written when one cannot be.
   */
  private void moveOntoSlots(Path dir, StripeFill f, PlanMoves moves) throws IOException {
    List<StripeMember> slots = new ArrayList<>();
    Map<Long, String> paths = new java.util.HashMap<>();
    for (long id : f.stripes()) {
      slots.addAll(f.slotsOf(id).values());
    }
    f.filled().forEach(file -> paths.put(file.inodeId(), file.path()));
    Map<Long, List<String>> at = moves.locations(slots);
    List<StripeMember> off = slots.stream()
        .filter(m -> !at.getOrDefault(m.blockId(), List.of()).contains(m.plannedNode())).toList();
    List<String> moved = new ArrayList<>();
    Map<Long, String> failed = moves.moveOntoPlan(off, paths, moved);
    moved.forEach(line -> LOG.info("fill of {}: moved {}", dir, line));
    if (!failed.isEmpty()) {
      Map.Entry<Long, String> e = failed.entrySet().iterator().next();
      throw new IOException("fill of " + Path.getPathWithoutSchemeAndAuthority(dir) + ": block blk_" + e.getKey()
          + " could not be moved onto its slot's planned node: " + e.getValue() + "; no parity was written, rerun"
          + " to retry");
    }
  }

  private static List<StripeUpdate> updates(StripeManifest current, StripeFill f) {
    List<StripeUpdate> out = new ArrayList<>();
    for (long id : f.stripes()) {
      out.add(StripeUpdate.filling(current.stripe(id), f.slotsOf(id), f.paritiesComingOn(id)));
    }
    return out;
  }

  /**
   * Gives each data member without an archive pointer whose stripes are all committed (or trimmed) its pointer: the
   * files a committed fill took. Idempotent, so a rerun after a crash past the commit finishes it, even when a trim
   * ran meanwhile.
   */
  private void pointMembers(long archive, StripeManifest current) throws IOException {
    String manifest = store.layout().manifest(archive).toUri().getPath();
    Map<Long, Boolean> protectedNow = new LinkedHashMap<>();
    for (ArchivedStripe s : current.stripes()) {
      boolean committed = s.state() == StripeState.COMMITTED || s.state() == StripeState.TRIMMED;
      for (StripeMember m : s.members()) {
        if (m.role() == UnitRole.DATA && !m.padding()) {
          protectedNow.merge(m.inodeId(), committed, Boolean::logicalAnd);
        }
      }
    }
    for (Map.Entry<Long, Boolean> e : protectedNow.entrySet()) {
      Path file = ArchiveLayout.inodePath(e.getKey());
      if (e.getValue() && fileInfo(file.toString()) != null && store.pointer(file) == null) {
        store.setPointer(e.getKey(), new ArchivePointer(manifest, current.stripesOf(e.getKey())));
      }
    }
  }

  private HdfsFileStatus fileInfo(String file) throws IOException {
    try {
      return dfs.getClient().getFileInfo(file);
    } catch (java.io.FileNotFoundException e) {
      return null; // an inode path of a deleted file is "not found"
    }
  }
}
