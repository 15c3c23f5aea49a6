package org.wideec.archive.hdfs;

import java.io.IOException;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Random;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.HdfsFileStatus;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedBlocks;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.wideec.archive.ArchivePointer;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.CodewordSubsets;
import org.wideec.archive.SourcePiece;
import org.wideec.archive.StripeLayout;
import org.wideec.archive.StripeLifecycle;
import org.wideec.archive.StripeMember;
import org.wideec.archive.StripeState;
import org.wideec.archive.SymbolDecoder;
import org.wideec.code.LinearCode;
import org.wideec.coder.Kernels;

/**
 * The non-systematic layout's steps (RapidRAID's codewords, DESIGN.md §3.2): every stored unit is a codeword, the
 * file's blocks are its source pieces, and the layout takes effect once every stripe is committed, by swapping a
 * placeholder in for the file ({@link SealSwap}); each stripe is then TRIMMED, which for a sealed file means "the
 * original replicas are gone". Until the swap nothing of the file is touched.
 */
final class NonSystematicSteps implements LayoutSteps {
  private static final Logger LOG = LoggerFactory.getLogger(NonSystematicSteps.class);
  /** Random decodable k-subsets checked per stripe besides the reader's own: subsets the reader never takes. */
  static final int RANDOM_SUBSETS = 2;

  private final DistributedFileSystem dfs;
  private final ManifestRecorder rec;
  private final StripeEncoder encoder;
  private final SealedFiles sealed;
  private final Random random;
  private final Path path;
  private final String name;
  private final SealSwap swap;
  private boolean alreadySealed;

  NonSystematicSteps(DistributedFileSystem dfs, ManifestRecorder rec, StripeEncoder encoder, Random random, Path path,
      String name, boolean alreadySealed, SealedArchiver.SwapHook swapHook) {
    this.dfs = dfs;
    this.rec = rec;
    this.encoder = encoder;
    this.sealed = new SealedFiles(dfs, rec.store().layout());
    this.random = random;
    this.path = path;
    this.name = name;
    this.alreadySealed = alreadySealed;
    this.swap = new SealSwap(dfs, rec.store().layout(), rec.archiveInode(), this::checkUnchanged, swapHook);
  }

  @Override
  public StripeLayout layout() {
    return StripeLayout.NON_SYSTEMATIC;
  }

  @Override
  public StripeEncoder encoder() {
    return encoder;
  }

  @Override
  public boolean unitsOnlyCopy() {
    return alreadySealed;
  }

  @Override
  public void checkUnchanged(ArchivedStripe s) throws IOException {
    checkUnchanged(path, s.stripeId(), false);
  }

  /**
   * Once every stripe is committed, the file is sealed (the placeholder swapped in); a sealed file's stripes are then
   * recorded TRIMMED, after any part of the swap a crash left is finished.
   */
  @Override
  public boolean finish() throws IOException {
    if (StripeLifecycle.allCommitted(rec.manifest()) && !alreadySealed) {
      for (ArchivedStripe s : rec.manifest().stripes()) {
        String notLive = StoredUnits.notLive(dfs, s); // verified maybe runs ago: the original is about to go
        if (notLive != null) {
          // A run that stopped between the swap's renames left the original aside: say where it is, not "whole".
          throw new IOException(dfs.exists(swap.movedOriginal())
              ? "sealing " + name + " stopped in its swap: " + notLive + "; the original is at " + swap.movedOriginal()
                  + " (move it back to " + name + " to cancel, or rerun once the codeword is repaired)"
              : "sealing " + name + " stopped before its swap: " + notLive + "; the file is whole");
        }
      }
      seal();
      alreadySealed = true;
    }
    if (alreadySealed) {
      swap.finishSwap(name);
      for (ArchivedStripe s : rec.manifest().stripes()) {
        if (s.state() == StripeState.COMMITTED) {
          rec.record(s.withState(StripeState.TRIMMED));
        }
      }
    }
    return alreadySealed;
  }

  /** Nothing of the file was replaced yet: it keeps every replica, so its codewords protect nothing and go. */
  @Override
  public void deleteUnits(List<ArchivedStripe> stale) throws IOException {
    if (dfs.exists(swap.movedOriginal())) {
      throw new IOException(name + ": the original is still at " + swap.movedOriginal() + "; move it back to " + name
          + " and rerun (its codewords are kept)");
    }
    rec.checkHeld("deleting the codewords " + rec.store().layout().codewordRoot(rec.archiveInode()));
    dfs.delete(rec.store().layout().codewordRoot(rec.archiveInode()), true);
  }

  /**
   * The file's blocks are still exactly the planned pieces (ids, generation stamps, lengths), else STALE.
   * {@code leaseHeld}: this run holds the file open for append (without a new
   * block yet), so "open for writing" is its own doing and not a change.
   */
  void checkUnchanged(Path path, long stripeId, boolean leaseHeld) throws IOException {
    String name = Path.getPathWithoutSchemeAndAuthority(path).toString();
    HdfsFileStatus st = dfs.getClient().getFileInfo(name);
    List<SourcePiece> pieces = rec.manifest().stripes().stream().flatMap(s -> s.sources().stream()).toList();
    String why = null;
    if (st == null || st.getFileId() != rec.archiveInode()) {
      why = name + " is no longer the file archived (inode " + rec.archiveInode() + ")";
    } else {
      LocatedBlocks lbs = dfs.getClient().getLocatedBlocks(name, 0, Math.max(1, st.getLen()));
      List<LocatedBlock> blocks = lbs.getLocatedBlocks();
      boolean open = lbs.isUnderConstruction() && !leaseHeld;
      if (open || blocks.size() != pieces.size()) {
        why = name + " has " + blocks.size() + " blocks" + (open ? " and is open for writing" : "")
            + ", the manifest " + pieces.size() + " pieces";
      } else {
        for (int i = 0; i < blocks.size() && why == null; i++) {
          LocatedBlock b = blocks.get(i);
          SourcePiece p = pieces.get(i);
          if (b.getBlock().getBlockId() != p.blockId() || b.getBlock().getGenerationStamp() != p.generationStamp()
              || b.getBlock().getNumBytes() != p.length()) {
            why = name + " block " + i + " is blk_" + b.getBlock().getBlockId() + "_" + b.getBlock().getGenerationStamp()
                + " of " + b.getBlock().getNumBytes() + " bytes, the manifest has blk_" + p.blockId() + "_"
                + p.generationStamp() + " of " + p.length();
          }
        }
      }
    }
    if (why != null) {
      throw new StaleStripeException(stripeId, "stripe " + stripeId + ": " + why + " (changed since it was planned)");
    }
  }

