package org.wideec.update;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.LongFunction;
import org.wideec.code.Codes;
import org.wideec.placement.PlacementPlan;

/**
 * Replays a block-update trace on erasure-coded stripes and sums each scheme's cross-rack traffic (RackCU §V-B):
 * the address space is cut into chunks, consecutive chunks fill the data units of consecutive stripes, and every
 * update renews the parities of each stripe it touches once. Parix's "updated before" state is kept per stripe
 * across the trace. Every stripe has one layout, or (the seed's simulation) its own drawn layout.
 */
public final class UpdateTraceReplayer {
  private final PlacementPlan placement;
  private final LongFunction<PlacementPlan> layoutOfStripe;
  private final int chunkBytes;
  private final List<UpdateScheme> schemes;

  /** Every stripe laid out as {@code placement}. */
  public UpdateTraceReplayer(PlacementPlan placement, int chunkBytes, List<UpdateScheme> schemes) {
    this(placement, stripe -> placement, chunkBytes, schemes);
  }

  private UpdateTraceReplayer(PlacementPlan placement, LongFunction<PlacementPlan> layoutOfStripe, int chunkBytes,
      List<UpdateScheme> schemes) {
    if (chunkBytes < 1) {
      throw new IllegalArgumentException("chunk size must be positive, got " + chunkBytes);
    }
    this.placement = placement;
    this.layoutOfStripe = layoutOfStripe;
    this.chunkBytes = chunkBytes;
    this.schemes = List.copyOf(schemes);
  }

  /** Each stripe laid out by its own draw from {@code layouts} (stripe 0's is {@link #placement()}). */
  public UpdateTraceReplayer(SimulatedDataCenterPlacement layouts, int chunkBytes, List<UpdateScheme> schemes) {
    this(layouts.plan(0), layouts::plan, chunkBytes, schemes);
  }

  /**
   * The seed's testbed setting (§V-C): RS(12,4), 4 KiB chunks, eight racks of two nodes (two units per rack,
   * data and parity in separate racks), comparing baseline, CAU, Parix and RackCU.
   */
  public static UpdateTraceReplayer paperFaithful() {
    PlacementPlan plan = RackSeparatedPlacement.plan(Codes.fromSpec("rs:k=12,m=4"), 2);
    return new UpdateTraceReplayer(plan, 4096, paperSchemes());
  }

  /**
   * The seed's large-scale simulation (§V-B), where its traffic averages come from: RS(12,4), 4 KiB chunks, 200 nodes
   * in 10 racks of 20, each stripe's units drawn at random with data and parity racks apart
   * ({@link SimulatedDataCenterPlacement}); {@code run} is one of the seed's repeated runs.
   */
  public static UpdateTraceReplayer seedSimulation(long run) {
    var code = Codes.fromSpec("rs:k=12,m=4");
    return new UpdateTraceReplayer(SimulatedDataCenterPlacement.seedSimulation(code, run), 4096, paperSchemes());
  }

  private static List<UpdateScheme> paperSchemes() {
    List<UpdateScheme> schemes = new ArrayList<>();
    for (String s : List.of("baseline", "cau", "parix", "rackcu")) {
      schemes.add(UpdateScheme.byName(s));
    }
    return schemes;
  }

  /** The layout of every stripe, or of stripe 0 when each stripe has its own. */
  public PlacementPlan placement() {
    return placement;
  }

  /** Per scheme (in the order given), the traffic of replaying the trace from a stripe state never updated. */
  public Map<String, UpdateTraffic> replay(List<TraceUpdate> trace) {
    int k = placement.code().k();
    Map<Long, UpdatePattern> layouts = new HashMap<>();
    Map<Long, UpdateHistory> histories = new HashMap<>();
    long[] cross = new long[schemes.size()];
    long stripeUpdates = 0;
    long changedChunks = 0;
    for (TraceUpdate u : trace) {
      for (Map.Entry<Long, int[]> e : unitsByStripe(u, k).entrySet()) {
        UpdatePattern layout = layouts.computeIfAbsent(e.getKey(), s -> UpdatePattern.of(layoutOfStripe.apply(s)));
        UpdatePattern p = layout.withChanged(e.getValue());
        UpdateHistory h = histories.getOrDefault(e.getKey(), UpdateHistory.NONE);
        for (int i = 0; i < schemes.size(); i++) {
          cross[i] += schemes.get(i).plan(p, h).crossRackChunks();
        }
        histories.put(e.getKey(), h.after(p));
        stripeUpdates++;
        changedChunks += e.getValue().length;
      }
    }
    Map<String, UpdateTraffic> out = new LinkedHashMap<>();
    for (int i = 0; i < schemes.size(); i++) {
      String name = schemes.get(i).name();
      out.put(name, new UpdateTraffic(name, trace.size(), stripeUpdates, changedChunks, cross[i], chunkBytes));
    }
    return out;
  }

  /** The data units an update changes, per stripe: chunk c is data unit c mod k of stripe c / k. */
  private Map<Long, int[]> unitsByStripe(TraceUpdate u, int k) {
    long first = u.offset() / chunkBytes;
    long last = (u.offset() + u.length() - 1) / chunkBytes;
    Map<Long, List<Integer>> byStripe = new TreeMap<>();
    for (long c = first; c <= last; c++) {
      byStripe.computeIfAbsent(c / k, s -> new ArrayList<>()).add((int) (c % k));
    }
    Map<Long, int[]> out = new TreeMap<>();
    byStripe.forEach((s, units) -> out.put(s, units.stream().mapToInt(Integer::intValue).toArray()));
    return out;
  }
}
