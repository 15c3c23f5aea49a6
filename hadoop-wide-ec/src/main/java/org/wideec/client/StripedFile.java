package org.wideec.client;

import java.util.BitSet;
import org.apache.hadoop.hdfs.DFSClient;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.wideec.code.LinearCode;
import org.wideec.coder.ErasureCoder;

/**
 * One open striped file of our codec: what every read of it needs to know. {@code chains} runs pipelined degraded
 * reads; null when the FileSystem reads lost units by direct decode ({@code wide-ec.client.degraded-read=direct}).
 */
record StripedFile(DFSClient client, String src, ErasureCodingPolicy policy, LinearCode code, ErasureCoder coder,
    boolean verifyChecksum, ReadPathCounters counters, RepairChains chains) {

  BlockGroupLayout layout(LocatedStripedBlock group) {
    return new BlockGroupLayout(policy.getNumDataUnits(), policy.getCellSize(), group.getBlockSize());
  }

  /** Units the NameNode lists a replica of. */
  static BitSet liveUnits(LocatedStripedBlock group) {
    BitSet live = new BitSet();
    for (byte i : group.getBlockIndices()) {
      live.set(i);
    }
    return live;
  }

  /**
   * True when a data unit holding bytes of this group has no listed replica. Lost parities alone leave
   * every data cell readable as it is, so such groups stay on the stock path.
   */
  boolean lostData(LocatedStripedBlock group) {
    BitSet live = liveUnits(group);
    BlockGroupLayout layout = layout(group);
    for (int u = 0; u < policy.getNumDataUnits(); u++) {
      if (!live.get(u) && layout.internalLength(u) > 0) {
        return true;
      }
    }
    return false;
  }
}
