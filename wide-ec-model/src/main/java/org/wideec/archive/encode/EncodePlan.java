package org.wideec.archive.encode;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.wideec.topology.Site;

/**
 * Who sends which rows to whom to compute a stripe's parities, and what that costs (pure data: printed, costed and
 * executed by {@code EncodeExecutor}). A plan is a set of trees. Each tree computes some parity rows: its steps are
 * data units, each read by its holder, multiplied by one coefficient per row of the tree and sent, slice by slice,
 * together with the sum of what its feeders sent, to its next step; the tree's collector adds what its heads send
 * and holds the finished rows, which it writes to the rows' targets (locally when it is the target). A classic plan
 * is one star: every step sends its raw unit (one row) and the collector encodes every parity itself.
 *
 * <p>Every stream carries {@link #unitBytes()} bytes per row it carries (shorter units are read as zero padded), so
 * the traffic is exact: a stream of tree t carries wireRows(t) x unitBytes bytes, a delivery unitBytes bytes.
 */
public final class EncodePlan {
  /** Classic: one node pulls k units and encodes (the baseline). Chain: multi-node encoding (ECWide §4.2). */
  public enum Encoder {
    CLASSIC, CHAIN
  }

  /** How the steps of a tree are linked. */
  public enum Shape {
    /** Every step sends straight to the collector (classic). */
    STAR,
    /** One chain through every step, rack by rack, the collector's rack last: each node receives one stream. */
    CHAIN,
    /**
     * A chain inside each rack; the last step of a rack (its head) also adds the head of the rack before it, so a
     * request nests about racks + the largest rack deep instead of k, at the price of heads receiving two streams.
     */
    RACK_TREE
  }

  /** {@link Step#next()} of a step that sends to the tree's collector. */
  public static final int COLLECTOR = -1;

  /** One data unit's part: its holder sends coefficient[r] x unit (+ its feeders' rows) to step {@code next}. */
  public record Step(int unit, Site site, int[] coefficients, int next) {
    public Step {
      coefficients = coefficients.clone();
    }

    @Override
    public int[] coefficients() {
      return coefficients.clone();
    }
  }

  /**
   * The steps that compute some parity rows (parity unit numbers), the collector that finishes them, and whether
   * the collector encodes them itself from raw units (classic) or only adds its heads' partial sums (chain).
   */
  public record Tree(int[] rows, Site collector, List<Step> steps, boolean encodesAtCollector) {
    public Tree {
      rows = rows.clone();
      steps = List.copyOf(steps);
    }

    @Override
    public int[] rows() {
      return rows.clone();
    }

    /** Rows each of this tree's streams carries. */
    public int wireRows() {
      return encodesAtCollector ? 1 : rows.length;
    }

    /** Steps that send to {@code step} ({@link #COLLECTOR} for the collector's heads), in step order. */
    public List<Integer> feeders(int step) {
      List<Integer> out = new ArrayList<>();
      for (int i = 0; i < steps.size(); i++) {
        if (steps.get(i).next() == step) {
          out.add(i);
        }
      }
      return out;
    }

    /** Steps on the longest path from a step to the collector: how deep the step requests nest. */
    public int depth() {
      int deepest = 0;
      for (int i = 0; i < steps.size(); i++) {
        int d = 1;
        for (int at = steps.get(i).next(); at != COLLECTOR; at = steps.get(at).next()) {
          d++;
        }
        deepest = Math.max(deepest, d);
      }
      return deepest;
    }

    /**
     * Whether step {@code i}'s next step runs on the same node: that step reads unit i itself (the helper folds a
     * node's consecutive steps into one, ECWide §4.2), so no stream carries step i's rows.
     */
    public boolean foldsIntoNext(int i) {
      int next = steps.get(i).next();
      return next != COLLECTOR && steps.get(next).site().node().equals(steps.get(i).site().node());
    }

    /** Where step {@code i} sends. */
    public Site downstreamOf(int i) {
      int next = steps.get(i).next();
      return next == COLLECTOR ? collector : steps.get(next).site();
    }
  }

