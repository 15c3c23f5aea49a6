package org.wideec.archive.hdfs;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.hadoop.fs.StorageType;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.encode.RapidRaidChain;
import org.wideec.archive.encode.RapidRaidChainPlanner;
import org.wideec.archive.encode.RapidRaidPipeline;
import org.wideec.archive.encode.RapidRaidPlan;
import org.wideec.topology.Site;
import org.wideec.topology.hdfs.DataNodeSites;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The RapidRAID plan of a sealed stripe over the live replicas: the chain where the pieces already are, the source of
 * each copy it needs (RapidRAID §IV: position i reads pieces the node must hold) and the pipeline along it. Planning
 * only, over located blocks it is handed: the dry run prints what it returns, and {@link PipelineCodewordEncoder}
 * runs it, over the same located blocks.
 */
final class RapidRaidChainSources {
  /** The planning lines keep the encoder's logger: they are part of its run as an operator reads the log. */
  private static final Logger LOG = LoggerFactory.getLogger(PipelineCodewordEncoder.class);

  private RapidRaidChainSources() {}

  /** Chains planned again at most this many times, each without one more node a piece could not be copied onto. */
  static final int MAX_REPLANS = 8;

  /** Positions barred from one more node each, at most, before the chain is planned without a node instead. */
  static final int MAX_BARS = 32;

  /** A copy onto a chain node that HDFS cannot make keeping the pieces other positions need. */
  static final class CannotCopy extends IOException {
    final String target;
    /** The chain position the copy was for, -1 when not known (a copy refused at run time). */
    final int position;
    final List<String> done;

    private CannotCopy(String message, IOException cause, String target, int position, List<String> done) {
      super(message, cause);
      this.target = target;
      this.position = position;
      this.done = List.copyOf(done);
    }

    /**
     * Piece {@code piece} of stripe {@code name} cannot be copied onto chain node {@code to}: {@code refused} says why
     * the last source tried failed, or, when null, no holder of {@code holders} qualified as the source;
     * {@code position} is the chain position the copy was for, -1 when not known (a copy refused at run time).
     */
    static CannotCopy onto(String name, int piece, long blockId, Site to, int position, List<String> holders,
        IOException refused, List<String> done) {
      return new CannotCopy(name + " piece " + piece + " (block " + blockId + "): cannot copy it onto chain node " + to
          + (refused != null ? ": " + refused.getMessage() : ": every holder HDFS would let drop its replica ("
              + holders + ") is a chain node that needs the piece itself"), refused, to.node(), position, done);
    }
  }

  /**
   * The chain over the live nodes but {@code leftOut} with each copy's source ({@link #chainWithSources}), and
   * RapidRAID's pipeline along it: what the DataNodes will run (the same planning for the dry run and the run, over
   * the same located blocks).
   *
   * @param path the archived file's path without scheme, as the copies name it to the NameNode
   */
  static RapidRaidPlan plan(ArchivedStripe s, String name, String path, Map<Integer, LocatedBlock> located,
      Map<String, DatanodeInfo> live, Set<String> leftOut, short replication, int sliceBytes, int maxFrameBytes)
      throws IOException {
    long[] lengths = new long[s.code().k()];
    for (int t = 0; t < s.sources().size(); t++) {
      lengths[t] = s.sources().get(t).length();
    }
    RapidRaidChain chain = chainWithSources(s, name, path, located, live, leftOut, replication);
    RapidRaidPlan plan = RapidRaidPlan.pipeline(name, s.code(), chain, lengths, sliceBytes, maxFrameBytes);
    if (plan.unitBytes() != s.unitLength()) {
      throw new IOException(name + ": its pieces make codewords of " + plan.unitBytes() + " bytes, the manifest "
          + s.unitLength());
    }
    return plan;
  }

  /**
   * The chain over the live nodes, each position kept off the nodes {@code barred} names for it where a chain can;
   * a short stripe's virtual pieces are "held" everywhere (zeros need no copy).
   */
  static RapidRaidChain chainFor(ArchivedStripe s, String name, Map<Integer, LocatedBlock> located,
      Map<String, DatanodeInfo> live, Map<Integer, Set<String>> barred) throws IOException {
    List<Site> liveSites = live.values().stream().map(DataNodeSites::of).toList();
    Map<Integer, List<Site>> replicas = new HashMap<>();
    for (int t = 0; t < s.code().k(); t++) {
      LocatedBlock lb = located.get(t);
      replicas.put(t, lb == null ? liveSites : Arrays.stream(lb.getLocations()).map(DataNodeSites::of).toList());
    }
    try {
      return RapidRaidChainPlanner.plan(name, s.code(), replicas, liveSites, barred);
    } catch (IllegalArgumentException e) {
      throw new IOException(e.getMessage(), e);
    }
  }

