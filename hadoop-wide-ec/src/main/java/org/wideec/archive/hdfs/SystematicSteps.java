package org.wideec.archive.hdfs;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.zip.CRC32C;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedBlocks;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.wideec.archive.ArchivePointer;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.StripeLayout;
import org.wideec.archive.StripeLifecycle;
import org.wideec.archive.StripeMember;
import org.wideec.code.UnitRole;

/**
 * The systematic layout's steps (DESIGN.md §3.2): the file's own blocks are the data units, the parity is written
 * beside them, a file takes part in its archive through its pointer xattr once all its stripes are committed, and a
 * chain encoder gets the plan's blocks moved onto their planned nodes first.
 */
final class SystematicSteps implements LayoutSteps {
  private static final Logger LOG = LoggerFactory.getLogger(SystematicSteps.class);
  private static final int READ_CHUNK = 1 << 20;

  private final DistributedFileSystem dfs;
  private final ManifestRecorder rec;
  private final StripeEncoder encoder;
  private final PlanMoves moves;
  private final Path path;
  private final List<String> moved = new ArrayList<>();
  private final List<String> encodedOffPlan = java.util.Collections.synchronizedList(new ArrayList<>());
  private Map<Long, String> paths;
  private volatile java.util.function.Consumer<Set<Long>> tookEffect = files -> { };

  SystematicSteps(DistributedFileSystem dfs, ManifestRecorder rec, StripeEncoder encoder, PlanMoves moves, Path path) {
    this.dfs = dfs;
    this.rec = rec;
    this.encoder = encoder;
    this.moves = moves;
    this.path = path;
  }

  /** Told, after their pointers are set, of the files whose stripes are now all committed. */
  void whenFilesTakeEffect(java.util.function.Consumer<Set<Long>> told) {
    tookEffect = told;
  }

  @Override
  public StripeLayout layout() {
    return StripeLayout.SYSTEMATIC;
  }

  @Override
  public StripeEncoder encoder() {
    return encoder;
  }

  /** Data blocks copied onto their planned node before an encoder that reads the kept replicas ran. */
  List<String> moved() {
    return moved;
  }

  /** Data blocks such an encoder read off their planned node, as they could not be moved there. */
  List<String> encodedOffPlan() {
    return encodedOffPlan;
  }

  @Override
  public void checkUnchanged(ArchivedStripe s) throws IOException {
    StripeData.locate(dfs, s); // throws StaleStripeException when a data block changed
  }

  /**
   * ECWide §4.2: a chain runs where the kept replicas will be, unless it costs less in a core rack (then it reads the
   * replicas there and the moves wait for the trim). So before such an encoder reads a PLANNED stripe, each
   * data block whose planned node holds no replica gets one copied there (the plan's moves, which the trim would
   * otherwise make later; the NameNode drops the source's copy, so the block keeps its replication and nothing is
   * deleted by us), and the chain that runs is the one {@code archive --dry-run} costed. The stripe stays PLANNED
   * throughout: a crash mid-move leaves blocks on or off plan, both valid, and the rerun moves what is left. A block
   * that cannot be moved is read where it is: one line in {@code encodedOffPlan}, naming it and why. Stripes archived
   * at once make their moves at once (each move waits seconds for the NameNode, so one stripe's moves at a time
   * would put the stripes one after another again).
   */
  @Override
  public void prepareEncode(ArchivedStripe s) throws IOException {
    if (!encoder.readsPlannedHolders(s)) {
      return;
    }
    List<StripeMember> toMove = moves.notOnPlannedNode(List.of(s));
    if (toMove.isEmpty()) {
      return;
    }
    Map<Long, String> paths = paths();
    Map<Long, String> failed = moves.moveOntoPlan(toMove, paths, moved);
    for (StripeMember m : toMove) {
      String why = failed.get(m.blockId());
      if (why != null) {
        String line = paths.getOrDefault(m.inodeId(), "inode " + m.inodeId()) + " block blk_" + m.blockId()
            + " (stripe " + s.stripeId() + "): not moved onto its planned node " + m.plannedNode() + " before the "
            + encoder.name() + " encode (" + why + "), so it was read where it is";
        LOG.warn("{}", line);
        encodedOffPlan.add(line);
      }
    }
  }

