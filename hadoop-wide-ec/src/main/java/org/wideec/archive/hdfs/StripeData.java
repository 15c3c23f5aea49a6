package org.wideec.archive.hdfs;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.HdfsFileStatus;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedBlocks;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.StripeMember;

/**
 * The stored data units of a stripe as they are in HDFS now: for each, the file (reached by inode id, so renames
 * do not matter), the block's offset in it and the file's block size, after checking that the block is still the
 * one the manifest records: same id, generation stamp and length. Anything else (an append or truncate since, the
 * file deleted or overwritten) is a {@link StaleStripeException}: the stripe's parity no longer covers that block.
 */
final class StripeData {
  /** One stored data unit: where its bytes are read from, and the block as the NameNode lists it now. */
  record Unit(int unit, StripeMember member, Path file, long offset, long fileBlockSize, LocatedBlock block) {}

  private StripeData() {}

  static List<Unit> locate(DistributedFileSystem dfs, ArchivedStripe stripe) throws IOException {
    return locate(dfs, stripe, java.util.Set.of());
  }

  /** As {@link #locate(DistributedFileSystem, ArchivedStripe)}, leaving out the data members of {@code gone} inodes. */
  static List<Unit> locate(DistributedFileSystem dfs, ArchivedStripe stripe, java.util.Set<Long> gone)
      throws IOException {
    Map<Long, LocatedBlocks> byInode = new HashMap<>();
    Map<Long, Long> blockSizes = new HashMap<>();
    List<Unit> units = new ArrayList<>();
    for (int u = 0; u < stripe.code().k(); u++) {
      StripeMember m = stripe.member(u);
      if (m.padding() || gone.contains(m.inodeId())) {
        continue;
      }
      String where = "stripe " + stripe.stripeId() + " unit " + u + " (block " + m.blockId() + " of inode "
          + m.inodeId() + ")";
      Path file = ArchiveLayout.inodePath(m.inodeId());
      LocatedBlocks blocks = byInode.get(m.inodeId());
      if (blocks == null) {
        HdfsFileStatus st;
        try {
          st = dfs.getClient().getFileInfo(file.toString());
        } catch (FileNotFoundException e) {
          st = null;
        }
        if (st == null || st.isDirectory()) {
          throw new StaleStripeException(stripe.stripeId(), where + ": the file is gone (deleted or overwritten)");
        }
        blocks = dfs.getClient().getLocatedBlocks(file.toString(), 0, st.getLen());
        byInode.put(m.inodeId(), blocks);
        blockSizes.put(m.inodeId(), st.getBlockSize());
      }
      LocatedBlock found = null;
      for (LocatedBlock lb : blocks.getLocatedBlocks()) {
        if (lb.getBlock().getBlockId() == m.blockId()) {
          found = lb;
        }
      }
      if (found == null) {
        throw new StaleStripeException(stripe.stripeId(), where + ": the file no longer holds that block (truncated"
            + " or rewritten)");
      }
      long gs = found.getBlock().getGenerationStamp();
      long len = found.getBlock().getNumBytes();
      if (gs != m.generationStamp() || len != m.length()) {
        throw new StaleStripeException(stripe.stripeId(), where + ": generation stamp " + gs + " and length " + len
            + " now, the manifest records " + m.generationStamp() + " and " + m.length() + " (appended or truncated"
            + " since it was planned)");
      }
      units.add(new Unit(u, m, file, found.getStartOffset(), blockSizes.get(m.inodeId()), found));
    }
    return units;
  }

  /**
   * The replica each data unit is read from by an encoder that reads on the DataNodes (the chain, ECWide §4.2): the kept replica of the plan where it already is (the trim's moves come
   * later), else one in the unit's planned rack; a unit with neither is read in the rack that already serves most of
   * the stripe's other units (every rack a chain enters costs a stream across); equals are chosen in a fixed order of
   * racks and nodes ({@link #before}), so a dry run and its run read the same racks.
   */
  static Map<Integer, DatanodeInfo> readHolders(ArchivedStripe stripe, List<StripeData.Unit> data)
      throws IOException {
    Map<Integer, DatanodeInfo> out = new HashMap<>();
    Map<String, Integer> perRack = new HashMap<>();
    List<StripeData.Unit> unplaced = new ArrayList<>();
    for (StripeData.Unit d : data) {
      DatanodeInfo[] locs = d.block().getLocations();
      if (locs.length == 0) {
        throw new IOException("stripe " + stripe.stripeId() + " unit " + d.unit() + ": block " + d.member().blockId()
            + " of " + d.file() + " has no live replica to encode from");
      }
      DatanodeInfo pick = null;
      for (DatanodeInfo dn : locs) {
        if (dn.getXferAddr().equals(d.member().plannedNode())) {
          pick = dn;
        }
      }
      for (DatanodeInfo dn : locs) {
        if (pick == null || !pick.getXferAddr().equals(d.member().plannedNode())) {
          pick = dn.getNetworkLocation().equals(d.member().plannedRack()) && before(dn, pick) ? dn : pick;
        }
      }
      if (pick == null) {
        unplaced.add(d);
      } else {
        out.put(d.unit(), pick);
        perRack.merge(pick.getNetworkLocation(), 1, Integer::sum);
      }
    }
    for (StripeData.Unit d : unplaced) {
      DatanodeInfo best = null;
      for (DatanodeInfo dn : d.block().getLocations()) {
        int have = perRack.getOrDefault(dn.getNetworkLocation(), 0);
        int bestHave = best == null ? -1 : perRack.getOrDefault(best.getNetworkLocation(), 0);
        if (have > bestHave || have == bestHave && before(dn, best)) {
          best = dn;
        }
      }
      out.put(d.unit(), best);
      perRack.merge(best.getNetworkLocation(), 1, Integer::sum);
    }
    return out;
  }

  /**
   * Whether {@code a} comes before {@code b} (null: anything does) in a fixed order of racks, then nodes. The NameNode
   * lists the replicas at one distance from a client in a random order, so a choice between equals by listing order
   * could differ between a dry run and its run, and the run's deltas then cross racks its plan did not count.
   */
  private static boolean before(DatanodeInfo a, DatanodeInfo b) {
    if (b == null) {
      return true;
    }
    int byRack = a.getNetworkLocation().compareTo(b.getNetworkLocation());
    return byRack != 0 ? byRack < 0 : a.getXferAddr().compareTo(b.getXferAddr()) < 0;
  }
}
