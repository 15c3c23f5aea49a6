package org.wideec.archive;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.wideec.code.LinearCode;
import org.wideec.topology.Site;
import org.wideec.topology.Topology;

/**
 * Which new files of an archived directory go into which virtual data slots of its open stripes ({@code wide-ec
 * archive --fill}). A virtual data unit is a known block of zeros, so archiving a block into it is a parity update
 * whose delta is the block itself (seed "Optimal Rack-Coordinated Updates" §II-C, Eq. 3 with the old unit zero); a
 * parity that was virtual because its row touched only virtual units becomes stored (its old content is zero too).
 *
 * <p>Files go whole, in the order given, each block into the lowest free slot of the lowest stripe; a file whose
 * blocks do not all find a slot is left for a normal archival run. Each slot (and each parity that comes on) gets a
 * planned node the way the archival plan keeps its promises: the loss of the chosen rack must stay decodable when it
 * was before (the stripe keeps its rack fault tolerance), the rack holding the fewest of the stripe's units is
 * preferred, then one already holding a replica of the block (no cross-rack move), then the name; within the rack a
 * node holding no unit of the stripe (one unit per node), one with a replica first. Pure: the HDFS side lists the
 * files and nodes, moves the blocks and runs the updates.
 */
public final class StripeFill {
  private final Map<Long, Map<Integer, StripeMember>> slots = new TreeMap<>();
  private final Map<Long, Map<Integer, StripeMember>> parities = new TreeMap<>();
  private final List<SourceFile> filled = new ArrayList<>();
  private final Map<String, String> left = new LinkedHashMap<>();

  private StripeFill() {}

  /**
   * Plans the fill.
   *
   * @param stripes the archive's stripes; only committed (or trimmed) systematic ones take new blocks
   * @param files new files (closed, replicated, in no stripe) in the order to try them
   * @param live the live DataNodes by rack
   */
  public static StripeFill plan(List<ArchivedStripe> stripes, List<SourceFile> files, Topology live) {
    StripeFill f = new StripeFill();
    Map<String, String> rackOf = new TreeMap<>();
    live.racks().forEach(r -> live.nodes(r).forEach(n -> rackOf.put(n, r)));
    Map<Long, List<StripeMember>> working = new TreeMap<>();
    for (ArchivedStripe s : stripes) {
      if (!s.sealed() && (s.state() == StripeState.COMMITTED || s.state() == StripeState.TRIMMED)) {
        working.put(s.stripeId(), new ArrayList<>(s.members()));
      }
    }
    Map<Long, ArchivedStripe> byId = new TreeMap<>();
    stripes.forEach(s -> byId.put(s.stripeId(), s));
    for (SourceFile file : files) {
      if (file.blocks().isEmpty()) {
        f.left.put(file.path(), "it is empty: no block to archive");
        continue;
      }
      Map<Long, List<StripeMember>> trial = new TreeMap<>();
      working.forEach((id, ms) -> trial.put(id, new ArrayList<>(ms)));
      Map<Long, Map<Integer, StripeMember>> fileSlots = new TreeMap<>();
      Map<Long, Map<Integer, StripeMember>> fileParities = new TreeMap<>();
      String why = null;
      for (SourceFile.Block b : file.blocks()) {
        why = f.place(byId, trial, file, b, rackOf, fileSlots, fileParities);
        if (why != null) {
          break;
        }
      }
      if (why != null) {
        f.left.put(file.path(), why);
        continue;
      }
      working.clear();
      working.putAll(trial);
      fileSlots.forEach((id, m) -> f.slots.computeIfAbsent(id, x -> new TreeMap<>()).putAll(m));
      fileParities.forEach((id, m) -> f.parities.computeIfAbsent(id, x -> new TreeMap<>()).putAll(m));
      f.filled.add(file);
    }
    return f;
  }

