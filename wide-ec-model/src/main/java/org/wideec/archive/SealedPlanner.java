package org.wideec.archive;

import java.util.ArrayList;
import java.util.List;
import java.util.function.LongFunction;
import org.wideec.code.Codes;
import org.wideec.code.LinearCode;
import org.wideec.code.UnitRole;
import org.wideec.topology.Topology;

/**
 * Plans the sealed (non-systematic) archival of one file: the file's blocks in order, k pieces per
 * stripe (a short last stripe has virtual zero pieces, never stored), and each stripe's n codewords on n distinct
 * DataNodes dealt across the racks in turn, so a rack loss erases as few codewords of a stripe as the topology allows.
 * File-level stripes only: a codeword file carries the archived file's own permissions, which is sound only when it
 * encodes nothing but that file's bytes.
 */
public final class SealedPlanner {
  private SealedPlanner() {}

  /**
   * @param codewordDir the codeword directory of a stripe id (what the manifest records as its "parity path")
   */
  public static StripeManifest plan(SourceFile file, String codeSpec, Topology topology, LongFunction<String> codewordDir) {
    LinearCode code = Codes.pinnedFromSpec(codeSpec);
    if (code.isSystematic()) {
      throw new ArchivalPlanException(code.spec() + " is systematic: archive " + file.path() + " in the ordinary"
          + " layout, which keeps its blocks as they are");
    }
    if (file.blocks().isEmpty()) {
      throw new ArchivalPlanException(file.path() + " holds no data blocks to archive");
    }
    if (topology.nodeCount() < code.n()) {
      throw new ArchivalPlanException(code.spec() + " stores " + code.n() + " codewords on distinct DataNodes, the"
          + " cluster has " + topology.nodeCount() + " live");
    }
    List<String> order = dealtAcrossRacks(topology);
    List<ArchivedStripe> stripes = new ArrayList<>();
    long offset = 0;
    int k = code.k();
    for (int first = 0, id = 0; first < file.blocks().size(); first += k, id++) {
      List<SourcePiece> pieces = new ArrayList<>();
      for (int b = first; b < Math.min(first + k, file.blocks().size()); b++) {
        SourceFile.Block block = file.blocks().get(b);
        pieces.add(new SourcePiece(file.inodeId(), block.blockId(), block.generationStamp(), block.length(),
            StripeMember.NO_CRC, offset));
        offset += block.length();
      }
      long unit = pieces.stream().mapToLong(SourcePiece::length).max().orElse(0);
      List<StripeMember> members = new ArrayList<>();
      for (int i = 0; i < code.n(); i++) {
        // n consecutive places of the deal (mod its length, at least n) are n distinct nodes; each stripe starts
        // where the last ended, so the codewords of a long file spread over every node.
        String node = order.get((id * code.n() + i) % order.size());
        members.add(StripeMember.plannedParity(UnitRole.CODED, unit, node, rackOf(topology, node)));
      }
      stripes.add(new ArchivedStripe(id, code.spec(), code.formatVersion(), StripeState.PLANNED,
          codewordDir.apply(id), 0, members, pieces));
    }
    return new StripeManifest(file.path(), ArchiveScope.FILE, stripes);
  }

  /** Every node once, taking one from each rack in turn (racks and nodes in name order). */
  static List<String> dealtAcrossRacks(Topology t) {
    List<String> out = new ArrayList<>();
    for (int round = 0; out.size() < t.nodeCount(); round++) {
      for (String rack : t.racks()) {
        List<String> nodes = t.nodes(rack);
        if (round < nodes.size()) {
          out.add(nodes.get(round));
        }
      }
    }
    return out;
  }

  private static String rackOf(Topology t, String node) {
    for (String rack : t.racks()) {
      if (t.nodes(rack).contains(node)) {
        return rack;
      }
    }
    throw new IllegalStateException(node + " is in no rack of " + t);
  }
}
