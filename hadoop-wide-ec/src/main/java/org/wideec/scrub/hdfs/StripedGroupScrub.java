package org.wideec.scrub.hdfs;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedBlocks;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.apache.hadoop.hdfs.util.StripedBlockUtil;
import org.wideec.archive.hdfs.SlicePortClient;
import org.wideec.code.LinearCode;
import org.wideec.coder.StripedCodec;
import org.wideec.scrub.ScrubVerdict;

/**
 * Checks every block group of a file under one of our striped policies without reading it: each internal block's
 * holder folds its replica into a one-page summary (org.wideec.scrub.UnitSummary), summed in its rack where that
 * saves cross-rack bytes, and the code's parity relations are checked on the summaries ({@link SummaryFetch#check}). The code is the policy's, the only one the group was written with.
 */
public final class StripedGroupScrub {
  /**
   * One block group's result: a verdict, or why none could be reached.
   *
   * @param atFault the internal block of the unit at fault with the holder that folded it; null unless the verdict
   *     names one unit
   */
  public record GroupResult(String group, ScrubVerdict verdict, String error, LocatedBlock atFault) {}

  private final DistributedFileSystem fs;
  private final SummaryFetch fetch;

  public StripedGroupScrub(DistributedFileSystem fs, SlicePortClient port, int pageSize, long seed) {
    this.fs = fs;
    this.fetch = new SummaryFetch(port, pageSize, seed);
  }

  /** Summary bytes the holders sent so far. */
  public long summaryBytes() {
    return fetch.bytes();
  }

  /** Of {@link #summaryBytes}, those sent from another rack than this client's. */
  public long crossRackSummaryBytes() {
    return fetch.crossRackBytes();
  }

  /** @throws IOException naming the file when it is not under a striped policy of our codecs */
  public List<GroupResult> verify(Path file) throws IOException {
    return verify(file, org.wideec.code.Progress.NONE);
  }

  /**
   * @param progress block groups checked of the file's
   * @throws IOException naming the file when it is not under a striped policy of our codecs
   */
  public List<GroupResult> verify(Path file, org.wideec.code.Progress progress) throws IOException {
    ErasureCodingPolicy policy = fs.getErasureCodingPolicy(file);
    if (policy == null || !isOurs(policy)) {
      throw new IOException(file + " is not under a striped policy of wide-ec's codecs"
          + (policy == null ? "" : " (its policy is " + policy.getName() + ")"));
    }
    LinearCode code = StripedCodec.byName(policy.getCodecName()).codeFor(policy.getNumDataUnits(),
        policy.getNumParityUnits());
    String src = file.toUri().getPath();
    LocatedBlocks blocks = fs.getClient().getLocatedBlocks(src, 0, fs.getFileStatus(file).getLen());
    List<GroupResult> out = new ArrayList<>();
    for (LocatedBlock lb : blocks.getLocatedBlocks()) {
      LocatedStripedBlock group = (LocatedStripedBlock) lb;
      String name = src + " " + group.getBlock().getBlockName();
      LocatedBlock[] internal = StripedBlockUtil.parseStripedBlockGroup(group, policy.getCellSize(),
          policy.getNumDataUnits(), policy.getNumParityUnits());
      try {
        ScrubVerdict v = fetch.check(code, units(group, internal, policy, code, name), name).verdict();
        LocatedBlock atFault = v.outcome() == ScrubVerdict.Outcome.UNIT_AT_FAULT ? internal[v.unitAtFault()] : null;
        out.add(new GroupResult(name, v, null, atFault));
      } catch (IOException e) {
        out.add(new GroupResult(name, null, e.getMessage(), null));
      }
      progress.at(out.size(), blocks.getLocatedBlocks().size());
    }
    return out;
  }

  /**
   * Repairs the unit at fault the way HDFS repairs any corrupt replica: it is reported to the NameNode, which stops
   * counting it live and orders its reconstruction, which our repair worker rebuilds from the units that agree.
   */
  public void repair(GroupResult r) throws IOException {
    if (r.atFault() == null) {
      throw new IOException(r.group() + ": no single unit at fault to repair (" + (r.verdict() == null ? r.error()
          : r.verdict()) + ")");
    }
    LocatedBlock lb = r.atFault();
    LocatedBlock reported = new LocatedBlock(lb.getBlock(), new org.apache.hadoop.hdfs.protocol.DatanodeInfo[] {
        lb.getLocations()[0]});
    fs.getClient().reportBadBlocks(new LocatedBlock[] {reported});
  }

  /** Each unit's internal block; null for a unit past a short group's end, zeros as the code pads it. */
  private static LocatedBlock[] units(LocatedStripedBlock group, LocatedBlock[] internal, ErasureCodingPolicy policy,
      LinearCode code, String name) throws IOException {
    LocatedBlock[] units = new LocatedBlock[code.n()];
    for (int u = 0; u < code.n(); u++) {
      long length = StripedBlockUtil.getInternalBlockLength(group.getBlockSize(), policy.getCellSize(),
          policy.getNumDataUnits(), u);
      if (length == 0) {
        continue;
      }
      if (internal[u] == null || internal[u].getLocations().length == 0) {
        throw new IOException(name + ": unit " + u + " has no live replica; repair the group before scrubbing it");
      }
      units[u] = internal[u];
    }
    return units;
  }

  private static boolean isOurs(ErasureCodingPolicy policy) {
    return StripedCodec.names().contains(policy.getCodecName());
  }
}
