package org.wideec.client;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import org.apache.hadoop.fs.StorageType;
import org.apache.hadoop.hdfs.DFSClient;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.apache.hadoop.hdfs.security.token.block.BlockTokenIdentifier;
import org.apache.hadoop.security.token.Token;
import org.wideec.code.LinearCode;
import org.wideec.coder.ErasureCoder;
import org.wideec.repair.UnusableHelpers;

/**
 * One open striped file of our codec: what every read of it needs to know. {@code chains} runs pipelined degraded
 * reads; null when the FileSystem reads lost units by direct decode ({@code wide-ec.client.degraded-read=direct}).
 * {@code unreachable} holds the DataNodes (by transfer address) this FileSystem's reads could not reach lately, shared
 * by its streams.
 */
record StripedFile(DFSClient client, String src, ErasureCodingPolicy policy, LinearCode code, ErasureCoder coder,
    boolean verifyChecksum, ReadPathCounters counters, RepairChains chains, UnusableHelpers unreachable) {

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

  /**
   * The group as listed, less the replicas on DataNodes this FileSystem could not reach lately; the group itself when
   * none of its replicas is there. A DataNode that died is listed until the NameNode declares it dead (10.5 minutes by
   * default), and HDFS's striped reader, finding it unreachable, decodes a lost data unit from k units of the group;
   * without it listed, a lost unit reads through its local group like any loss the NameNode knows of.
   *
   * <p>The memory is a guess, not the NameNode's word: a DataNode it holds may be back (restarted, its link healed).
   * So when the group cannot be decoded without those replicas, it is returned as listed and the read asks them too:
   * on the real-process cluster a restarted DataNode's replica was avoided for 5 minutes, and a rack's loss then left
   * a group of Azure-LRC 12+2+2 four units short, its reads failing while the replica was there.
   */
  LocatedStripedBlock reachable(LocatedStripedBlock g) {
    DatanodeInfo[] at = g.getLocations();
    List<Integer> keep = new ArrayList<>(at.length);
    for (int i = 0; i < at.length; i++) {
      if (unreachable.why(at[i].getXferAddr()) == null) { // a lookup, no copy of the memory: every read asks
        keep.add(i);
      }
    }
    if (keep.size() == at.length || !decodableWith(g, keep)) {
      return g;
    }
    int n = keep.size();
    DatanodeInfo[] locations = new DatanodeInfo[n];
    String[] storageIds = new String[n];
    StorageType[] storageTypes = new StorageType[n];
    byte[] indices = new byte[n];
    Token<BlockTokenIdentifier>[] tokens = g.getBlockTokens() == null ? null : java.util.Arrays.copyOf(
        g.getBlockTokens(), n);
    for (int j = 0; j < n; j++) {
      int i = keep.get(j);
      locations[j] = at[i];
      storageIds[j] = g.getStorageIDs() == null ? null : g.getStorageIDs()[i];
      storageTypes[j] = g.getStorageTypes() == null ? null : g.getStorageTypes()[i];
      indices[j] = g.getBlockIndices()[i];
      if (tokens != null) {
        tokens[j] = g.getBlockTokens().length > i ? g.getBlockTokens()[i] : null;
      }
    }
    LocatedStripedBlock out = new LocatedStripedBlock(g.getBlock(), locations, storageIds, storageTypes, indices,
        g.getStartOffset(), g.isCorrupt(), null);
    out.setBlockToken(g.getBlockToken());
    if (tokens != null) {
      out.setBlockTokens(tokens);
    }
    return out;
  }

  /** Whether the group's data can be decoded from the replicas at positions {@code keep} of its listing. */
  private boolean decodableWith(LocatedStripedBlock g, List<Integer> keep) {
    BitSet present = new BitSet();
    for (int i : keep) {
      present.set(g.getBlockIndices()[i]);
    }
    BlockGroupLayout layout = layout(g);
    List<Integer> erased = new ArrayList<>();
    for (int u = 0; u < code.n(); u++) {
      if (!present.get(u) && layout.internalLength(u) > 0) { // a unit of no bytes reads as zeros
        erased.add(u);
      }
    }
    return code.isDecodable(erased.stream().mapToInt(Integer::intValue).toArray());
  }
}
