package org.wideec.archive.hdfs;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.encode.RapidRaidChain;
import org.wideec.archive.encode.RapidRaidChainPlanner;
import org.wideec.archive.encode.RapidRaidPipeline;
import org.wideec.topology.Site;
import org.wideec.topology.hdfs.DataNodeSites;

/**
 * The RapidRAID chain of a sealed stripe over the live replicas, and the source of each copy it needs (RapidRAID §IV:
 * position i reads pieces the node must hold): the part of {@link PipelineCodewordEncoder}'s planning the dry run and
 * the run share, over the same located blocks.
 */
final class RapidRaidChainSources {
  private RapidRaidChainSources() {}

  /** Chains planned again at most this many times, each without one more node a piece could not be copied onto. */
  static final int MAX_REPLANS = 8;

  /** A copy onto a chain node that HDFS cannot make keeping the pieces other positions need. */
  static final class CannotCopy extends IOException {
    final String target;
    final List<String> done;

    CannotCopy(String message, IOException cause, String target, List<String> done) {
      super(message, cause);
      this.target = target;
      this.done = List.copyOf(done);
    }
  }

  /** The chain over the live nodes; a short stripe's virtual pieces are "held" everywhere (zeros need no copy). */
  static RapidRaidChain chainFor(ArchivedStripe s, String name, Map<Integer, LocatedBlock> located,
      Map<String, DatanodeInfo> live) throws IOException {
    List<Site> liveSites = live.values().stream().map(DataNodeSites::of).toList();
    Map<Integer, List<Site>> replicas = new HashMap<>();
    for (int t = 0; t < s.code().k(); t++) {
      LocatedBlock lb = located.get(t);
      replicas.put(t, lb == null ? liveSites
          : java.util.Arrays.stream(lb.getLocations()).map(DataNodeSites::of).toList());
    }
    try {
      return RapidRaidChainPlanner.plan(name, s.code(), replicas, liveSites);
    } catch (IllegalArgumentException e) {
      throw new IOException(e.getMessage(), e);
    }
  }

  /** Chain nodes whose position reads {@code piece}: the copy's source must keep its replica, so never one of them. */
  static Set<String> needing(ArchivedStripe s, RapidRaidChain chain, int piece) {
    Set<String> needing = new HashSet<>();
    int n = s.code().n();
    for (int i = 0; i < n; i++) {
      for (int j : RapidRaidPipeline.piecesAt(n, s.code().k(), i)) {
        if (j == piece) {
          needing.add(chain.site(i).node());
        }
      }
    }
    return needing;
  }

  /**
   * {@code chain} with every copy's source as the run picks it, in the run's order, over the NameNode's view as each
   * copy leaves it: {@link BlockMover#candidates} (a holder in the target's rack when it has one), never a chain node
   * needing the piece, the planner's choice first, else the lowest (rack, node); after each copy the target holds the
   * piece and the source's replica is gone when it was excess (more live replicas than the file's replication), as
   * {@link BlockMover#move} waits for. Pure: the dry run and the run call it on the same blocks.
   *
   * @throws CannotCopy naming the target when no holder qualifies
   */
  static RapidRaidChain withSources(ArchivedStripe s, String name, String path, RapidRaidChain chain,
      Map<Integer, LocatedBlock> located, Map<String, DatanodeInfo> live, short replication) throws CannotCopy {
    Map<Integer, List<DatanodeInfo>> holders = new HashMap<>();
    Map<Integer, List<org.apache.hadoop.fs.StorageType>> types = new HashMap<>();
    List<RapidRaidChain.Move> out = new ArrayList<>();
    for (RapidRaidChain.Move mv : chain.moves()) {
      int piece = mv.piece();
      LocatedBlock lb = located.get(piece);
      if (lb == null) {
        continue; // a virtual piece is never copied (the planner sees it everywhere)
      }
      List<DatanodeInfo> at = holders.computeIfAbsent(piece, j -> {
        List<DatanodeInfo> l = new ArrayList<>(java.util.Arrays.asList(lb.getLocations()));
        l.sort(java.util.Comparator.comparing(DatanodeInfo::getNetworkLocation)
            .thenComparing((DatanodeInfo d) -> d.getXferAddr()));
        return l;
      });
      List<org.apache.hadoop.fs.StorageType> ty = types.computeIfAbsent(piece, j -> {
        List<org.apache.hadoop.fs.StorageType> l = new ArrayList<>();
        for (DatanodeInfo d : at) {
          int i = java.util.Arrays.asList(lb.getLocations()).indexOf(d);
          org.apache.hadoop.fs.StorageType[] st = lb.getStorageTypes();
          l.add(st != null && i >= 0 && i < st.length && st[i] != null ? st[i] : org.apache.hadoop.fs.StorageType.DEFAULT);
        }
        return l;
      });
      DatanodeInfo target = live.get(mv.to().node());
      if (at.stream().anyMatch(d -> d.getXferAddr().equals(mv.to().node()))) {
        continue;
      }
      Set<String> needing = needing(s, chain, piece);
      List<BlockMover.Move> candidates = BlockMover.candidates(path, lb.getBlock(), at.toArray(new DatanodeInfo[0]),
          ty.toArray(new org.apache.hadoop.fs.StorageType[0]), target, mv.from().node()).stream()
          .filter(c -> !needing.contains(c.source().getXferAddr())).toList();
      if (candidates.isEmpty()) {
        throw new CannotCopy(name + " piece " + piece + " (block " + lb.getBlock().getBlockId() + "): cannot copy it"
            + " onto chain node " + mv.to() + ": every holder HDFS would let drop its replica (" + at.stream()
                .map(DatanodeInfo::getXferAddr).toList() + ") is a chain node that needs the piece itself", null,
            mv.to().node(), List.of());
      }
      DatanodeInfo source = candidates.get(0).source();
      out.add(new RapidRaidChain.Move(piece, DataNodeSites.of(source), mv.to()));
      boolean excess = BlockMover.liveReplicas(at) + 1 > replication;
      at.add(target);
      ty.add(candidates.get(0).storageType());
      if (excess) {
        int i = at.indexOf(source);
        at.remove(i);
        ty.remove(i);
      }
    }
    return new RapidRaidChain(chain.sites(), out, chain.rackLossTolerant(), chain.crossRackHops());
  }
}
