package org.wideec.datanode;

import java.util.BitSet;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.util.StripedBlockUtil;
import org.wideec.code.LinearCode;
import org.wideec.code.RemainingTolerance;
import org.wideec.coder.StripedCodec;
import org.wideec.repair.RepairUrgency;

/**
 * How urgent a reconstruction task is, for the worker's queue ({@link RepairUrgency}): for a group of our codecs the
 * code's own remaining tolerance, with the live units the NameNode named (units a short group never stored are zeros,
 * never lost); for HDFS's own codecs, which are MDS, the live units beyond the data units.
 */
final class TaskUrgency {
  private final AtomicLong queued = new AtomicLong();

  /** The task's urgency, in the order tasks were queued among equals. */
  RepairUrgency of(ReconstructionTask t) {
    return new RepairUrgency(tolerance(t), queued.getAndIncrement());
  }

  /** A task of no group (or one that cannot be read): after every repair, in queue order. */
  RepairUrgency unknown() {
    return new RepairUrgency(Integer.MAX_VALUE, queued.getAndIncrement());
  }

  static int tolerance(ReconstructionTask t) {
    ErasureCodingPolicy p = t.policy();
    int k = p.getNumDataUnits();
    int n = k + p.getNumParityUnits();
    BitSet live = new BitSet();
    for (byte u : t.liveIndices()) {
      live.set(u);
    }
    if (!RepairWorker.ours(t)) {
      return live.cardinality() - k;
    }
    LinearCode code = StripedCodec.byName(p.getCodecName()).codeFor(k, p.getNumParityUnits());
    BitSet zeros = new BitSet();
    int[] lost = new int[n - Math.min(n, live.cardinality())];
    int lostCount = 0;
    for (int u = 0; u < n; u++) {
      if (live.get(u)) {
        continue;
      }
      if (StripedBlockUtil.getInternalBlockLength(t.blockGroup().getNumBytes(), p.getCellSize(), k, u) == 0) {
        zeros.set(u);
      } else {
        lost[lostCount++] = u;
      }
    }
    return RemainingTolerance.of(code, zeros, java.util.Arrays.copyOf(lost, lostCount)).value();
  }
}
