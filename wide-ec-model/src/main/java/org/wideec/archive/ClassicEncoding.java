package org.wideec.archive;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.wideec.topology.Topology;

/**
 * The baseline encoder ({@code classic}): one node pulls the k data blocks and writes every parity.
 * Encoding runs before any replica is dropped, after the plan's moves (copies) are done, so each block is read
 * from its nearest replica: a block with a replica in the encoder's rack crosses no rack. The encoder's rack is
 * the one that minimises cross-rack bytes (blocks read from other racks plus parities written to other racks),
 * exactly; within it, the node holding replicas of the most data units (fewest bytes over the network at all).
 *
 * @param crossRackReadBytes data bytes read from other racks
 * @param crossRackWriteBytes parity bytes written to other racks
 */
public record ClassicEncoding(String encoderNode, String encoderRack, long crossRackReadBytes,
    long crossRackWriteBytes) {

  public long crossRackBytes() {
    return crossRackReadBytes + crossRackWriteBytes;
  }

  /**
   * @param units the stripe's planned units in unit order
   * @param replicaNodes every node holding a replica of each stored data unit while encoding (live replicas
   *     and move targets), by unit
   * @param rackOfNode the rack of every live node
   */
  static ClassicEncoding of(List<PlannedUnit> units, Map<Integer, Set<String>> replicaNodes,
      Map<String, String> rackOfNode, Topology topology) {
    ClassicEncoding best = null;
    for (String rack : topology.racks()) {
      long read = 0;
      long write = 0;
      for (PlannedUnit u : units) {
        if (u.isStoredData() && replicaNodes.get(u.unit()).stream().noneMatch(n -> rack.equals(rackOfNode.get(n)))) {
          read += u.length();
        } else if (u.action() == PlannedUnit.Action.WRITE && !u.rack().equals(rack)) {
          write += u.length();
        }
      }
      if (best == null || read + write < best.crossRackBytes()) {
        best = new ClassicEncoding(busiestNode(rack, units, replicaNodes, topology), rack, read, write);
      }
    }
    return best;
  }

  private static String busiestNode(String rack, List<PlannedUnit> units, Map<Integer, Set<String>> replicaNodes,
      Topology topology) {
    String best = null;
    long bestHeld = -1;
    for (String node : topology.nodes(rack)) {
      long held = 0;
      for (PlannedUnit u : units) {
        held += u.isStoredData() && replicaNodes.get(u.unit()).contains(node) ? u.length() : 0;
      }
      if (held > bestHeld) {
        best = node;
        bestHeld = held;
      }
    }
    return best;
  }
}
