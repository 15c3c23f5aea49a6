package org.wideec.demo;

import static org.wideec.demo.DemoArchive.SEALED_CODE;
import static org.wideec.demo.DemoFiles.human;
import static org.wideec.demo.DemoFiles.readAll;
import static org.wideec.demo.DemoFiles.require;
import static org.wideec.demo.DemoFiles.wideEcReader;
import static org.wideec.demo.DemoFiles.write;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.apache.hadoop.fs.CreateFlag;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.HdfsConstants;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.net.NetUtils;
import org.wideec.code.Codes;
import org.wideec.code.LinearCode;
import org.wideec.time.Backoff;

/** One object sealed by RapidRAID's pipeline (Pamies-Juarez et al., RapidRAID) and read back decoded. */
final class RapidRaidSealStage {
  private final DemoConsole console;
  /** The object's block size: each of its k pieces is one block. */
  private final long block;

  RapidRaidSealStage(DemoConsole console, long block) {
    this.console = console;
    this.block = block;
  }

  /** The sealed object's length, the bytes read back equal through WideEcFileSystem, and whether a stock open failed. */
  record SealRun(long bytes, long readBack, boolean stockOpenRefused) {}
  /**
   * One object sealed by RapidRAID's pipeline on the DataNodes: it becomes a placeholder whose stock open fails, and
   * reads back through WideEcFileSystem, decoded from its codewords.
   */
  SealRun seal(MiniDFSCluster cluster, Random rnd) throws Exception {
    DistributedFileSystem fs = cluster.getFileSystem();
    Path object = new Path("/object.bin");
    LinearCode rr = Codes.fromSpec(SEALED_CODE);
    List<DatanodeInfo> chain = oneNodePerRack(fs, rr.n());
    byte[] bytes = writeAlongChain(fs, object, chain, rr.n(), rr.k(), rnd);
    console.step(String.format("wrote %s, %d blocks (%s), as RapidRAID finds an object: two replicas of each block"
            + " along a chain of %d DataNodes on %d racks, block t on nodes t and t + %d (placed with HDFS favored nodes)",
        object, rr.k(), human(bytes.length), rr.n(), rr.n(), rr.n() - rr.k()));
    console.step("seal it with RapidRAID: the planner finds that chain (no copies needed); each position adds its"
        + " pieces into the stream it passes on and writes its own codeword, no byte of the file passes through the"
        + " tool, and the file becomes a placeholder");
    DemoConsole.Run sealed = console.tool(cluster, "archive", object.toString(), "--code", SEALED_CODE, "--encoder",
        "rapidraid");
    console.show(sealed, 12);
    require(sealed.rc() == 0, "archive " + object + " --encoder rapidraid failed (exit " + sealed.rc() + "): "
        + sealed.out() + sealed.err());

    console.command("hdfs dfs -cat " + object + "    (a stock client's open, here DistributedFileSystem.open)");
    String refusal = null;
    try (FSDataInputStream in = fs.open(object)) {
      in.read();
    } catch (Exception e) {
      refusal = String.valueOf(e.getMessage());
    }
    boolean refused = refusal != null && refusal.contains("raw erasure decoder");
    require(refused, "a stock open of the sealed " + object + " did not fail with the sealed codec's error: " + refusal);
    console.step("a stock client sees a placeholder of " + fs.getFileStatus(object).getLen() + " bytes and its open"
        + " fails before a byte moves: " + refusal.lines().findFirst().orElse(""));
    long back;
    try (FileSystem reader = wideEcReader(cluster)) {
      back = readAll(console, reader, Map.of(object, bytes), "WideEcFileSystem, " + object + " sealed (decoded from "
          + rr.k() + " of its " + rr.n() + " codewords)");
    }
    return new SealRun(bytes.length, back, refused);
  }

  /** The first live DataNode of each of the first {@code count} racks that are up, racks in name order. */
  private static List<DatanodeInfo> oneNodePerRack(DistributedFileSystem fs, int count) throws IOException {
    Map<String, DatanodeInfo> byRack = new TreeMap<>();
    for (DatanodeInfo d : fs.getClient().datanodeReport(HdfsConstants.DatanodeReportType.LIVE)) {
      byRack.merge(d.getNetworkLocation(), d, (a, b) -> a.getXferAddr().compareTo(b.getXferAddr()) <= 0 ? a : b);
    }
    require(byRack.size() >= count, "a chain of " + count + " on racks of its own needs " + count + " racks up, "
        + byRack.size() + " are");
    return new ArrayList<>(byRack.values()).subList(0, count);
  }

  /**
   * Writes k blocks of random bytes block by block (the first by create, each next by an append that starts a new
   * block), block t's two replicas favoring chain nodes t and t + n - k: where position t and t + n - k of RapidRAID's
   * pipeline read piece t, so the chain needs no copies. Checks that HDFS put every replica there (waiting up to 30 s
   * for replicas still being reported).
   */
  private byte[] writeAlongChain(DistributedFileSystem fs, Path p, List<DatanodeInfo> chain, int n, int k,
      Random rnd) throws IOException {
    byte[] bytes = new byte[(int) (k * block)];
    rnd.nextBytes(bytes);
    for (int t = 0; t < k; t++) {
      InetSocketAddress[] favored = {NetUtils.createSocketAddr(chain.get(t).getXferAddr()),
          NetUtils.createSocketAddr(chain.get(t + n - k).getXferAddr())};
      try (FSDataOutputStream o = t == 0
          ? fs.create(p, FsPermission.getFileDefault(), true, 4096, (short) 2, block, null, favored)
          : fs.append(p, EnumSet.of(CreateFlag.APPEND, CreateFlag.NEW_BLOCK), 4096, null, favored)) {
        o.write(bytes, (int) (t * block), (int) block);
      }
    }
    // A block's second replica may be reported after its writer closed (HDFS needs one to close the file): poll.
    Backoff poll = Backoff.pollingNameNode(200, 30_000);
    for (String off = offChain(fs, p, chain, n, k); off != null; off = offChain(fs, p, chain, n, k)) {
      require(!poll.expired(), off + " after 30 s");
      poll.pause("interrupted while waiting for the replicas of " + p);
    }
    return bytes;
  }

  /** The first block of p whose replicas are not exactly its two favored chain nodes, said in words; or null. */
  private String offChain(DistributedFileSystem fs, Path p, List<DatanodeInfo> chain, int n, int k)
      throws IOException {
    List<LocatedBlock> blocks = fs.getClient().getLocatedBlocks(p.toString(), 0, k * block).getLocatedBlocks();
    require(blocks.size() == k, p + " has " + blocks.size() + " blocks, not " + k);
    for (int t = 0; t < k; t++) {
      java.util.Set<String> at = new java.util.TreeSet<>();
      for (DatanodeInfo d : blocks.get(t).getLocations()) {
        at.add(d.getXferAddr());
      }
      java.util.Set<String> wanted = new java.util.TreeSet<>(List.of(chain.get(t).getXferAddr(),
          chain.get(t + n - k).getXferAddr()));
      if (!at.equals(wanted)) {
        return p + " block " + t + " is on " + at + ", favored " + wanted;
      }
    }
    return null;
  }

}