  /** A finished parity unit that its collector sends to its target (another node). */
  public record Delivery(int parity, Site from, Site to) {}

  /** One stream of a tree, or one delivery, with its bytes. */
  public record Transfer(Site from, Site to, long bytes, int rows, boolean delivery, String what) {
    public boolean crossRack() {
      return !from.sameRack(to);
    }

    /** A stream from a node to itself: it is counted by the transport but crosses no link. */
    public boolean local() {
      return from.node().equals(to.node());
    }
  }

  /** What one node's links carry (local streams excluded): bytes, streams and row-streams, each way. */
  public record NodeLoad(String node, String rack, long bytesIn, long bytesOut, int streamsIn, int streamsOut,
      int rowsIn, int rowsOut) {}

  private final EncodeStripe stripe;
  private final Encoder encoder;
  private final Shape shape;
  private final int sliceBytes;
  private final List<Tree> trees;
  private final List<Delivery> deliveries;

  EncodePlan(EncodeStripe stripe, Encoder encoder, Shape shape, int sliceBytes, List<Tree> trees,
      List<Delivery> deliveries) {
    this.stripe = stripe;
    this.encoder = encoder;
    this.shape = shape;
    this.sliceBytes = sliceBytes;
    this.trees = List.copyOf(trees);
    this.deliveries = List.copyOf(deliveries);
  }

  public EncodeStripe stripe() {
    return stripe;
  }

  public String name() {
    return stripe.name();
  }

  public Encoder encoder() {
    return encoder;
  }

  public Shape shape() {
    return shape;
  }

  /** Bytes of one row of one slice; a frame of tree t carries wireRows(t) of them. */
  public int sliceBytes() {
    return sliceBytes;
  }

  public List<Tree> trees() {
    return trees;
  }

  public List<Delivery> deliveries() {
    return deliveries;
  }

  /**
   * The plan of tree {@code t} alone, with the deliveries of its rows: what that tree's collector runs when each
   * collector is asked for its own tree (a DataNode runs only the trees it collects).
   */
  public EncodePlan only(int t) {
    if (t < 0 || t >= trees.size()) {
      throw new IllegalArgumentException("stripe " + name() + ": the plan has trees 0.." + (trees.size() - 1) + ", not "
          + t);
    }
    Tree tree = trees.get(t);
    List<Delivery> mine = deliveries.stream().filter(d -> Arrays.stream(tree.rows()).anyMatch(r -> r == d.parity()))
        .toList();
    return new EncodePlan(stripe, encoder, shape, sliceBytes, List.of(tree), mine);
  }

  /**
   * The traffic of this plan run storing only {@code parities}: the trees that compute none of them are not run and
   * only their finished rows are delivered; a tree that stores one still carries all its rows in every stream (the
   * collector discards the rows it is given no block for). What re-encoding the parities an update rewrites costs,
   * where the stripe's other parities stay as they are.
   *
   * @throws IllegalArgumentException when a unit is not a parity row of the plan
   */
  public EncodePlan storing(java.util.Set<Integer> parities) {
    java.util.Set<Integer> rows = new java.util.HashSet<>();
    trees.forEach(t -> Arrays.stream(t.rows()).forEach(rows::add));
    if (!rows.containsAll(parities)) {
      throw new IllegalArgumentException("stripe " + name() + ": parities " + new java.util.TreeSet<>(parities)
          + " are not all rows of the plan (rows " + new java.util.TreeSet<>(rows) + ")");
    }
    List<Tree> kept = trees.stream().filter(t -> Arrays.stream(t.rows()).anyMatch(parities::contains)).toList();
    List<Delivery> delivered = deliveries.stream().filter(d -> parities.contains(d.parity())).toList();
    return new EncodePlan(stripe, encoder, shape, sliceBytes, kept, delivered);
  }

  /** Bytes of every parity unit and of every row of every stream. */
  public long unitBytes() {
    return stripe.parityLength();
  }

  public int slices() {
    return (int) ((unitBytes() + sliceBytes - 1) / sliceBytes);
  }

