package org.wideec.repair;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.wideec.code.LinearCode;
import org.wideec.repair.FullNodeRecoveryPlan.Transfer;
import org.wideec.repair.FullNodeRecoveryPlanner.GroupLoss;

/**
 * One decode of several lost units of a group at the target of the first, in its planned rack, the others sent on
 * from there to their planned racks ({@link MultiUnitStreams}): what crosses racks, the first's streams then each unit
 * sent on, per unit, and what the decode reads from helpers. Also the choice between that decode and rebuilding each
 * unit alone, for the units that need a wider decode anyway.
 */
record JointShape(Map<Integer, List<Transfer>> byUnit, long readBytes) {
  List<Transfer> transfers() {
    return byUnit.values().stream().flatMap(List::stream).toList();
  }

  long crossRackBytes() {
    return transfers().stream().mapToLong(Transfer::bytes).sum();
  }

  /** The joint decode of {@code units} (ascending) at the first one's planned rack. */
  static JointShape of(GroupLoss g, Map<Integer, String> planned, int[] units, boolean aggregatesInRacks) {
    String requestorRack = planned.get(units[0]);
    MultiUnitStreams m = MultiUnitStreams.plan(g.plan().code(), units, SingleUnitShape.survivors(g), g.zeros(),
        requestorRack, aggregatesInRacks);
    Map<Integer, List<Transfer>> byUnit = new LinkedHashMap<>();
    List<Transfer> joint = new ArrayList<>();
    long read = 0;
    for (MultiUnitStreams.Shape s : m.streams()) {
      List<UnitLocation> chain = s.chain();
      // Each step of a stream reads its unit: a rack that sums its inputs reads each once per output it feeds.
      read += chain.size() * g.unitBytes();
      for (int i = 0; i < chain.size(); i++) {
        String to = i + 1 < chain.size() ? chain.get(i + 1).rack() : requestorRack;
        if (!to.equals(chain.get(i).rack())) {
          joint.add(new Transfer(chain.get(i).rack(), to, g.unitBytes()));
        }
      }
    }
    byUnit.put(units[0], joint);
    for (int i = 1; i < units.length; i++) {
      String rack = planned.get(units[i]);
      byUnit.put(units[i], rack.equals(requestorRack) ? List.of() : List.of(new Transfer(requestorRack, rack,
          g.unitBytes())));
    }
    return new JointShape(byUnit, read);
  }

  /**
   * The lost units whose cheapest (local) repair reads another lost unit: two units of one Azure-LRC local group need
   * a global decode anyway, so only they may share one.
   */
  static List<Integer> needingWiderDecode(GroupLoss g) {
    LinearCode code = g.plan().code();
    List<Integer> out = new ArrayList<>();
    for (int u : g.lost()) {
      for (int h : code.repairPlan(u).helpers()) {
        if (!g.liveRacks().containsKey(h) && !g.zeros().contains(h)) {
          out.add(u);
          break;
        }
      }
    }
    return out;
  }

  /**
   * Joint or alone for {@code units}: this decode is taken only where it sends fewer bytes across racks than the
   * units' own repairs ({@code alone}, in the same order); both ways' reads and cross-rack bytes go into the plan.
   */
  FullNodeRecoveryPlan.JointChoice choose(String group, List<Integer> units,
      List<SingleUnitShape> alone) {
    long aloneReads = 0;
    long aloneCross = 0;
    for (SingleUnitShape r : alone) {
      aloneReads += r.readBytes();
      aloneCross += r.transfers().stream().mapToLong(Transfer::bytes).sum();
    }
    long jointCross = crossRackBytes();
    return new FullNodeRecoveryPlan.JointChoice(group, units, readBytes, jointCross, aloneReads, aloneCross,
        jointCross < aloneCross);
  }
}
