package org.wideec.archive;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.wideec.topology.Site;

/**
 * Which blocks form which stripe (HDFS-RAID's layout, DESIGN.md §3.2). A file-level archive takes one file's blocks
 * in order, k per stripe, so a file of more than k blocks spans several stripes. A directory-level archive packs
 * the blocks of its files, in the order given (the caller sorts, e.g. by path), end to end into stripes of k, so
 * small files share stripes. Either way only the last stripe is short, and it is padded virtually: its missing
 * data units are zeros that are never stored, which keeps the redundancy at the code's n/k except for that one
 * stripe.
 *
 * <p>{@link ArchiveGrouping#RACKS} takes the same blocks in another order: around core racks (EAR, Li et al., DSN 2015
 * §3). Before archival each block has replicas in two racks (HDFS's default placement), and any replica may feed the
 * chain while only the kept one must sit on the plan; a stripe whose members all have a replica in one rack has its
 * parity computed there, so only the parity's deliveries (about m/k of the data) cross racks instead of a partial
 * sum from nearly every rack. Greedily, the rack holding live replicas of the most blocks not yet grouped is the next
 * stripe's core; its members are taken round-robin over the racks of their other replicas (so the kept replicas can
 * spread over the plan's racks with no move), in file order within each, as many at a time from one such rack as the
 * placement puts data units in one rack (a plan rack of three data units is then filled by three blocks whose other
 * replicas share a real rack, where one at a time left it two and a move); a core rack with fewer than k candidates
 * fills its stripe from the blocks left, in file order. A stripe's members are listed in file order here; the planner
 * may give them other data units (the manifest names each unit's block, so nothing reads a stripe in file order).
 */
final class StripeGrouping {
  private StripeGrouping() {}

  /** The data blocks of each stripe in file order; every list has 1..k blocks, only the last fewer than k. */
  static List<List<DataBlock>> group(String path, ArchiveScope scope, List<SourceFile> files, int k) {
    return group(path, scope, files, k, ArchiveGrouping.FILES, Set.of(), 1);
  }

  /**
   * The data blocks of each stripe, in unit order, grouped by {@code strategy} (FILES or RACKS); every list has 1..k
   * blocks, only the last fewer than k.
   *
   * @param liveNodes the nodes whose replicas can feed an encoder (RACKS only)
   * @param dataPerRack the most data units the placement puts in one rack (RACKS only)
   */
  static List<List<DataBlock>> group(String path, ArchiveScope scope, List<SourceFile> files, int k,
      ArchiveGrouping strategy, Set<String> liveNodes, int dataPerRack) {
    if (scope == ArchiveScope.FILE && files.size() != 1) {
      throw new ArchivalPlanException("a file-level archive takes exactly one file, got " + files.size()
          + " (archive their directory to pack many files into stripes)");
    }
    String under = path.endsWith("/") ? path : path + "/";
    for (SourceFile f : files) {
      boolean inside = scope == ArchiveScope.FILE ? f.path().equals(path) : f.path().startsWith(under);
      if (!inside) {
        throw new ArchivalPlanException(f.path() + " is not " + (scope == ArchiveScope.FILE ? "the archived file "
            : "under the archived directory ") + path);
      }
    }
    Map<Long, String> seenBlocks = new HashMap<>();
    Map<Long, String> seenInodes = new HashMap<>();
    List<DataBlock> all = new ArrayList<>();
    for (SourceFile f : files) {
      String before = seenInodes.putIfAbsent(f.inodeId(), f.path());
      if (before != null) {
        throw new ArchivalPlanException(f.path() + " and " + before + " are the same inode " + f.inodeId());
      }
      for (int i = 0; i < f.blocks().size(); i++) {
        DataBlock b = new DataBlock(f, i);
        String other = seenBlocks.putIfAbsent(b.blockId(), b.describe());
        if (other != null) {
          throw new ArchivalPlanException(b.describe() + " is also " + other);
        }
        all.add(b);
      }
    }
    if (all.isEmpty()) {
      throw new ArchivalPlanException("nothing to archive: " + files.size() + " file(s) without blocks");
    }
    return switch (strategy) {
      case FILES -> inFileOrder(all, k);
      case RACKS -> aroundCoreRacks(all, k, liveNodes, Math.max(1, dataPerRack));
      case AUTO -> throw new IllegalArgumentException("AUTO is the planner's choice between FILES and RACKS");
    };
  }