  /** Every stream and delivery of the plan (none for a step folded into its next, {@link Tree#foldsIntoNext}). */
  public List<Transfer> transfers() {
    List<Transfer> out = new ArrayList<>();
    for (int t = 0; t < trees.size(); t++) {
      Tree tree = trees.get(t);
      for (int i = 0; i < tree.steps().size(); i++) {
        if (tree.foldsIntoNext(i)) {
          continue;
        }
        Step s = tree.steps().get(i);
        out.add(new Transfer(s.site(), tree.downstreamOf(i), tree.wireRows() * unitBytes(), tree.wireRows(), false,
            "tree " + t + ": unit " + s.unit()));
      }
    }
    for (Delivery d : deliveries) {
      out.add(new Transfer(d.from(), d.to(), unitBytes(), 1, true, "delivery of parity " + d.parity()));
    }
    return out;
  }

  private List<Transfer> streams() {
    return transfers().stream().filter(x -> !x.delivery()).toList();
  }

  /** Bytes the trees' streams carry between racks: what the slice transport counts as cross-rack. */
  public long crossRackStreamBytes() {
    return streams().stream().filter(Transfer::crossRack).mapToLong(Transfer::bytes).sum();
  }

  /**
   * Bytes the trees' streams carry inside racks, including a head's stream to its collector on the same node (counted
   * by the transport, not on a link).
   */
  public long inRackStreamBytes() {
    return streams().stream().filter(x -> !x.crossRack()).mapToLong(Transfer::bytes).sum();
  }

  /** Bytes of finished parities sent from collectors to targets in other racks. */
  public long crossRackDeliveryBytes() {
    return deliveries.stream().filter(d -> !d.from().sameRack(d.to())).count() * unitBytes();
  }

  public long deliveryBytes() {
    return deliveries.size() * unitBytes();
  }

  /** Every byte that crosses a rack boundary: streams and deliveries. */
  public long crossRackBytes() {
    return crossRackStreamBytes() + crossRackDeliveryBytes();
  }

  /** Per node, what its links carry, in node order of first appearance. */
  public Map<String, NodeLoad> nodeLoads() {
    return nodeLoads(transfers());
  }

  /** Per node, what the links of these transfers carry, in node order of first appearance. */
  static Map<String, NodeLoad> nodeLoads(List<Transfer> transfers) {
    Map<String, long[]> acc = new LinkedHashMap<>();
    Map<String, String> racks = new LinkedHashMap<>();
    for (Transfer x : transfers) {
      if (x.local()) {
        continue;
      }
      racks.putIfAbsent(x.from().node(), x.from().rack());
      racks.putIfAbsent(x.to().node(), x.to().rack());
      long[] out = acc.computeIfAbsent(x.from().node(), n -> new long[6]);
      long[] in = acc.computeIfAbsent(x.to().node(), n -> new long[6]);
      out[1] += x.bytes();
      out[3]++;
      out[5] += x.rows();
      in[0] += x.bytes();
      in[2]++;
      in[4] += x.rows();
    }
    Map<String, NodeLoad> loads = new LinkedHashMap<>();
    acc.forEach((node, a) -> loads.put(node, new NodeLoad(node, racks.get(node), a[0], a[1], (int) a[2], (int) a[3],
        (int) a[4], (int) a[5])));
    return loads;
  }

  /**
   * The most row-streams any node sends or receives: the "streams the chain carries" (ECWide §4.2). A node link carries
   * that many units' worth, so with equal links the encode takes about that many unit transmission times (k for a
   * classic encoder, the rows of a tree for a chain).
   */
  public int maxRowStreams() {
    return nodeLoads().values().stream().mapToInt(l -> Math.max(l.rowsIn(), l.rowsOut())).max().orElse(0);
  }

  /** Longest request nesting of any tree. */
  public int depth() {
    return trees.stream().mapToInt(Tree::depth).max().orElse(0);
  }

