package org.wideec.protocol;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.wideec.repair.BlockRef;
import org.wideec.topology.Endpoint;
import org.wideec.archive.encode.RapidRaidPlan;
import org.wideec.archive.encode.RapidRaidPipeline;

/**
 * The requests that run a {@link RapidRaidPlan}'s pipeline on DataNodes (pure data): position i's request names its
 * pieces with their psi/xi, the block its codeword c_i goes into (the archiver's allocation, with its WRITE token),
 * and position i-1's slice port and request nested, so asking the last position sets up the whole chain backwards.
 */
public final class RapidRaidRequests {
  private RapidRaidRequests() {}

  /**
   * @param pieces every piece's replica with its READ token; a virtual piece of a short stripe as a block of 0 bytes
   * @param endpoints the slice port of every position's node, by position
   * @param outputs the allocated codeword block of every position, by position
   */
  public static RapidRaidStepRequest last(RapidRaidPlan plan, Map<Integer, BlockRef> pieces, List<Endpoint> endpoints,
      List<EncodeTreeRequest.ParityOutput> outputs, int checksumType, int bytesPerChecksum) {
    int n = plan.code().n();
    if (endpoints.size() != n || outputs.size() != n) {
      throw new IllegalArgumentException(plan.name() + ": " + endpoints.size() + " slice ports and " + outputs.size()
          + " codeword blocks for a chain of " + n + " positions");
    }
    RapidRaidStepRequest req = null;
    for (int i = 0; i < n; i++) {
      List<RapidRaidStepRequest.Piece> mine = piecesOf(plan, i, pieces);
      if (outputs.get(i).unit() != i || outputs.get(i).block().numBytes() != plan.unitBytes()) {
        throw new IllegalArgumentException(plan.name() + ": position " + i + " is given codeword block "
            + outputs.get(i).block() + " of unit " + outputs.get(i).unit() + "; codewords are " + plan.unitBytes()
            + " bytes");
      }
      RapidRaidStepRequest.Upstream up = i == 0 ? null : new RapidRaidStepRequest.Upstream(endpoints.get(i - 1), req);
      req = new RapidRaidStepRequest(plan.name(), i, mine, plan.unitBytes(), plan.sliceBytes(), up, i < n - 1,
          outputs.get(i), checksumType, bytesPerChecksum);
    }
    return req;
  }

  /**
   * Position {@code i}'s pieces with their psi/xi coefficients (Xu et al., §3), each on the replica named for it.
   *
   * @throws IllegalArgumentException naming the plan and the piece when no replica is named for one
   */
  public static List<RapidRaidStepRequest.Piece> piecesOf(RapidRaidPlan plan, int i, Map<Integer, BlockRef> pieces) {
    RapidRaidPipeline.Position p = plan.pipeline().position(i);
    List<RapidRaidStepRequest.Piece> mine = new ArrayList<>();
    int[] js = p.pieces();
    for (int t = 0; t < js.length; t++) {
      BlockRef b = pieces.get(js[t]);
      if (b == null) {
        throw new IllegalArgumentException(plan.name() + ": no replica named for piece " + js[t]);
      }
      mine.add(new RapidRaidStepRequest.Piece(b, p.psi()[t], p.xi()[t]));
    }
    return mine;
  }
}
