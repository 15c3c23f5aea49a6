package org.wideec.cli;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicyInfo;
import org.wideec.code.LinearCode;
import org.wideec.code.StockReconstruction;
import org.wideec.coder.StripedCodec;

/**
 * What a DataNode without a running wide-ec worker means for repairs: HDFS's own reconstructor runs its tasks, and
 * for the enabled LRC policies it cannot rebuild some losses the code decodes ({@link StockReconstruction}); such a
 * group's task fails and is retried forever. One line naming each such policy with a loss it cannot rebuild.
 */
final class StockRepairHazard {
  private final List<String> policies;

  private StockRepairHazard(List<String> policies) {
    this.policies = policies;
  }

  /** The enabled policies of our codecs, judged once for a command's run. */
  static StockRepairHazard of(DistributedFileSystem dfs) throws IOException {
    List<String> found = new ArrayList<>();
    for (ErasureCodingPolicyInfo info : dfs.getAllErasureCodingPolicies()) {
      ErasureCodingPolicy p = info.getPolicy();
      if (!info.isEnabled() || !StripedCodec.names().contains(p.getCodecName())) {
        continue;
      }
      try {
        LinearCode code = StripedCodec.byName(p.getCodecName()).codeFor(p.getNumDataUnits(), p.getNumParityUnits());
        int[] example = code.isSystematic() ? StockReconstruction.smallestLossOnlyOurWorkerRebuilds(code) : null;
        if (example != null) {
          found.add(p.getName() + " (e.g. units " + Arrays.toString(example) + " lost)");
        }
      } catch (RuntimeException e) {
        // A policy that defines no code: check-cluster reports it on its own line.
      }
    }
    return new StockRepairHazard(found);
  }

  /** Null when every enabled policy of ours is rebuilt by HDFS's own reconstructor too (MDS codes only). */
  String describe() {
    return policies.isEmpty() ? null : "REPAIR HAZARD: HDFS's own reconstructor runs this DataNode's reconstruction"
        + " tasks and cannot rebuild some losses of " + String.join(", ", policies) + ", so such a group's"
        + " repair fails and is retried forever";
  }
}
