package org.wideec.archive.encode;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.wideec.code.LinearCode;
import org.wideec.code.LocalGroup;
import org.wideec.topology.Site;

/**
 * Plans the encoding of one stripe (pure: code, holders and targets in, an {@link EncodePlan} out).
 *
 * <p>Chain plans (ECWide §4.2, Figure 6): the parities are split into trees by support. Rows that span the data
 * (global parities, and local parities that include one, as UniLRC's do, §3.2 Step 4) form one tree that carries all
 * of them, so each holder receives and sends one stream of those rows instead of the collector receiving k streams.
 * A local parity whose row is zero outside its local group (Azure-LRC) gets a tree of its own over its group's data,
 * collected at its own target: its row is finished inside the group's racks and never crosses to other racks, and the
 * global tree carries only the global rows. The price: a unit of such a group is read twice (once per tree) and its
 * holder sends g + 1 rows (g global, 1 local).
 *
 * <p>Shapes: steps are linked rack by rack, the collector's rack last (CHAIN: one chain; RACK_TREE: a chain per rack,
 * each rack's last step also adding the previous rack's), so every tree crosses each rack boundary once. A tree's
 * collector is the target of one of its rows, the one that sends fewest row-units across racks (ties: the lowest
 * parity unit). With L the longest data unit, p_t the rows of tree t (1 for a classic star), m_t the racks holding its
 * data and c_t = 1 when its collector's rack holds none of that data (else 0), the bytes that cross racks are exactly
 * <pre>
 *   chain:   sum over trees t of (m_t - 1 + c_t) p_t L  +  L x (rows targeted outside their collector's rack)
 *   classic: L x (data units outside the collector's rack)  +  L x (parities targeted outside its rack)
 * </pre>
 * The busiest node link carries, in a chain, the rows of the trees its node serves (p for RS, g + 1 for Azure-LRC;
 * twice a tree's rows into a RACK_TREE's rack heads, which receive two streams), against k units into the classic
 * collector: the gain in time is k over that.
 */
public final class EncodePlanner {
  /** HDFS checksum chunk: slices are whole chunks, so a helper's verified reads stay aligned. */
  public static final int CHUNK = 512;

  private EncodePlanner() {}

  /**
   * The classic encoder: one collector (the parity target that sends the fewest bytes across racks) pulls every data
   * unit in slices from all holders at once, encodes every parity and sends each to its target.
   */
  public static EncodePlan classic(EncodeStripe s, int sliceBytes, int maxFrameBytes) {
    LinearCode code = s.code();
    int[] rows = java.util.stream.IntStream.range(code.k(), code.n()).toArray();
    EncodePlan.Tree tree = cheapest(s, rows, s.nonEmptyDataUnits(), EncodePlan.Shape.STAR);
    return new EncodePlan(s, EncodePlan.Encoder.CLASSIC, EncodePlan.Shape.STAR, slice(s, sliceBytes, maxFrameBytes, 1),
        List.of(tree), deliveries(s, List.of(tree)));
  }

  /**
   * Multi-node encoding (ECWide §4.2): the holders forward partial sums of their tree's rows along the given shape,
   * in-rack first; each tree's collector holds its finished rows. Slices shrink, in whole checksum chunks, until a
   * frame of all of a tree's rows fits {@code maxFrameBytes}.
   */
  public static EncodePlan chain(EncodeStripe s, EncodePlan.Shape shape, int sliceBytes, int maxFrameBytes) {
    if (shape == EncodePlan.Shape.STAR) {
      throw new IllegalArgumentException("stripe " + s.name() + ": a chain is shaped CHAIN or RACK_TREE; STAR is classic");
    }
    LinearCode code = s.code();
    int[] units = s.nonEmptyDataUnits();
    List<EncodePlan.Tree> trees = new ArrayList<>();
    for (int[] rows : rowSets(code, units)) {
      int[] support = java.util.Arrays.stream(units).filter(u -> {
        for (int r : rows) {
          if (code.generator().get(r, u) != 0) {
            return true;
          }
        }
        return false;
      }).toArray();
      trees.add(cheapest(s, rows, support, shape));
    }
    int widest = trees.stream().mapToInt(EncodePlan.Tree::wireRows).max().orElse(1);
    return new EncodePlan(s, EncodePlan.Encoder.CHAIN, shape, slice(s, sliceBytes, maxFrameBytes, widest), trees,
        deliveries(s, trees));
  }

  /**
   * The tree of these rows over these units collected at the rows' target that sends the fewest row-units across
   * racks, streams and deliveries together (ties: the lowest parity unit).
   */
  private static EncodePlan.Tree cheapest(EncodeStripe s, int[] rows, int[] units, EncodePlan.Shape shape) {
    EncodePlan.Tree best = null;
    long fewest = Long.MAX_VALUE;
    for (int r : rows) {
      Site collector = s.targets().get(r);
      EncodePlan.Tree t;
      if (shape == EncodePlan.Shape.STAR) {
        List<EncodePlan.Step> steps = new ArrayList<>();
        for (int u : units) {
          steps.add(new EncodePlan.Step(u, s.holders().get(u), new int[] {1}, EncodePlan.COLLECTOR));
        }
        t = new EncodePlan.Tree(rows, collector, steps, true);
      } else {
        t = new EncodePlan.Tree(rows, collector, steps(s, rows, units, collector, shape), false);
      }
      long cross = 0;
      for (int i = 0; i < t.steps().size(); i++) {
        cross += t.steps().get(i).site().sameRack(t.downstreamOf(i)) ? 0 : t.wireRows();
      }
      for (int row : rows) {
        cross += s.targets().get(row).sameRack(collector) ? 0 : 1;
      }
      if (cross < fewest) {
        best = t;
        fewest = cross;
      }
    }
    return best;
  }

