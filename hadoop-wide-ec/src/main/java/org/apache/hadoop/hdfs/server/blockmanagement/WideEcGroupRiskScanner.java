package org.apache.hadoop.hdfs.server.blockmanagement;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.server.namenode.FSNamesystem;
import org.wideec.code.LinearCode;
import org.wideec.code.RemainingTolerance;
import org.wideec.coder.StripedCodec;

/**
 * Finds block groups of our codecs whose true remaining tolerance is 0 or less. HDFS counts live units against
 * m and believes a 12+2+2 group with 12 live units is readable; the code may already be one wrong loss from data
 * loss, or past it (DESIGN.md §2). Walks only HDFS's low-redundancy queue (every group that lost a unit is in
 * it), under the namesystem read lock, and judges each group with the pure model. A thin adapter in Hadoop's
 * package because the queue's class is package-private.
 */
public final class WideEcGroupRiskScanner {
  /** A group at risk: the file, the group, its policy, the units lost and the remaining tolerance. */
  public record AtRisk(long blockId, String file, String policy, int[] lost, RemainingTolerance remaining) {}

  /** One scan: groups of our codecs examined, and those at risk (remaining tolerance 0 or data lost). */
  public record Scan(int examined, List<AtRisk> atRisk) {
    public long lost() {
      return atRisk.stream().filter(r -> r.remaining().dataLost()).count();
    }
  }

  private final Map<String, LinearCode> codes = new HashMap<>();

  public Scan scan(FSNamesystem fsn) {
    List<BlockInfoStriped> groups = new ArrayList<>();
    List<AtRisk> atRisk = new ArrayList<>();
    fsn.readLock();
    try {
      Iterator<BlockInfo> it = fsn.getBlockManager().neededReconstruction.iterator();
      while (it.hasNext()) {
        if (it.next() instanceof BlockInfoStriped g && StripedCodec.names().contains(g.getErasureCodingPolicy().getCodecName())) {
          groups.add(g);
        }
      }
      for (BlockInfoStriped g : groups) {
        AtRisk r = judge(fsn, g);
        if (r != null) {
          atRisk.add(r);
        }
      }
    } finally {
      fsn.readUnlock();
    }
    return new Scan(groups.size(), atRisk);
  }

  private AtRisk judge(FSNamesystem fsn, BlockInfoStriped g) {
    ErasureCodingPolicy p = g.getErasureCodingPolicy();
    LinearCode code = codes.computeIfAbsent(p.getName(),
        n -> StripedCodec.byName(p.getCodecName()).codeFor(p.getNumDataUnits(), p.getNumParityUnits()));
    BitSet live = new BitSet();
    for (BlockInfoStriped.StorageAndBlockIndex s : g.getStorageAndIndexInfos()) {
      DatanodeDescriptor dn = s.getStorage().getDatanodeDescriptor();
      if (dn.isAlive() && !dn.isDecommissioned()) {
        live.set(s.getBlockIndex());
      }
    }
    // Data units past the end of a short group never existed: not lost.
    int[] lost = java.util.stream.IntStream.range(0, code.n())
        .filter(u -> !live.get(u) && (u < g.getRealDataBlockNum() || u >= code.k())).toArray();
    RemainingTolerance remaining = RemainingTolerance.of(code, lost);
    if (remaining.value() > 0) {
      return null;
    }
    BlockCollection file = fsn.getBlockCollection(g.getBlockCollectionId());
    return new AtRisk(g.getBlockId(), file == null ? "(deleted)" : file.getName(), p.getName(), lost, remaining);
  }
}