  /**
   * Seconds the busiest link needs at these rates (bytes per second; 0 = unlimited), as the transport's shaper
   * emulates the links: every node's NIC each way, and every rack's uplink, one link for all that leaves or enters
   * the rack (ECWide's rack gateways), so a rack in the middle of a chain carries its tree's rows twice. A lower
   * bound: it ignores the time the first slice takes to pass through a chain (depth x frame / rate) and any CPU limit.
   */
  public double busiestLinkSeconds(long nodeBytesPerSecond, long rackBytesPerSecond) {
    return busiestLinkSeconds(transfers(), nodeBytesPerSecond, rackBytesPerSecond);
  }

  /** {@link #busiestLinkSeconds(long, long)} of any set of transfers (RapidRAID's plans are costed the same way). */
  static double busiestLinkSeconds(List<Transfer> transfers, long nodeBytesPerSecond, long rackBytesPerSecond) {
    double worst = 0;
    if (nodeBytesPerSecond > 0) {
      for (NodeLoad l : nodeLoads(transfers).values()) {
        worst = Math.max(worst, (double) Math.max(l.bytesIn(), l.bytesOut()) / nodeBytesPerSecond);
      }
    }
    if (rackBytesPerSecond > 0) {
      Map<String, long[]> racks = new TreeMap<>();
      for (Transfer x : transfers) {
        if (x.crossRack()) {
          racks.computeIfAbsent(x.from().rack(), r -> new long[2])[1] += x.bytes();
          racks.computeIfAbsent(x.to().rack(), r -> new long[2])[0] += x.bytes();
        }
      }
      for (long[] r : racks.values()) {
        worst = Math.max(worst, (double) (r[0] + r[1]) / rackBytesPerSecond);
      }
    }
    return worst;
  }

  /** The plan as text: trees, steps, deliveries and costs. */
  public String describe() {
    StringBuilder b = new StringBuilder();
    long unit = unitBytes();
    b.append("encode plan of stripe ").append(name()).append(" (").append(stripe.code().spec()).append("): ")
        .append(encoder.name().toLowerCase()).append(" encoder, ").append(shape.name().toLowerCase().replace('_', '-'))
        .append(" shape, ").append(stripe.nonEmptyDataUnits().length).append(" data units, parities of ").append(unit)
        .append(" bytes, slices of ").append(sliceBytes).append(" bytes\n");
    for (int t = 0; t < trees.size(); t++) {
      Tree tree = trees.get(t);
      b.append("tree ").append(t).append(": parities ").append(Arrays.toString(tree.rows())).append(" collected at ")
          .append(tree.collector()).append(tree.encodesAtCollector() ? ", which encodes them" : "").append("; ")
          .append(tree.steps().size()).append(" steps, ").append(tree.wireRows()).append(" rows per stream, depth ")
          .append(tree.depth()).append('\n');
      for (int i = 0; i < tree.steps().size(); i++) {
        Step s = tree.steps().get(i);
        b.append("  unit ").append(s.unit()).append(" at ").append(s.site()).append(" x ")
            .append(Arrays.toString(s.coefficients())).append(" -> ")
            .append(s.next() == COLLECTOR ? "collector " + tree.collector() : "unit " + tree.steps().get(s.next()).unit())
            .append('\n');
      }
    }
    for (Delivery d : deliveries) {
      b.append("deliver parity ").append(d.parity()).append(": ").append(d.from()).append(" -> ").append(d.to())
          .append('\n');
    }
    b.append("traffic: streams ").append(crossRackStreamBytes() + inRackStreamBytes()).append(" bytes (")
        .append(crossRackStreamBytes()).append(" across racks), deliveries ").append(deliveryBytes()).append(" bytes (")
        .append(crossRackDeliveryBytes()).append(" across racks); cross-rack total ").append(crossRackBytes())
        .append(" bytes = ").append(String.format("%.2f", (double) crossRackBytes() / unit)).append(" units\n");
    b.append("busiest node carries ").append(maxRowStreams()).append(" row-streams; deepest request nests ")
        .append(depth()).append('\n');
    return b.toString();
  }

  @Override
  public String toString() {
    return encoder + "/" + shape + " plan of " + name() + " (" + trees.size() + " trees, " + deliveries.size()
        + " deliveries, " + crossRackBytes() + " bytes across racks)";
  }
}
