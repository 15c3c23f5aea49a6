package org.wideec.archive;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.LongFunction;
import org.wideec.code.LinearCode;
import org.wideec.code.UnitRole;
import org.wideec.topology.Topology;

/**
 * Plans the sealed (non-systematic) archival of one file, the non-systematic layout of {@link StripePlanner}: the
 * file's blocks in order, k pieces per stripe (a short last stripe has virtual zero pieces, never stored), and each
 * stripe's n codewords on n distinct DataNodes dealt across the racks in turn, so a rack loss erases as few codewords
 * of a stripe as the topology allows. File-level stripes only: a codeword file carries the archived file's own
 * permissions, which is sound only when it encodes nothing but that file's bytes.
 */
public final class SealedPlanner {
  private SealedPlanner() {}

  /**
   * @param codewordDir the codeword directory of a stripe id (what the manifest records as its "parity path")
   */
  public static StripeManifest plan(SourceFile file, String codeSpec, Topology topology, LongFunction<String> codewordDir) {
    LinearCode code = StripePlanner.code(StripeLayout.NON_SYSTEMATIC, file.path(), codeSpec);
    if (file.blocks().isEmpty()) {
      throw new ArchivalPlanException(file.path() + " holds no data blocks to archive");
    }
    if (topology.nodeCount() < code.n()) {
      throw new ArchivalPlanException(code.spec() + " stores " + code.n() + " codewords on distinct DataNodes, the"
          + " cluster has " + topology.nodeCount() + " live");
    }
    List<String> order = dealtAcrossRacks(topology);
    Map<String, String> rackOf = StripePlanner.rackOfNode(topology);
    long[] offsets = new long[file.blocks().size()];
    for (int b = 1; b < offsets.length; b++) {
      offsets[b] = offsets[b - 1] + file.blocks().get(b - 1).length();
    }
    List<ArchivedStripe> stripes = StripePlanner.stripes(code, file.path(), ArchiveScope.FILE, List.of(file), 0,
        (id, blocks) -> {
          List<SourcePiece> pieces = new ArrayList<>();
          for (DataBlock b : blocks) {
            pieces.add(new SourcePiece(file.inodeId(), b.blockId(), b.block().generationStamp(), b.length(),
                StripeMember.NO_CRC, offsets[b.index()]));
          }
          long unit = pieces.stream().mapToLong(SourcePiece::length).max().orElse(0);
          List<StripeMember> members = new ArrayList<>();
          for (int i = 0; i < code.n(); i++) {
            // n consecutive places of the deal (mod its length, at least n) are n distinct nodes; each stripe
            // starts where the last ended, so the codewords of a long file spread over every node.
            String node = order.get((int) ((id * code.n() + i) % order.size()));
            members.add(StripeMember.plannedParity(UnitRole.CODED, unit, node, rackOf.get(node)));
          }
          return new ArchivedStripe(id, code.spec(), code.formatVersion(), StripeState.PLANNED,
              codewordDir.apply(id), 0, members, pieces);
        });
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
}
