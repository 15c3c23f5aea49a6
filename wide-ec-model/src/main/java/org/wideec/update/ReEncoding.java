package org.wideec.update;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.wideec.archive.encode.EncodePlan;
import org.wideec.archive.encode.EncodePlanner;
import org.wideec.archive.encode.EncodeStripe;
import org.wideec.code.LinearCode;
import org.wideec.topology.Site;

/**
 * Re-encoding the stripe instead of a delta update: the parities the update rewrites are computed afresh from the
 * data units the stripe keeps (a cleared unit counts as zeros and is not read), along the archival chain that the
 * DataNodes run ({@link EncodePlanner#chain}, ECWide §4.2): the holders forward partial sums of each tree's rows
 * rack by rack, the collector's rack last, and the collector delivers each finished row to its target. That chain is
 * the only re-encoding any executor runs, so it is the only one priced: the update model's plan ({@link #plan}),
 * the stripe updater's choice ({@code archive.UpdateChoice}) and the product sweep all price {@link #chain}. Every
 * rack boundary a tree crosses carries all its rows, so it wins when few units are kept, in few racks (deletes), or
 * against a rack-blind delta scheme when many units change.
 */
public final class ReEncoding implements UpdateScheme {
  @Override
  public String name() {
    return "reencode";
  }

  /**
   * The chain re-encoding of the pattern's renewed parities, each unit on a node of its own in its rack (the
   * cross-rack count depends on racks only), as update transfers: a step's partial sums of its tree's rows
   * ({@code PARITY_DELTA} over the units summed so far) to the next step or the collector, then each finished row to
   * its target. Its cross-rack chunks are the chain's cross-rack bytes in units of one chunk.
   */
  @Override
  public UpdatePlan plan(UpdatePattern pattern, UpdateHistory history) {
    LinearCode code = pattern.code();
    if (!runs(code)) {
      throw new IllegalArgumentException(code.spec() + " is not a code of an on-disk format (its coefficients are not"
          + " pinned, code/CodeFormat): no stored stripe uses it, and the chain encoder that re-encodes refuses it");
    }
    Map<Integer, Site> holders = new HashMap<>();
    long[] lengths = new long[code.k()];
    for (int d : pattern.liveDataUnits()) {
      holders.put(d, site(pattern, d));
      lengths[d] = 1; // one chunk: the plan's bytes are its chunks
    }
    Set<Integer> renewed = renewed(pattern);
    Map<Integer, Site> targets = new HashMap<>();
    renewed.forEach(p -> targets.put(p, site(pattern, p)));
    if (holders.isEmpty() || renewed.isEmpty()) {
      return new UpdatePlan(name(), pattern, new int[0], List.of(), true); // nothing kept, or nothing to rewrite
    }
    EncodePlan chain = chain("re-encoding of " + pattern, code, holders, lengths, targets, EncodePlan.Shape.CHAIN,
        EncodePlanner.CHUNK, Integer.MAX_VALUE).storing(renewed);
    return new UpdatePlan(name(), pattern, collectorRacks(pattern, chain), transfers(pattern, chain), true);
  }

  /** Whether a stripe of this code can be re-encoded: the chain encoder takes pinned systematic codes only. */
  public static boolean runs(LinearCode code) {
    return code.pinned() && code.isSystematic();
  }

  /**
   * The whole chain plan of a stripe's re-encoding, every parity row included: the data units kept read at
   * {@code holders} ({@code lengths}: 0 for a removed unit, read as zeros), each stored parity written at
   * {@code storedTargets}; a parity not written (virtual, or not rewritten) is given the archival encoder's
   * placeholder target ({@link EncodeStripe#archival}), so its tree costs nothing and the plan, and each tree's
   * number, is the same wherever it is made (the collectors plan it again from their requests). What crosses racks
   * when only the rewritten parities are stored is {@code chain(...).storing(rewritten)}.
   */
  public static EncodePlan chain(String name, LinearCode code, Map<Integer, Site> holders, long[] lengths,
      Map<Integer, Site> storedTargets, EncodePlan.Shape shape, int sliceBytes, int maxFrameBytes) {
    EncodeStripe es = EncodeStripe.archival(name, code, holders, lengths, storedTargets);
    return EncodePlanner.chain(es, shape, sliceBytes, maxFrameBytes);
  }

  /** The pattern's parities a re-encoding writes: those renewed (not dropped) whose row touches a changed unit. */
  private static Set<Integer> renewed(UpdatePattern pattern) {
    LinearCode code = pattern.code();
    Set<Integer> out = new TreeSet<>();
    for (int p = code.k(); p < code.n(); p++) {
      boolean touched = false;
      for (int d : pattern.changed()) {
        touched |= code.generator().get(p, d) != 0;
      }
      if (touched && !pattern.isDropped(p)) {
        out.add(p);
      }
    }
    return out;
  }

  /** Unit {@code u}'s own node, named by the unit, in its rack. */
  private static Site site(UpdatePattern pattern, int u) {
    return new Site("u" + u, pattern.rackName(pattern.rackOf(u)));
  }

  private static Place place(UpdatePattern pattern, Site s) {
    int u = Integer.parseInt(s.node().substring(1));
    return Place.unit(u, pattern.rackOf(u));
  }

  private static int[] collectorRacks(UpdatePattern pattern, EncodePlan chain) {
    return chain.trees().stream().mapToInt(t -> place(pattern, t.collector()).rack()).distinct().sorted().toArray();
  }

  /**
   * The chain's streams and deliveries as transfers: a stream carries the partial sums of its tree's rows over its
   * step's unit and every unit upstream of it; a stream from a node to itself (a step on its collector's node) is
   * not sent, that node sums its own unit in.
   */
  private static List<Transfer> transfers(UpdatePattern pattern, EncodePlan chain) {
    List<Transfer> out = new ArrayList<>();
    for (EncodePlan.Tree t : chain.trees()) {
      Transfer.Phase phase = t.rows().length == 1 && pattern.code().role(t.rows()[0])
          == org.wideec.code.UnitRole.LOCAL_PARITY ? Transfer.Phase.LOCAL_PARITY_UPDATE : Transfer.Phase.PARITY_UPDATE;
      List<EncodePlan.Step> steps = t.steps();
      BitSet[] upstream = new BitSet[steps.size()];
      for (int i = 0; i < steps.size(); i++) {
        upstream[i] = new BitSet();
      }
      BitSet support = new BitSet();
      // Steps are planned so that each feeds a later one: sums flow forward in step order.
      for (int i = 0; i < steps.size(); i++) {
        EncodePlan.Step s = steps.get(i);
        upstream[i].set(s.unit());
        support.set(s.unit());
        if (s.next() != EncodePlan.COLLECTOR) {
          upstream[s.next()].or(upstream[i]);
        }
        Place from = place(pattern, s.site());
        Place to = place(pattern, t.downstreamOf(i));
        if (!from.equals(to)) {
          out.add(new Transfer(phase, from, to, Transfer.Kind.PARITY_DELTA, upstream[i].stream().toArray(), t.rows()));
        }
      }
      for (EncodePlan.Delivery d : chain.deliveries()) {
        if (java.util.Arrays.stream(t.rows()).anyMatch(r -> r == d.parity())) {
          out.add(new Transfer(phase, place(pattern, d.from()), place(pattern, d.to()), Transfer.Kind.PARITY_DELTA,
              support.stream().toArray(), new int[] {d.parity()}));
        }
      }
    }
    return out;
  }
}