  /**
   * Parity rows grouped into trees: every row that spans data outside a local group of its own in one tree (first),
   * then one tree per local parity whose row is zero outside its group's data.
   */
  static List<int[]> rowSets(LinearCode code, int[] units) {
    List<Integer> global = new ArrayList<>();
    List<int[]> local = new ArrayList<>();
    for (int p = code.k(); p < code.n(); p++) {
      LocalGroup own = null;
      for (LocalGroup g : code.groupsOf(p)) {
        own = g.localParity() == p ? g : own;
      }
      boolean inGroup = own != null;
      for (int i = 0; inGroup && i < units.length; i++) {
        inGroup = code.generator().get(p, units[i]) == 0 || own.contains(units[i]);
      }
      if (inGroup) {
        local.add(new int[] {p});
      } else {
        global.add(p);
      }
    }
    List<int[]> sets = new ArrayList<>();
    if (!global.isEmpty()) {
      sets.add(global.stream().mapToInt(Integer::intValue).toArray());
    }
    sets.addAll(local);
    return sets;
  }

  /** Links the units' steps rack by rack (collector's rack last); RACK_TREE joins each rack's head to the next's. */
  private static List<EncodePlan.Step> steps(EncodeStripe s, int[] rows, int[] units, Site collector,
      EncodePlan.Shape shape) {
    Map<String, List<Integer>> byRack = new LinkedHashMap<>();
    for (int u : units) {
      byRack.computeIfAbsent(s.holders().get(u).rack(), r -> new ArrayList<>()).add(u);
    }
    List<List<Integer>> racks = new ArrayList<>(byRack.values());
    if (shape == EncodePlan.Shape.RACK_TREE) {
      racks.sort(Comparator.comparingInt(List::size)); // stable: small racks first keeps the deepest path short
    }
    // The collector's rack last, so the last hop stays in it. In every rack each node's units follow one another, so
    // the partial sum enters and leaves a node once however many of the stripe's units it holds (a chain that reads
    // in a core rack finds several on each node; in unit order the sum went back and forth between them, one unit's
    // rows over a node link per step), and the collector's node comes last.
    racks.sort(Comparator.comparing(r -> s.holders().get(r.get(0)).sameRack(collector)));
    for (List<Integer> r : racks) {
      Map<String, Integer> nodeOrder = new LinkedHashMap<>();
      for (int u : r) {
        nodeOrder.putIfAbsent(s.holders().get(u).node(), nodeOrder.size());
      }
      r.sort(Comparator.comparing((Integer u) -> s.holders().get(u).node().equals(collector.node()))
          .thenComparing(u -> nodeOrder.get(s.holders().get(u).node())));
    }
    List<EncodePlan.Step> steps = new ArrayList<>();
    int previousHead = -1;
    for (int ri = 0; ri < racks.size(); ri++) {
      List<Integer> rack = racks.get(ri);
      int first = steps.size();
      for (int j = 0; j < rack.size(); j++) {
        steps.add(null); // filled below, once the next step's index is known
      }
      int head = first + rack.size() - 1;
      for (int j = 0; j < rack.size(); j++) {
        int at = first + j;
        int next = at < head ? at + 1 : EncodePlan.COLLECTOR;
        steps.set(at, step(s, rows, rack.get(j), next));
      }
      if (previousHead >= 0) {
        // CHAIN: the previous rack's head feeds this rack's first step; RACK_TREE: this rack's head.
        int into = shape == EncodePlan.Shape.CHAIN ? first : head;
        EncodePlan.Step p = steps.get(previousHead);
        steps.set(previousHead, new EncodePlan.Step(p.unit(), p.site(), p.coefficients(), into));
      }
      previousHead = head;
    }
    return steps;
  }

  private static EncodePlan.Step step(EncodeStripe s, int[] rows, int unit, int next) {
    int[] c = new int[rows.length];
    for (int r = 0; r < rows.length; r++) {
      c[r] = s.code().generator().get(rows[r], unit);
    }
    return new EncodePlan.Step(unit, s.holders().get(unit), c, next);
  }

  /** Every finished row whose target is not its collector's node is sent there. */
  private static List<EncodePlan.Delivery> deliveries(EncodeStripe s, List<EncodePlan.Tree> trees) {
    List<EncodePlan.Delivery> out = new ArrayList<>();
    for (EncodePlan.Tree t : trees) {
      for (int r : t.rows()) {
        Site target = s.targets().get(r);
        if (!target.node().equals(t.collector().node())) {
          out.add(new EncodePlan.Delivery(r, t.collector(), target));
        }
      }
    }
    return out;
  }

  /** The largest slice, in whole chunks and at most {@code wanted}, of which {@code rows} fit one frame. */
  private static int slice(EncodeStripe s, int wanted, int maxFrameBytes, int rows) {
    long fit = Math.min(wanted, maxFrameBytes / rows) / CHUNK * CHUNK;
    if (wanted < CHUNK || fit < CHUNK) {
      throw new IllegalArgumentException("stripe " + s.name() + ": " + rows + " rows of at least " + CHUNK + "-byte "
          + "slices (asked for " + wanted + ") do not fit frames of " + maxFrameBytes + " bytes "
          + "(wide-ec.transport.max-frame.bytes)");
    }
    return (int) fit;
  }
}
