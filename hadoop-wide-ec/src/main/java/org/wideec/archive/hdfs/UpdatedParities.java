package org.wideec.archive.hdfs;

import java.io.IOException;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.StripeMember;
import org.wideec.archive.StripeUpdate;
import org.wideec.protocol.EncodeTreeRequest;

/**
 * The new parity blocks of one stripe update computed on the DataNodes, however they are computed (a delta plan's
 * roles or a chain re-encoding): a finalized replica is never rewritten, so each parity the update rewrites gets a new
 * single-block file allocated on its planned node, and the update's new members are read back from what the nodes
 * store, each checked against the CRC32C its writer computed before the manifest may name it.
 */
final class UpdatedParities {
  private static final Logger LOG = LoggerFactory.getLogger(UpdatedParities.class);
  private final DistributedFileSystem dfs;
  private final ParityFiles files;
  private final SlicePortClient ports;

  UpdatedParities(DistributedFileSystem dfs, ParityFiles files, SlicePortClient ports) {
    this.dfs = dfs;
    this.files = files;
    this.ports = ports;
  }

  /** A new single-block file for each parity the update rewrites, its block allocated on the planned node. */
  Map<Integer, ParityFiles.Allocated> allocate(StripeUpdate up, long version, long blockSize) throws IOException {
    long length = up.nextUnitLength();
    Map<Integer, ParityFiles.Allocated> allocated = new LinkedHashMap<>();
    for (int u : up.rewrittenParities()) {
      allocated.put(u, files.allocate(up.before(), u, up.after(u).plannedNode(), Math.max(blockSize, length), length,
          version));
    }
    return allocated;
  }

  /**
   * The update's new members: each parity file completed and checked against what its writer computed, and each
   * replaced or filled data unit with the CRC32C its holder reads.
   *
   * @param blocks the new block of each changed data unit the update keeps
   * @param holders the node each of those blocks is read on
   */
  Map<Integer, StripeMember> finish(StripeUpdate up, String name, Map<Integer, ParityFiles.Allocated> allocated,
      Map<Integer, EncodeTreeRequest.Stored> stored, Map<Integer, LocatedBlock> blocks,
      Map<Integer, DatanodeInfo> holders) throws IOException {
    long length = up.nextUnitLength();
    Map<Integer, StripeMember> out = new HashMap<>();
    for (Map.Entry<Integer, ParityFiles.Allocated> e : allocated.entrySet()) {
      out.put(e.getKey(), complete(up, e.getKey(), e.getValue(), stored.get(e.getKey()), length));
    }
    for (int u : up.changedUnits()) {
      if (!up.after(u).padding()) {
        LocatedBlock lb = blocks.get(u);
        String where = name + " unit " + u + " (new block " + lb.getBlock().getBlockId() + ")";
        out.put(u, up.after(u).withCrc(ports.crcOf(lb, holders.get(u), where)));
      }
    }
    return out;
  }

  /** Completes one new parity file and checks its node stores what its writer computed. */
  private StripeMember complete(StripeUpdate up, int u, ParityFiles.Allocated a, EncodeTreeRequest.Stored st,
      long length) throws IOException {
    ArchivedStripe s = up.before();
    String where = "stripe " + s.stripeId() + " unit " + u + " (" + a.file() + ")";
    if (st == null || st.length() != length) {
      throw new IOException(where + ": its writer reported " + (st == null ? "nothing" : st.length() + " bytes")
          + ", expected " + length + " bytes");
    }
    files.complete(s, u, a);
    LocatedBlock lb = ParityFiles.closedSingleBlock(dfs, s, u, a.file(), length);
    DatanodeInfo node = lb.getLocations()[0];
    long crc = ports.crcOf(lb, node, where);
    if (crc != st.crc32c()) {
      throw new IOException(where + ": " + node.getXferAddr() + " stores CRC32C 0x" + Long.toHexString(crc)
          + ", its writer computed 0x" + Long.toHexString(st.crc32c()));
    }
    StripeMember m = up.after(u); // a parity a fill brings on: its planned member, not the virtual one it was
    if (!node.getXferAddr().equals(m.plannedNode())) {
      LOG.warn("{}: HDFS placed the updated parity on {}, the plan says {}; left for the placement keeper", where,
          node.getXferAddr(), m.plannedNode());
    }
    return new StripeMember(m.role(), false, a.inode(), lb.getBlock().getBlockId(), lb.getBlock().getGenerationStamp(),
        length, crc, m.plannedNode(), m.plannedRack());
  }

  /** Deletes the allocated files of an update that will not run here (nothing else of it is stored yet). */
  void discard(Map<Integer, ParityFiles.Allocated> allocated) throws IOException {
    for (ParityFiles.Allocated a : allocated.values()) {
      dfs.delete(a.file(), false);
    }
  }
}
