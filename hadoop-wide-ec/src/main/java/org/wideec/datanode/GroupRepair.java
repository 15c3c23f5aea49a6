package org.wideec.datanode;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.apache.hadoop.hdfs.security.token.block.BlockTokenIdentifier;
import org.apache.hadoop.security.token.Token;
import org.wideec.topology.hdfs.DataNodeSites;
import org.wideec.transport.hdfs.TokenBytes;
import org.apache.hadoop.hdfs.util.StripedBlockUtil;
import org.wideec.code.LinearCode;
import org.wideec.coder.StripedCodec;
import org.wideec.repair.BlockRef;
import org.wideec.repair.RepairScheme;
import org.wideec.repair.StripeRepair;
import org.wideec.repair.UnitLocation;

/**
 * An HDFS striped block group as a repair: internal block lengths, which data units are zero because the
 * group is short, where each live unit is (NameNode's view, racks included) and which replica holds it.
 */
public record GroupRepair(StripeRepair repair, Map<String, DatanodeInfo> nodes, long[] unitLengths) {

  /**
   * @param liveUnits units with a live replica, paired with {@code liveLocations}
   * @param wanted the units to rebuild; null = every missing unit with bytes (in index order)
   * @param tokens the serialized READ token of an internal block (empty when block tokens are off)
   */
  public static GroupRepair of(ExtendedBlock group, ErasureCodingPolicy policy, int[] liveUnits,
      DatanodeInfo[] liveLocations, int[] wanted, RepairScheme scheme, Function<ExtendedBlock, byte[]> tokens) {
    int k = policy.getNumDataUnits();
    int n = k + policy.getNumParityUnits();
    LinearCode code = StripedCodec.byName(policy.getCodecName()).codeFor(k, policy.getNumParityUnits());
    long[] length = new long[n];
    for (int i = 0; i < n; i++) {
      length[i] = StripedBlockUtil.getInternalBlockLength(group.getNumBytes(), policy.getCellSize(), k, i);
    }
    Map<String, DatanodeInfo> nodes = new HashMap<>();
    Map<Integer, UnitLocation> survivors = new HashMap<>();
    Map<Integer, BlockRef> blocks = new HashMap<>();
    Set<Integer> wantedSet = new HashSet<>();
    if (wanted != null) {
      for (int w : wanted) {
        wantedSet.add(w);
      }
    }
    for (int j = 0; j < liveUnits.length; j++) {
      int u = liveUnits[j];
      if (wantedSet.contains(u)) {
        continue; // treated as lost (a benchmark rebuilding a unit that still exists, to compare)
      }
      DatanodeInfo d = liveLocations[j];
      nodes.put(d.getXferAddr(), d);
      survivors.put(u, new UnitLocation(u, DataNodeSites.of(d)));
      ExtendedBlock internal = new ExtendedBlock(group.getBlockPoolId(), group.getBlockId() + u, length[u],
          group.getGenerationStamp());
      blocks.put(u, new BlockRef(group.getBlockPoolId(), internal.getBlockId(), internal.getGenerationStamp(), length[u],
          tokens.apply(internal)));
    }
    Set<Integer> zeros = new HashSet<>();
    List<Integer> lost = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      if (!survivors.containsKey(i)) {
        if (length[i] == 0) {
          zeros.add(i);
        } else if (wanted == null || wantedSet.contains(i)) {
          lost.add(i);
        }
      }
    }
    int[] lostUnits = lost.stream().mapToInt(Integer::intValue).toArray();
    long[] lostLengths = new long[lostUnits.length];
    for (int i = 0; i < lostUnits.length; i++) {
      lostLengths[i] = length[lostUnits[i]];
    }
    StripeRepair r = lostUnits.length == 0 ? null : StripeRepair.of("block group " + group.getBlockName() + " ("
        + policy.getName() + ")", code, lostUnits, lostLengths, survivors, blocks, zeros, scheme);
    return new GroupRepair(r, nodes, length);
  }

  /** The block tokens the NameNode minted for a located group's internal blocks (what a client holds). */
  public static Function<ExtendedBlock, byte[]> tokensOf(LocatedStripedBlock g) {
    Map<Long, byte[]> byId = new HashMap<>();
    for (int i = 0; i < g.getBlockIndices().length; i++) {
      Token<BlockTokenIdentifier> t = g.getBlockTokens() == null || g.getBlockTokens().length <= i
          ? null : g.getBlockTokens()[i];
      byId.put(g.getBlock().getBlockId() + g.getBlockIndices()[i], TokenBytes.of(t));
    }
    return b -> byId.getOrDefault(b.getBlockId(), new byte[0]);
  }
}
