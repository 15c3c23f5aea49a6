package org.wideec.archive.hdfs;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.HdfsFileStatus;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedBlocks;
import org.apache.hadoop.net.NetUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.StripeMember;

/**
 * The step "write codeword i of stripe s" of a sealed archival, shared by every encoder: codeword
 * i is the single-block file {@code u<i>} of the stripe's codeword directory, replication 1, aimed at the unit's
 * planned node. Whoever writes the bytes (this process, or node i of a RapidRAID pipeline writing c_i locally),
 * {@link #written} then checks the file is one closed block of the unit length and reports where HDFS put it
 * (favored nodes are hints), and gives the member the manifest records.
 */
public final class CodewordFiles {
  private static final Logger LOG = LoggerFactory.getLogger(CodewordFiles.class);
  private final DistributedFileSystem dfs;

  public CodewordFiles(DistributedFileSystem dfs) {
    this.dfs = dfs;
  }

  public static Path file(ArchivedStripe s, int unit) {
    return ArchiveLayout.parityUnit(s.parityFilePath(), unit);
  }

  /** Opens codeword {@code unit}'s file for writing, its planned node favored. */
  public FSDataOutputStream create(ArchivedStripe s, int unit, long blockSize) throws IOException {
    StripeMember m = s.member(unit);
    return dfs.create(file(s, unit), new FsPermission((short) 0600), false, 64 * 1024, (short) 1, blockSize, null,
        new InetSocketAddress[] {NetUtils.createSocketAddr(m.plannedNode())});
  }

  /** The member of a written codeword file (one closed block of the unit length); a misplacement goes to offPlan. */
  public StripeMember written(ArchivedStripe s, int unit, long crc, List<String> offPlan) throws IOException {
    Path file = file(s, unit);
    long length = s.unitLength();
    LocatedBlocks lbs = dfs.getClient().getLocatedBlocks(file.toString(), 0, Math.max(1, length));
    List<LocatedBlock> blocks = lbs.getLocatedBlocks();
    if (lbs.isUnderConstruction() || blocks.size() != 1 || lbs.getFileLength() != length) {
      throw new IOException("stripe " + s.stripeId() + " codeword " + unit + ": " + file + " should be one closed block"
          + " of " + length + " bytes, HDFS has " + blocks.size() + " block(s) of " + lbs.getFileLength() + " bytes"
          + (lbs.isUnderConstruction() ? ", still open" : ""));
    }
    LocatedBlock b = blocks.get(0);
    StripeMember m = s.member(unit);
    String actual = b.getLocations().length == 0 ? "nowhere" : b.getLocations()[0].getXferAddr();
    if (!actual.equals(m.plannedNode())) {
      String miss = "stripe " + s.stripeId() + " codeword " + unit + " (" + file + "): HDFS placed it on " + actual
          + ", the plan says " + m.plannedNode() + " (" + m.plannedRack() + ")";
      LOG.warn("{}", miss);
      offPlan.add(miss);
    }
    HdfsFileStatus st = dfs.getClient().getFileInfo(file.toString());
    return m.written(st.getFileId(), b.getBlock().getBlockId(), b.getBlock().getGenerationStamp(), crc);
  }
}