  /** Puts one block into the first slot that takes it; null, or why no slot does. */
  private String place(Map<Long, ArchivedStripe> byId, Map<Long, List<StripeMember>> trial, SourceFile file, SourceFile.Block b,
      Map<String, String> rackOf, Map<Long, Map<Integer, StripeMember>> fileSlots,
      Map<Long, Map<Integer, StripeMember>> fileParities) {
    boolean anySlot = false;
    for (Map.Entry<Long, List<StripeMember>> e : trial.entrySet()) {
      List<StripeMember> ms = e.getValue();
      LinearCode code = byId.get(e.getKey()).code();
      for (int u = 0; u < code.k(); u++) {
        if (!ms.get(u).padding()) {
          continue;
        }
        anySlot = true;
        List<StripeMember> next = new ArrayList<>(ms);
        String node = chooseNode(code, next, u, b.replicas().stream().map(Site::node).toList(), rackOf);
        if (node == null) {
          continue;
        }
        next.set(u, StripeMember.data(file.inodeId(), b.blockId(), b.generationStamp(), b.length(), node,
            rackOf.get(node)));
        Map<Integer, StripeMember> comingOn = new TreeMap<>();
        boolean placed = true;
        for (int p = code.k(); p < code.n() && placed; p++) {
          final List<StripeMember> now = next;
          if (next.get(p).padding() && !ArchivedStripe.zeroParity(code, p, d -> now.get(d).padding())) {
            String at = chooseNode(code, next, p, List.of(), rackOf);
            placed = at != null;
            if (placed) {
              StripeMember pm = StripeMember.plannedParity(next.get(p).role(), 0, at, rackOf.get(at));
              next.set(p, pm);
              comingOn.put(p, pm);
            }
          }
        }
        if (!placed) {
          continue;
        }
        ms.clear();
        ms.addAll(next);
        fileSlots.computeIfAbsent(e.getKey(), x -> new TreeMap<>()).put(u, next.get(u));
        fileParities.computeIfAbsent(e.getKey(), x -> new TreeMap<>()).putAll(comingOn);
        return null;
      }
    }
    return anySlot ? "no open slot of the stripes has a node that keeps its stripe's rack fault tolerance"
        : "the stripes' open slots are taken (" + file.blocks().size() + " block"
            + (file.blocks().size() == 1 ? "" : "s") + " needed)";
  }

  /**
   * The node unit {@code u} goes to (see the class comment), or null when every rack with a free node would make its
   * own loss undecodable where it was decodable before.
   */
  private static String chooseNode(LinearCode code, List<StripeMember> members, int u, List<String> holders,
      Map<String, String> rackOf) {
    Map<String, List<Integer>> unitsByRack = new TreeMap<>();
    java.util.Set<String> used = new java.util.HashSet<>();
    for (int w = 0; w < code.n(); w++) {
      StripeMember m = members.get(w);
      if (!m.padding()) {
        unitsByRack.computeIfAbsent(m.plannedRack(), r -> new ArrayList<>()).add(w);
        used.add(m.plannedNode());
      }
    }
    java.util.Set<String> holderRacks = new TreeSet<>();
    holders.forEach(h -> {
      if (rackOf.containsKey(h)) {
        holderRacks.add(rackOf.get(h));
      }
    });
    List<String> racks = new ArrayList<>(new TreeSet<>(rackOf.values()));
    racks.sort(java.util.Comparator.<String>comparingInt(r -> unitsByRack.getOrDefault(r, List.of()).size())
        .thenComparing(r -> holderRacks.contains(r) ? 0 : 1).thenComparing(r -> r));
    for (String rack : racks) {
      List<Integer> in = unitsByRack.getOrDefault(rack, List.of());
      List<Integer> with = new ArrayList<>(in);
      with.add(u);
      if (decodable(code, in) && !decodable(code, with)) {
        continue; // this rack's loss would no longer decode
      }
      List<String> free = new ArrayList<>();
      rackOf.forEach((node, r) -> {
        if (r.equals(rack) && !used.contains(node)) {
          free.add(node);
        }
      });
      if (free.isEmpty()) {
        continue;
      }
      Collections.sort(free);
      free.sort(java.util.Comparator.comparingInt(n -> holders.contains(n) ? 0 : 1));
      return free.get(0);
    }
    return null;
  }

  private static boolean decodable(LinearCode code, List<Integer> erased) {
    return code.isDecodable(erased.stream().mapToInt(Integer::intValue).toArray());
  }

  /** The stripes that take new blocks, ascending by id. */
  public java.util.Set<Long> stripes() {
    return slots.keySet();
  }

  /** Slot unit → the new data member planned into it, of one stripe. */
  public Map<Integer, StripeMember> slotsOf(long stripeId) {
    return Collections.unmodifiableMap(slots.getOrDefault(stripeId, Map.of()));
  }

  /** Parity unit → its planned member, for the stripe's virtual parities that the new blocks make non-zero. */
  public Map<Integer, StripeMember> paritiesComingOn(long stripeId) {
    return Collections.unmodifiableMap(parities.getOrDefault(stripeId, Map.of()));
  }

  /** The files whose every block has a slot, in order. */
  public List<SourceFile> filled() {
    return Collections.unmodifiableList(filled);
  }

  /** Path → why it stays for a normal {@code wide-ec archive}. */
  public Map<String, String> left() {
    return Collections.unmodifiableMap(left);
  }
}
