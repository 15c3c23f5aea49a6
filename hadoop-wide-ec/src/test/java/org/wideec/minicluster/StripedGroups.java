package org.wideec.minicluster;

import org.wideec.datanode.FsDatasetUnitStore;
import org.wideec.repair.BlockRef;
import org.wideec.repair.UnitStore;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedBlocks;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.hdfs.util.StripedBlockUtil;
import org.apache.hadoop.io.IOUtils;
import org.wideec.code.LinearCode;
import org.wideec.coder.CellLayout;
import org.wideec.time.Backoff;

/** Inspects the block groups of a striped file in a mini cluster: where units are, and what they hold. */
public final class StripedGroups {
  private StripedGroups() {}

  public static List<LocatedStripedBlock> groups(DistributedFileSystem fs, Path file) throws IOException {
    LocatedBlocks lbs = fs.getClient().getLocatedBlocks(file.toUri().getPath(), 0, Long.MAX_VALUE);
    List<LocatedStripedBlock> out = new ArrayList<>();
    for (LocatedBlock b : lbs.getLocatedBlocks()) {
      out.add((LocatedStripedBlock) b);
    }
    return out;
  }

  /** Internal block indexes a group is missing among the units it should have. */
  public static List<Integer> missingUnits(LocatedStripedBlock g, ErasureCodingPolicy policy) {
    int[] copies = copies(g, policy);
    List<Integer> missing = new ArrayList<>();
    for (int i = 0; i < copies.length; i++) {
      long len = StripedBlockUtil.getInternalBlockLength(g.getBlockSize(), policy, i);
      if (copies[i] == 0 && len > 0) {
        missing.add(i);
      }
    }
    return missing;
  }

  /** True when every unit with data is stored exactly once (no missing unit, no excess copy pending deletion). */
  public static boolean isSettled(LocatedStripedBlock g, ErasureCodingPolicy policy) {
    int[] copies = copies(g, policy);
    for (int i = 0; i < copies.length; i++) {
      boolean wanted = StripedBlockUtil.getInternalBlockLength(g.getBlockSize(), policy, i) > 0;
      if (copies[i] != (wanted ? 1 : 0)) {
        return false;
      }
    }
    return true;
  }

  private static int[] copies(LocatedStripedBlock g, ErasureCodingPolicy policy) {
    int[] copies = new int[policy.getNumDataUnits() + policy.getNumParityUnits()];
    for (byte idx : g.getBlockIndices()) {
      copies[idx]++;
    }
    return copies;
  }

  /** Rack of each unit of the group (null for units not stored), by internal block index. */
  public static String[] rackOfUnit(LocatedStripedBlock g, int n) {
    String[] racks = new String[n];
    for (int i = 0; i < g.getBlockIndices().length; i++) {
      racks[g.getBlockIndices()[i]] = g.getLocations()[i].getNetworkLocation();
    }
    return racks;
  }

  /** Units of the group by rack, e.g. {/rack0=[0, 1, 2], ...}. */
  public static java.util.Map<String, List<Integer>> unitsByRack(LocatedStripedBlock g) {
    java.util.Map<String, List<Integer>> m = new java.util.TreeMap<>();
    for (int i = 0; i < g.getBlockIndices().length; i++) {
      m.computeIfAbsent(g.getLocations()[i].getNetworkLocation(), r -> new ArrayList<>()).add((int) g.getBlockIndices()[i]);
    }
    return m;
  }

  /**
   * The unit indices of a group, and those of them located on a node other than {@code node}: equal when every unit
   * is live elsewhere too (a node leaving service still lists its units).
   */
  public static java.util.Map.Entry<java.util.Set<Integer>, java.util.Set<Integer>> unitsAndUnitsOutside(
      LocatedStripedBlock g, String node) {
    java.util.Set<Integer> all = new java.util.TreeSet<>();
    java.util.Set<Integer> outside = new java.util.TreeSet<>();
    for (int i = 0; i < g.getBlockIndices().length; i++) {
      all.add((int) g.getBlockIndices()[i]);
      if (!g.getLocations()[i].getXferAddr().equals(node)) {
        outside.add((int) g.getBlockIndices()[i]);
      }
    }
    return java.util.Map.entry(all, outside);
  }

