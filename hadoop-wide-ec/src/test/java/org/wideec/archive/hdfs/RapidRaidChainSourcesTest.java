package org.wideec.archive.hdfs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.junit.jupiter.api.Test;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.SourcePiece;
import org.wideec.archive.StripeMember;
import org.wideec.archive.StripeState;
import org.wideec.archive.encode.RapidRaidChain;
import org.wideec.archive.encode.RapidRaidPipeline;
import org.wideec.code.UnitRole;

/**
 * The RapidRAID chain of a sealed stripe over where HDFS put the replicas (6 racks x 3 DataNodes, three replicas of
 * each of the 11 pieces, as the stock policy lays them out: one node, then two nodes of another rack): every copy has
 * a source HDFS lets drop its replica, and a copy without one moves the position, not the node out of the chain.
 */
class RapidRaidChainSourcesTest {
  private static final String RR16 = "rapidraid:n=16,k=11";

  private static DatanodeInfo node(int rack, int i) {
    return new DatanodeInfo.DatanodeInfoBuilder().setIpAddr("10.0." + rack + "." + i).setHostName("n" + rack + "-" + i)
        .setXferPort(9866).setDatanodeUuid("uuid-" + rack + "-" + i).setNetworkLocation("/rack" + rack).build();
  }

  /**
   * A layout seen to fail before (one in a few hundred of the stock policy's random ones): three copies each found
   * the one holder in the target's rack to be the other position reading the piece, and leaving each target out of
   * the chain left 15 nodes for 16 positions. Piece j's replicas as (rack, node) pairs.
   */
  private static final int[][][] LAYOUT = {
      {{0, 1}, {4, 1}, {4, 2}}, {{1, 1}, {0, 2}, {0, 1}}, {{2, 2}, {0, 2}, {0, 0}}, {{5, 0}, {3, 0}, {3, 2}},
      {{5, 2}, {0, 1}, {0, 0}}, {{5, 0}, {1, 2}, {1, 0}}, {{4, 2}, {3, 1}, {3, 0}}, {{5, 1}, {4, 1}, {4, 0}},
      {{0, 1}, {4, 1}, {4, 2}}, {{0, 2}, {5, 1}, {5, 0}}, {{1, 1}, {0, 2}, {0, 0}}};

  @Test
  void copiesWithoutASourceMoveTheirPositionsAndLeaveNoNodeOutOfASixteenNodeChainOnEighteen() throws Exception {
    Map<String, DatanodeInfo> live = new LinkedHashMap<>();
    DatanodeInfo[][] nodes = new DatanodeInfo[6][3];
    for (int r = 0; r < 6; r++) {
      for (int i = 0; i < 3; i++) {
        nodes[r][i] = node(r, i);
        live.put(nodes[r][i].getXferAddr(), nodes[r][i]);
      }
    }
    List<SourcePiece> sources = new ArrayList<>();
    Map<Integer, LocatedBlock> located = new HashMap<>();
    for (int j = 0; j < LAYOUT.length; j++) {
      sources.add(new SourcePiece(16500, 1000 + j, 1, 4096, StripeMember.NO_CRC, 4096L * j));
      DatanodeInfo[] at = new DatanodeInfo[3];
      for (int c = 0; c < 3; c++) {
        at[c] = nodes[LAYOUT[j][c][0]][LAYOUT[j][c][1]];
      }
      located.put(j, new LocatedBlock(new ExtendedBlock("BP-1", 1000 + j, 4096, 1), at));
    }
    List<StripeMember> codewords = new ArrayList<>();
    for (int i = 0; i < 16; i++) {
      codewords.add(StripeMember.plannedParity(UnitRole.CODED, 4096, "planned-" + i, "/rack" + i % 6));
    }
    ArchivedStripe s = new ArchivedStripe(0, RR16, 1, StripeState.PLANNED, "/.wideec/codewords/16500/0", 0, codewords,
        sources);

    RapidRaidChain chain = RapidRaidChainSources.chainWithSources(s, "/rr stripe 0", "/rr", located, live, Set.of(),
        (short) 3);

    assertEquals(16, chain.sites().stream().map(org.wideec.topology.Site::node).distinct().count(), chain.toString());
    // Replay the copies over the replicas: each from a holder HDFS lets drop its replica (in the target's rack when
    // that rack holds one; never a node whose position reads the piece), and then every position holds its pieces.
    Map<Integer, Set<String>> holders = new HashMap<>();
    located.forEach((j, lb) -> {
      Set<String> h = new HashSet<>();
      for (DatanodeInfo d : lb.getLocations()) {
        h.add(d.getXferAddr());
      }
      holders.put(j, h);
    });
    for (RapidRaidChain.Move m : chain.moves()) {
      Set<String> h = holders.get(m.piece());
      assertTrue(h.contains(m.from().node()), "a copy from a holder: " + m);
      assertTrue(RapidRaidChainSources.needing(s, chain, m.piece()).stream().noneMatch(m.from().node()::equals),
          "never from a node whose position reads the piece: " + m);
      boolean rackHolds = h.stream().anyMatch(a -> live.get(a).getNetworkLocation().equals(m.to().rack()));
      assertTrue(!rackHolds || m.from().rack().equals(m.to().rack()), "from the target's rack when it holds one: " + m);
      h.add(m.to().node());
      if (h.size() > 3) {
        h.remove(m.from().node()); // the excess replica HDFS drops, as BlockMover waits for
      }
    }
    for (int i = 0; i < 16; i++) {
      for (int j : RapidRaidPipeline.piecesAt(16, 11, i)) {
        assertTrue(holders.get(j).contains(chain.site(i).node()), "position " + i + " holds piece " + j);
      }
    }
  }
}
