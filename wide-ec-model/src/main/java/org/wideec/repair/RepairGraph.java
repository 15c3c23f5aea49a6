package org.wideec.repair;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.wideec.code.LinearCode;

/**
 * A single-unit repair as data: who multiplies what and sends it where. Steps either chain (each sends to
 * the next, the last to the requestor) or form a star (all send to the requestor). The planner builds it;
 * the repair engine executes it slice by slice; {@code analysis} and tests can cost and simulate it.
 */
public record RepairGraph(LinearCode code, int lostUnit, RepairScheme scheme, String requestorNode, String requestorRack,
    List<RepairStep> steps) {

  public RepairGraph {
    steps = Collections.unmodifiableList(new ArrayList<>(steps));
  }

  public int helpers() {
    return steps.size();
  }

  /** Transfers (one per step, each the size of the repaired unit or slice). */
  public int transfers() {
    return steps.size();
  }

  /** Transfers whose sender and receiver sit in different racks. */
  public int crossRackTransfers() {
    int count = 0;
    for (RepairStep s : steps) {
      String to = s.next() == RepairStep.REQUESTOR ? requestorRack : steps.get(s.next()).helper().rack();
      count += s.helper().rack().equals(to) ? 0 : 1;
    }
    return count;
  }

  /** Most transfers any node receives: k for a star, 1 for a chain. */
  public int maxFanIn() {
    int[] in = new int[steps.size() + 1];
    for (RepairStep s : steps) {
      in[s.next() == RepairStep.REQUESTOR ? steps.size() : s.next()]++;
    }
    int max = 0;
    for (int v : in) {
      max = Math.max(max, v);
    }
    return max;
  }

  /** Helper units in step order. */
  public int[] helperUnits() {
    return steps.stream().mapToInt(s -> s.helper().unit()).toArray();
  }
}