  /**
   * VERIFIED: each codeword file is still the recorded block and reads back to its CRC32C; the reader's k-subset
   * and {@link #RANDOM_SUBSETS} random decodable ones each decode every piece to its CRC32C, all in one read of the
   * stripe.
   */
  @Override
  public void verifyUnits(ArchivedStripe s) throws IOException {
    LinearCode code = s.code();
    for (int i = 0; i < code.n(); i++) {
      StripeMember m = s.member(i);
      Path file = CodewordFiles.file(s, i);
      String where = "stripe " + s.stripeId() + " codeword " + i + " (" + file + ")";
      LocatedBlocks lbs = dfs.getClient().getLocatedBlocks(file.toString(), 0, Math.max(1, m.length()));
      if (lbs.getLocatedBlocks().size() != 1 || lbs.get(0).getBlock().getBlockId() != m.blockId()
          || lbs.get(0).getBlock().getGenerationStamp() != m.generationStamp() || lbs.getFileLength() != m.length()) {
        throw new IOException(where + ": not the block " + m.blockId() + " of " + m.length() + " bytes the manifest"
            + " records; rerun to encode the stripe again");
      }
    }
    SealedStripeReader reader = new SealedStripeReader(dfs, s, new SymbolDecoder(code, Kernels.best()));
    try {
      BitSet all = new BitSet();
      all.set(0, code.n());
      int[] preferred = CodewordSubsets.basis(code, all);
      List<int[]> subsets = new ArrayList<>();
      subsets.add(preferred);
      subsets.addAll(CodewordSubsets.randomDecodable(code, random, RANDOM_SUBSETS, preferred));
      SealedStripeReader.Readback back = reader.readBack(subsets);
      long[] crcs = back.codewordCrcs();
      for (int i = 0; i < code.n(); i++) {
        if (crcs[i] != s.member(i).crc32c()) {
          throw new IOException("stripe " + s.stripeId() + " codeword " + i + ": CRC32C read back 0x"
              + Long.toHexString(crcs[i]) + ", written 0x" + Long.toHexString(s.member(i).crc32c())
              + "; rerun to encode the stripe again");
        }
      }
      for (int u = 0; u < subsets.size(); u++) {
        int[] units = subsets.get(u);
        long[] pieces = back.pieceCrcs().get(u);
        for (int t = 0; t < s.sources().size(); t++) {
          if (pieces[t] != s.sources().get(t).crc32c()) {
            throw new IOException("stripe " + s.stripeId() + ": codewords " + java.util.Arrays.toString(units)
                + " decode piece " + t + " (block " + s.sources().get(t).blockId() + ") to CRC32C 0x"
                + Long.toHexString(pieces[t]) + ", the file's is 0x" + Long.toHexString(s.sources().get(t).crc32c())
                + "; rerun to encode the stripe again");
          }
        }
      }
      LOG.info("stripe {}: {} codewords read back, {} k-subsets decoded to every piece's CRC32C", s.stripeId(),
          code.n(), subsets.size());
    } finally {
      reader.close();
    }
  }

  /** Replaces the file by its placeholder: the step that makes the archival take effect. */
  private void seal() throws IOException {
    sealed.checkNoZoneNorSnapshot(name); // again: a snapshot may have been taken while the stripes encoded
    Path tmp = new Path(rec.store().layout().codewordRoot(rec.archiveInode()), "placeholder");
    HdfsFileStatus leftover = dfs.getClient().getFileInfo(tmp.toString());
    if (leftover != null) { // an earlier run stopped before its rename
      dfs.delete(rec.store().layout().sealedIndex(leftover.getFileId()), false);
      dfs.delete(tmp, false);
    }
    HdfsFileStatus placeholder = sealed.createPlaceholder(tmp);
    sealed.writeIndex(placeholder.getFileId(), rec.manifest());
    // The parts are the superuser's alone and linked to the placeholder before it takes the path: from the rename on,
    // whoever may read the path reads them (through the NameNode plugin), and nobody else.
    sealed.privatize(rec.archiveInode(), placeholder.getFileId());
    long[] ids = rec.manifest().stripes().stream().mapToLong(ArchivedStripe::stripeId).toArray();
    rec.store().setPointer(placeholder.getFileId(),
        new ArchivePointer(rec.store().layout().manifest(rec.archiveInode()).toUri().getPath(), ids));
    swap.swap(path, name, tmp, ids[0]);
    LOG.info("sealed {}: its {} bytes live as {} codewords per stripe in {}", name, SealedFiles.length(rec.manifest()),
        rec.manifest().stripes().get(0).members().size(), rec.store().layout().codewordRoot(rec.archiveInode()));
  }
}