  /** The node holding unit {@code index} of the group, or null. */
  public static DatanodeInfo location(LocatedStripedBlock g, int index) {
    byte[] idx = g.getBlockIndices();
    for (int i = 0; i < idx.length; i++) {
      if (idx[i] == index) {
        return g.getLocations()[i];
      }
    }
    return null;
  }

  /**
   * Waits until every group of the file has each of its units exactly once (rebuilt, and any excess copy
   * deleted); returns the seconds it took.
   */
  public static double awaitComplete(DistributedFileSystem fs, Path file, ErasureCodingPolicy policy, long timeoutMs)
      throws IOException, InterruptedException {
    long start = System.nanoTime();
    Backoff poll = Backoff.doubling(200, 200, timeoutMs);
    while (true) {
      StringBuilder unsettled = new StringBuilder();
      for (LocatedStripedBlock g : groups(fs, file)) {
        if (!isSettled(g, policy)) {
          unsettled.append(' ').append(g.getBlock().getBlockName()).append(" units ")
              .append(Arrays.toString(g.getBlockIndices()));
        }
      }
      if (unsettled.length() == 0) {
        return (System.nanoTime() - start) / 1e9;
      }
      if (poll.expired()) {
        throw new IOException("block groups of " + file + " still incomplete after " + timeoutMs + " ms:" + unsettled);
      }
      poll.pause();
    }
  }

  /**
   * Waits for the state failure drills start from: every unit of every group of the files reported to the
   * NameNode (a file closes, and reads, before its last units' reports arrive, so a fresh group can look
   * short) and no redundancy work left (MiniClusters.awaitQuiet).
   */
  public static void awaitSettled(MiniDFSCluster cluster, DistributedFileSystem fs, ErasureCodingPolicy policy,
      Collection<Path> files, long timeoutMs) throws IOException, InterruptedException {
    for (Path f : files) {
      awaitComplete(fs, f, policy, timeoutMs);
    }
    MiniClusters.awaitQuiet(cluster, timeoutMs);
  }

  /**
   * Reads every internal block of every group straight from the DataNode that stores it and compares it
   * with what the code computes from the file's data. Returns the number of internal blocks checked.
   */
  public static int verifyEveryUnit(MiniDFSCluster cluster, DistributedFileSystem fs, Path file, ErasureCodingPolicy policy,
      LinearCode code, byte[] fileData) throws IOException {
    int checked = 0;
    long groupOffset = 0;
    for (LocatedStripedBlock g : groups(fs, file)) {
      long groupBytes = g.getBlockSize();
      byte[] groupData = Arrays.copyOfRange(fileData, (int) groupOffset, (int) (groupOffset + groupBytes));
      byte[] idx = g.getBlockIndices();
      for (int i = 0; i < idx.length; i++) {
        int unit = idx[i];
        ExtendedBlock internal = StripedBlockUtil.constructInternalBlock(g.getBlock(), policy, unit);
        byte[] expected = CellLayout.internalBlock(code, policy.getCellSize(), groupData, unit);
        byte[] actual;
        try {
          actual = readReplica(cluster, g.getLocations()[i], internal, expected.length);
        } catch (IOException e) {
          throw new IOException("unit " + unit + " of " + g.getBlock() + " (indices " + Arrays.toString(idx)
              + ") on " + g.getLocations()[i] + ": " + e.getMessage(), e);
        }
        if (!Arrays.equals(expected, actual)) {
          throw new IOException("unit " + unit + " of " + g.getBlock() + " on " + g.getLocations()[i]
              + " differs from what " + code.spec() + " computes");
        }
        checked++;
      }
      groupOffset += groupBytes;
    }
    return checked;
  }

  private static byte[] readReplica(MiniDFSCluster cluster, DatanodeInfo where, ExtendedBlock block, int len)
      throws IOException {
    for (DataNode dn : cluster.getDataNodes()) {
      if (dn.getXferPort() == where.getXferPort() && dn.getDatanodeId().getIpAddr().equals(where.getIpAddr())) {
        // Read through the checksum-verified path the repair helpers use: a stored replica must also match
        // its own checksum file, not only the bytes the code computes.
        byte[] buf = new byte[len];
        try (UnitStore.Reader in = new FsDatasetUnitStore(dn).open(new BlockRef(block.getBlockPoolId(),
            block.getBlockId(), block.getGenerationStamp(), len))) {
          in.read(0, buf, 0, len);
        }
        return buf;
      }
    }
    throw new IOException("no running DataNode at " + where);
  }
}