  /**
   * The sources HDFS would let a copy of {@code piece} come from, but the chain nodes whose position reads the piece:
   * the NameNode drops the source's replica once the copy is reported, and those positions need theirs.
   */
  static List<BlockMover.Move> copySources(ArchivedStripe s, RapidRaidChain chain, int piece,
      List<BlockMover.Move> candidates) {
    Set<String> needing = needing(s, chain, piece);
    return candidates.stream().filter(c -> !needing.contains(c.source().getXferAddr())).toList();
  }

  /**
   * The chain over the live nodes but {@code leftOut}, with every copy's source ({@link #withSources}). A copy with
   * no source HDFS would let drop its replica (the one holder in the target's rack is the other position reading the
   * piece, say) fails for that position on that node only: the position is barred from the node, which stays for the
   * others, and the chain is planned again. Only when every chain needs a barred pairing (or the bars are spent) is
   * the node left out: each node left out is one of the few a chain has to spare (a 16-node chain on 18 nodes failed
   * once three were left out for copies alone).
   */
  static RapidRaidChain chainWithSources(ArchivedStripe s, String name, String path,
      Map<Integer, LocatedBlock> located, Map<String, DatanodeInfo> live, Set<String> leftOut, short replication)
      throws IOException {
    Set<String> out = new HashSet<>(leftOut);
    Map<Integer, Set<String>> barred = new HashMap<>();
    int bars = 0;
    while (true) {
      Map<String, DatanodeInfo> candidates = new LinkedHashMap<>(live);
      candidates.keySet().removeAll(out);
      RapidRaidChain planned;
      try {
        planned = chainFor(s, name, located, candidates, barred);
      } catch (IOException e) {
        if (out.isEmpty()) {
          throw e;
        }
        // Say why the nodes are short: not dead, but left out of this stripe's chain.
        throw new IOException(e.getMessage() + " once " + out.size() + " live nodes were left out of the chain (copies"
            + " they could not take, or left out by the caller): " + new TreeSet<>(out), e);
      }
      try {
        return withSources(s, name, path, planned, located, live, replication);
      } catch (CannotCopy e) {
        if (e.position >= 0 && bars < MAX_BARS && barred.computeIfAbsent(e.position, i -> new HashSet<>())
            .add(e.target)) {
          bars++;
          LOG.debug("{}; planning the chain again with position {} off {}", e.getMessage(), e.position, e.target);
          continue;
        }
        if (out.size() >= MAX_REPLANS || !out.add(e.target)) {
          throw e;
        }
        LOG.info("{}; planning the chain without {}", e.getMessage(), e.target);
      }
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
    Map<Integer, List<StorageType>> types = new HashMap<>();
    List<RapidRaidChain.Move> out = new ArrayList<>();
    for (RapidRaidChain.Move mv : chain.moves()) {
      int piece = mv.piece();
      LocatedBlock lb = located.get(piece);
      if (lb == null) {
        continue; // a virtual piece is never copied (the planner sees it everywhere)
      }
      List<DatanodeInfo> at = holders.computeIfAbsent(piece, j -> {
        List<DatanodeInfo> l = new ArrayList<>(Arrays.asList(lb.getLocations()));
        l.sort(Comparator.comparing(DatanodeInfo::getNetworkLocation)
            .thenComparing((DatanodeInfo d) -> d.getXferAddr()));
        return l;
      });
      List<StorageType> ty = types.computeIfAbsent(piece, j -> {
        List<StorageType> l = new ArrayList<>();
        for (DatanodeInfo d : at) {
          int i = Arrays.asList(lb.getLocations()).indexOf(d);
          StorageType[] st = lb.getStorageTypes();
          l.add(st != null && i >= 0 && i < st.length && st[i] != null ? st[i] : StorageType.DEFAULT);
        }
        return l;
      });
      DatanodeInfo target = live.get(mv.to().node());
      if (at.stream().anyMatch(d -> d.getXferAddr().equals(mv.to().node()))) {
        continue;
      }
      List<BlockMover.Move> candidates = copySources(s, chain, piece, BlockMover.candidates(path, lb.getBlock(),
          at.toArray(new DatanodeInfo[0]), ty.toArray(new StorageType[0]), target, mv.from().node()));
      if (candidates.isEmpty()) {
        throw CannotCopy.onto(name, piece, lb.getBlock().getBlockId(), mv.to(), chain.sites().indexOf(mv.to()),
            at.stream().map(DatanodeInfo::getXferAddr).toList(), null, List.of());
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