  private static List<List<DataBlock>> inFileOrder(List<DataBlock> all, int k) {
    List<List<DataBlock>> stripes = new ArrayList<>();
    for (int from = 0; from < all.size(); from += k) {
      stripes.add(List.copyOf(all.subList(from, Math.min(all.size(), from + k))));
    }
    return stripes;
  }

  /** EAR's core racks, greedily: see the class comment. Blocks are told apart by id (checked unique). */
  private static List<List<DataBlock>> aroundCoreRacks(List<DataBlock> all, int k, Set<String> liveNodes,
      int dataPerRack) {
    Map<Long, Integer> order = new HashMap<>();
    Map<Long, Set<String>> racksOf = new HashMap<>();
    Map<Long, DataBlock> left = new LinkedHashMap<>();
    for (DataBlock b : all) {
      order.put(b.blockId(), order.size());
      Set<String> racks = new TreeSet<>();
      for (Site r : b.block().replicas()) {
        if (liveNodes.contains(r.node())) {
          racks.add(r.rack());
        }
      }
      racksOf.put(b.blockId(), racks);
      left.put(b.blockId(), b);
    }
    List<List<DataBlock>> stripes = new ArrayList<>();
    while (!left.isEmpty()) {
      Map<String, List<DataBlock>> candidates = new TreeMap<>();
      for (DataBlock b : left.values()) {
        for (String rack : racksOf.get(b.blockId())) {
          candidates.computeIfAbsent(rack, r -> new ArrayList<>()).add(b);
        }
      }
      String core = null;
      for (Map.Entry<String, List<DataBlock>> e : candidates.entrySet()) {
        if (core == null || e.getValue().size() > candidates.get(core).size()) {
          core = e.getKey();
        }
      }
      List<DataBlock> stripe = core == null ? new ArrayList<>()
          : spread(candidates.get(core), core, racksOf, k, dataPerRack);
      Set<Long> taken = new java.util.HashSet<>();
      stripe.forEach(b -> taken.add(b.blockId()));
      for (DataBlock b : left.values()) {
        if (stripe.size() >= k) {
          break;
        }
        if (taken.add(b.blockId())) {
          stripe.add(b);
        }
      }
      stripe.sort(java.util.Comparator.comparing(b -> order.get(b.blockId())));
      taken.forEach(left::remove);
      stripes.add(List.copyOf(stripe));
    }
    return stripes;
  }

  /**
   * Up to k of a core rack's candidates, round-robin over the first other rack of each (the core rack itself for a
   * block with no replica elsewhere), in file order within each: the kept replicas then spread over the racks. Whole
   * batches of {@code batch} from one rack first, while some rack has that many and they fit; then one at a time.
   */
  private static List<DataBlock> spread(List<DataBlock> candidates, String core, Map<Long, Set<String>> racksOf,
      int k, int batch) {
    Map<String, java.util.ArrayDeque<DataBlock>> byOther = new TreeMap<>();
    for (DataBlock b : candidates) {
      String other = racksOf.get(b.blockId()).stream().filter(r -> !r.equals(core)).findFirst().orElse(core);
      byOther.computeIfAbsent(other, r -> new java.util.ArrayDeque<>()).add(b);
    }
    List<DataBlock> out = new ArrayList<>();
    for (boolean took = batch > 1; took; ) {
      took = false;
      for (java.util.ArrayDeque<DataBlock> q : byOther.values()) {
        if (q.size() >= batch && out.size() + batch <= k) {
          for (int i = 0; i < batch; i++) {
            out.add(q.poll());
          }
          took = true;
        }
      }
    }
    byOther.values().removeIf(java.util.ArrayDeque::isEmpty);
    while (out.size() < k && !byOther.isEmpty()) {
      for (java.util.Iterator<java.util.ArrayDeque<DataBlock>> it = byOther.values().iterator();
          it.hasNext() && out.size() < k; ) {
        java.util.ArrayDeque<DataBlock> q = it.next();
        out.add(q.poll());
        if (q.isEmpty()) {
          it.remove();
        }
      }
    }
    return out;
  }
}
