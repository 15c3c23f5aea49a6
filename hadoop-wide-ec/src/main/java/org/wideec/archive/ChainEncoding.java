package org.wideec.archive;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.wideec.code.LinearCode;

/**
 * Systematic multi-node encoding (ECWide §4.2, issue 13's {@code chain}): the nodes that keep the stripe's data
 * blocks form a chain; each adds its block, times the generator coefficients, to the partial sums it receives and
 * forwards them. The chain visits a rack's nodes one after another (in-rack first), racks in the order of the
 * first data unit they hold, so each rack hands one partial stream to the next.
 *
 * <p>The stream carries one partial sum per parity row that is <i>open</i>: some data unit before the hop has a
 * nonzero coefficient in the row and some unit after it does too. A row that has seen its last contribution is
 * complete there and that node writes it to the parity's planned node (ECWide §4.2 ends with the chain's last
 * node; local parities of Azure-LRC complete at their group's last data unit, inside their group's racks). For
 * a Reed-Solomon code every row stays open to the end, which is ECWide's chain exactly. Virtual units add
 * nothing and virtual parities are never computed. Every partial sum is the stripe's unit length.
 *
 * <p>Cross-rack bytes, exactly: for every hop between racks, open rows times the unit length; plus every parity
 * written from the node that completes it to a node in another rack.
 *
 * @param order the data units in chain order
 * @param rowsCarried the partial sums sent on each hop, {@code order.size() - 1} of them
 * @param writes each stored parity: the node that completes it and where it goes
 * @param streams the most partial sums any hop carries (the chain's gain over one encoder is about k / streams)
 */
public record ChainEncoding(List<Integer> order, int[] rowsCarried, List<ParityWrite> writes, long crossRackBytes,
    int streams) {

  /** A completed parity written from the chain to its planned node. */
  public record ParityWrite(int unit, String fromNode, String fromRack, String toNode, String toRack) {
    public boolean crossRack() {
      return !fromRack.equals(toRack);
    }
  }

  @Override
  public int[] rowsCarried() {
    return rowsCarried.clone();
  }

  /** The chain for a stripe's planned units (unit order), with its unit length. */
  static ChainEncoding of(LinearCode code, List<PlannedUnit> units, long unitLength) {
    Map<String, Integer> firstUnitOfRack = new LinkedHashMap<>();
    for (PlannedUnit u : units) {
      if (u.isStoredData()) {
        firstUnitOfRack.putIfAbsent(u.rack(), u.unit());
      }
    }
    List<PlannedUnit> chain = units.stream().filter(PlannedUnit::isStoredData)
        .sorted(Comparator.comparingInt((PlannedUnit u) -> firstUnitOfRack.get(u.rack())).thenComparingInt(PlannedUnit::unit))
        .toList();
    List<PlannedUnit> parities = units.stream().filter(u -> u.action() == PlannedUnit.Action.WRITE).toList();
    int[] first = new int[parities.size()];
    int[] last = new int[parities.size()];
    for (int p = 0; p < parities.size(); p++) {
      int[] row = code.generator().row(parities.get(p).unit());
      first[p] = -1;
      for (int i = 0; i < chain.size(); i++) {
        if (row[chain.get(i).unit()] != 0) {
          first[p] = first[p] < 0 ? i : first[p];
          last[p] = i;
        }
      }
    }
    int[] carried = new int[Math.max(0, chain.size() - 1)];
    long cross = 0;
    int streams = 0;
    for (int i = 0; i + 1 < chain.size(); i++) {
      for (int p = 0; p < parities.size(); p++) {
        carried[i] += first[p] >= 0 && first[p] <= i && i < last[p] ? 1 : 0;
      }
      streams = Math.max(streams, carried[i]);
      if (!chain.get(i).rack().equals(chain.get(i + 1).rack())) {
        cross += carried[i] * unitLength;
      }
    }
    List<ParityWrite> writes = new ArrayList<>();
    for (int p = 0; p < parities.size(); p++) {
      PlannedUnit from = chain.get(last[p]);
      PlannedUnit to = parities.get(p);
      ParityWrite w = new ParityWrite(to.unit(), from.node(), from.rack(), to.node(), to.rack());
      cross += w.crossRack() ? unitLength : 0;
      writes.add(w);
    }
    return new ChainEncoding(chain.stream().map(PlannedUnit::unit).toList(), carried, List.copyOf(writes), cross,
        streams);
  }
}