  /** The archive's files by inode, looked up on the first move. */
  synchronized Map<Long, String> paths() throws IOException {
    paths = paths == null ? moves.currentPaths(path) : paths;
    return paths;
  }

  /**
   * Each parity block is still the one recorded and its bytes match the recorded CRC32C: read back by its holder when
   * the encoder reaches the slice ports (the chain), else through HDFS by this archiver.
   */
  @Override
  public void verifyUnits(ArchivedStripe s) throws IOException {
    for (int u = s.code().k(); u < s.code().n(); u++) {
      StripeMember m = s.member(u);
      if (m.padding()) {
        continue;
      }
      Path file = ArchiveLayout.parityUnit(s.parityFilePath(), u);
      String where = "stripe " + s.stripeId() + " unit " + u + " (" + file + ")";
      LocatedBlocks lbs = dfs.getClient().getLocatedBlocks(file.toString(), 0, m.length());
      List<LocatedBlock> blocks = lbs.getLocatedBlocks();
      if (blocks.size() != 1 || blocks.get(0).getBlock().getBlockId() != m.blockId()
          || blocks.get(0).getBlock().getGenerationStamp() != m.generationStamp() || lbs.getFileLength() != m.length()) {
        throw new IOException(where + ": the parity file is not the block " + m.blockId() + " of " + m.length()
            + " bytes the manifest records; rerun to encode the stripe again");
      }
      java.util.OptionalLong held = encoder.heldCrc(blocks.get(0), where);
      long crc = held.isPresent() ? held.getAsLong() : crcOf(file, m.length());
      if (crc != m.crc32c()) {
        throw new IOException(where + ": CRC32C read back 0x" + Long.toHexString(crc) + ", written 0x"
            + Long.toHexString(m.crc32c()) + "; rerun to encode the stripe again");
      }
    }
  }

  private long crcOf(Path file, long length) throws IOException {
    CRC32C crc = new CRC32C();
    byte[] buf = new byte[(int) Math.min(READ_CHUNK, Math.max(1, length))];
    try (FSDataInputStream in = dfs.open(file)) {
      for (long pos = 0; pos < length; pos += buf.length) {
        int len = (int) Math.min(buf.length, length - pos);
        in.readFully(pos, buf, 0, len);
        crc.update(buf, 0, len);
      }
    }
    return crc.getValue();
  }

  /**
   * Sets the pointer on each file of the stripe whose stripes are all committed (DESIGN.md §3.2); set again on a
   * rerun, as a crash may have come between the record and the xattr.
   */
  @Override
  public void afterCommit(ArchivedStripe s) throws IOException {
    Set<Long> inodes = new LinkedHashSet<>();
    for (StripeMember m : s.members()) {
      if (m.role() == UnitRole.DATA && !m.padding()) {
        inodes.add(m.inodeId());
      }
    }
    Path manifestPath = rec.store().layout().manifest(rec.archiveInode());
    Set<Long> inEffect = new LinkedHashSet<>();
    for (long inode : inodes) {
      if (StripeLifecycle.mayTakeEffect(rec.manifest(), inode)) {
        rec.checkHeld("setting the pointer of " + ArchiveLayout.inodePath(inode));
        rec.store().setPointer(inode, new ArchivePointer(manifestPath.toUri().getPath(),
            rec.manifest().stripesOf(inode)));
        inEffect.add(inode);
      }
    }
    tookEffect.accept(inEffect);
  }

  @Override
  public void deleteUnits(List<ArchivedStripe> stale) throws IOException {
    for (ArchivedStripe s : stale) {
      if (!s.parityFilePath().isEmpty()) {
        rec.checkHeld("deleting the parity " + s.parityFilePath());
        dfs.delete(new Path(s.parityFilePath()), true);
      }
    }
  }
}
