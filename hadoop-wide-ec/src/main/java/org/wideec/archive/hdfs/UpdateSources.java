package org.wideec.archive.hdfs;

import java.io.IOException;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.HdfsConstants;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedBlocks;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.StripeMember;
import org.wideec.archive.StripeUpdate;

/**
 * The replicas the DataNodes read for one stripe update, by unit: the node holding each (where its role runs, since
 * every role reads locally), and the data files' largest block size (the new parity files take it). A fill's slot has
 * no old block (its role runs where its new block is), and a parity it brings on none either (its role runs on its
 * planned node, else on a live DataNode of its planned rack).
 */
final class UpdateSources {
  private static final Logger LOG = LoggerFactory.getLogger(UpdateSources.class);
  final Map<Integer, LocatedBlock> old = new HashMap<>();
  final Map<Integer, DatanodeInfo> holder = new HashMap<>();
  final Map<Integer, LocatedBlock> replacement = new HashMap<>();
  long blockSize;
  /** Why a replacement could not be read beside the block it replaces, or null. */
  String unplaced;

  private UpdateSources() {}

  /**
   * The stored units' replicas the roles of {@code up} read, without changing anything: each data unit's (the plan's
   * kept one where it is) and each rewritten parity's old block (on its planned node where it is there). What a dry
   * run plans from, so its plan counts the racks the run's deltas cross ({@link #readRacks}).
   */
  static UpdateSources located(DistributedFileSystem dfs, StripeUpdate up, Set<Long> gone) throws IOException {
    ArchivedStripe s = up.before();
    UpdateSources at = new UpdateSources();
    List<StripeData.Unit> data = StripeData.locate(dfs, s, gone); // checks every data block is the one archived
    Map<Integer, DatanodeInfo> holders = StripeData.readHolders(s, data);
    for (StripeData.Unit d : data) {
      at.blockSize = Math.max(at.blockSize, d.fileBlockSize());
      at.old.put(d.unit(), d.block());
      at.holder.put(d.unit(), holders.get(d.unit()));
    }
    for (int u : up.rewrittenParities()) {
      if (s.member(u).padding()) {
        continue; // a parity a fill brings on: no old block; its role's node is chosen by placing
      }
      LocatedBlocks lbs = dfs.getClient().getLocatedBlocks(ArchiveLayout.inodePath(s.member(u).inodeId()).toString(),
          0, s.unitLength());
      if (lbs.getLocatedBlocks().size() != 1 || lbs.getLocatedBlocks().get(0).getLocations().length == 0) {
        throw new IOException("stripe " + s.stripeId() + " parity unit " + u + " (inode " + s.member(u).inodeId()
            + "): should be one block with a live replica, HDFS lists " + lbs.getLocatedBlocks().size() + " block(s)");
      }
      LocatedBlock lb = lbs.getLocatedBlocks().get(0);
      at.old.put(u, lb);
      DatanodeInfo pick = lb.getLocations()[0];
      for (DatanodeInfo dn : lb.getLocations()) {
        pick = dn.getXferAddr().equals(s.member(u).plannedNode()) ? dn : pick;
      }
      at.holder.put(u, pick);
    }
    return at;
  }

  /** The rack each located stored unit is read in, by unit ({@link StripeUpdate#pattern(Map)}). */
  Map<Integer, String> readRacks() {
    Map<Integer, String> out = new HashMap<>();
    holder.forEach((u, dn) -> out.put(u, dn.getNetworkLocation()));
    return out;
  }

  /**
   * The rest of what the roles read, placed for them: each replacement copied beside the block it replaces, each
   * filled slot's new block, and the node computing each parity a fill brings on.
   */
  UpdateSources placing(DistributedFileSystem dfs, StripeUpdate up, Supplier<BlockMover> mover) throws IOException {
    ArchivedStripe s = up.before();
    UpdateSources at = this;
    for (int u : up.changedUnits()) {
      StripeMember next = up.after(u);
      if (next.padding()) {
        continue;
      }
      if (s.member(u).padding()) { // a filled slot: no old block, its delta is the new block where the plan put it
        LocatedBlock b = ParityDeltaWriter.replacementBlock(dfs, s, u, next);
        at.replacement.put(u, b);
        at.holder.put(u, onPlan(b.getLocations(), next));
        if (at.holder.get(u) == null) {
          at.unplaced = "the block filling unit " + u + " (block " + next.blockId() + ") has no live replica";
        }
        continue;
      }
      LocatedBlock b = besideOld(dfs, s, u, next, at.holder.get(u), mover);
      if (b == null) {
        at.unplaced = "the replacement of unit " + u + " (block " + next.blockId() + ") could not be brought onto "
            + at.holder.get(u).getXferAddr() + ", which holds the block it replaces";
      }
      at.replacement.put(u, b);
    }
    DatanodeInfo[] live = null;
    for (int u : up.rewrittenParities()) {
      if (s.member(u).padding()) {
        live = live != null ? live : dfs.getDataNodeStats(HdfsConstants.DatanodeReportType.LIVE);
        DatanodeInfo dn = onPlan(live, up.after(u));
        if (dn == null || !dn.getNetworkLocation().equals(up.after(u).plannedRack())) {
          at.unplaced = "parity unit " + u + " comes on in rack " + up.after(u).plannedRack() + ", where no DataNode"
              + " is live to compute it";
        }
        at.holder.put(u, dn);
      }
    }
    return at;
  }

  /** The replica on the member's planned node, else one in its planned rack, else the first; null when none. */
  private static DatanodeInfo onPlan(DatanodeInfo[] locations, StripeMember m) {
    DatanodeInfo pick = null;
    for (DatanodeInfo dn : locations) {
      if (dn.getXferAddr().equals(m.plannedNode())) {
        return dn;
      }
      if (pick == null && dn.getNetworkLocation().equals(m.plannedRack())) {
        pick = dn;
      }
    }
    return pick != null || locations.length == 0 ? pick : locations[0];
  }

  /**
   * The replacement block of unit {@code u} with a replica on the holder of the block it replaces, so its node
   * computes old XOR new from local reads: copied there first when the writer's client put it elsewhere, as the
   * Balancer moves a block ({@link BlockMover}; the stripe's plan puts the unit on that node anyway, so the copy is
   * the one the placement keeper would make after the commit). Null when no copy could be made (the reason logged).
   */
  private static LocatedBlock besideOld(DistributedFileSystem dfs, ArchivedStripe s, int u, StripeMember next,
      DatanodeInfo holder, Supplier<BlockMover> mover) throws IOException {
    LocatedBlock b = ParityDeltaWriter.replacementBlock(dfs, s, u, next);
    String file = ArchiveLayout.inodePath(next.inodeId()).toString();
    for (BlockMover.Move m : BlockMover.candidates(file, b, holder, null)) {
      try {
        mover.get().move(m);
        return ParityDeltaWriter.replacementBlock(dfs, s, u, next);
      } catch (IOException e) {
        LOG.warn("stripe {} unit {}: could not copy its replacement block onto {}: {}", s.stripeId(), u,
            holder.getXferAddr(), e.getMessage());
      }
    }
    return Arrays.stream(b.getLocations()).anyMatch(l -> l.getXferAddr().equals(holder.getXferAddr())) ? b : null;
  }
}
