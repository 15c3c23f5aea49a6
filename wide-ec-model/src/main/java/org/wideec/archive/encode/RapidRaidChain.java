package org.wideec.archive.encode;

import java.util.List;
import org.wideec.topology.Site;

/**
 * Where RapidRAID's pipeline runs (pure data): the node of every chain position (distinct nodes, position order),
 * the replica copies needed first so that each position's node holds its pieces, whether losing any one rack still
 * leaves a decodable set of codewords, and how many hops of the chain cross racks.
 */
public record RapidRaidChain(List<Site> sites, List<Move> moves, boolean rackLossTolerant, int crossRackHops) {
  /** A copy of piece {@code piece}'s replica from {@code from} onto chain node {@code to}, before encoding. */
  public record Move(int piece, Site from, Site to) {
    public boolean crossRack() {
      return !from.sameRack(to);
    }
  }

  public RapidRaidChain {
    sites = List.copyOf(sites);
    moves = List.copyOf(moves);
  }

  public Site site(int position) {
    return sites.get(position);
  }
}
