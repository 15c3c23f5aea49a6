package org.wideec.hdfs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.StripeMember;
import org.wideec.archive.StripeState;
import org.wideec.archive.hdfs.ArchiveLayout;
import org.wideec.minicluster.SilentCorruption;

/**
 * {@code wide-ec verify} of archived stripes (azure-lrc:k=6,l=2,g=2, 64 KiB blocks, 6 racks x 3): silent corruption
 * (bytes changed in every replica of a member, {@code .meta} rewritten to match) of a data member of one archive and a
 * global parity of another is named from one-page summaries, against the manifest's code; with {@code --repair} (trimmed
 * archives, the trimmer and the NameNode's archive repair monitor on) the corrupt replica is reported and the member
 * rebuilt elsewhere from the units that agree, its bytes the archived ones.
 */
class ArchivedScrubClusterTest extends ArchiveTestBed {
  @Override
  Configuration baseConf() {
    return scrubBed();
  }

  /**
   * The scrub tests' bed: the trimmer, the archive repair monitor and the DataNodes' workers, block tokens on.
   */
  static Configuration scrubBed() {
    Configuration c = repairConf(300);
    // A scrub proves the READ token of each member block to its holder's slice port.
    c.setBoolean(DFSConfigKeys.DFS_BLOCK_ACCESS_TOKEN_ENABLE_KEY, true);
    return c;
  }

  @BeforeAll
  void awaitLease() {
    awaitTrimmerLease();
  }

  @Test
  void verifyNamesASilentlyCorruptDataMemberAndParityMemberOfArchivedStripes() throws Exception {
    write("/scrub/a", 1);
    write("/scrub/b", 2);
    for (String p : List.of("/scrub/a", "/scrub/b")) {
      ToolRun r = tool("archive", p, "--code", CODE, "--no-trim");
      assertEquals(0, r.exit(), r.out() + r.err());
      assertEquals(List.of("consistent"), verdicts(p, 0));
    }
    corruptEveryReplica(manifestOf("/scrub/a").stripes().get(0), 2);
    corruptEveryReplica(manifestOf("/scrub/b").stripes().get(0), 7);
    assertEquals(List.of("unit_at_fault [2]"), verdicts("/scrub/a", 1));
    assertEquals(List.of("unit_at_fault [7]"), verdicts("/scrub/b", 1));
  }

  @Test
  void verifyRepairHasSilentlyCorruptTrimmedDataAndParityMembersRebuiltFromTheUnitsThatAgree() throws Exception {
    byte[] c = write("/scrub/c", 3);
    write("/scrub/d", 4);
    for (String p : List.of("/scrub/c", "/scrub/d")) {
      ToolRun r = tool("archive", p, "--code", CODE);
      assertEquals(0, r.exit(), r.out() + r.err());
      assertEquals(StripeState.TRIMMED, manifestOf(p).stripes().get(0).state());
    }
    StripeMember data = manifestOf("/scrub/c").stripes().get(0).member(3);
    StripeMember parity = manifestOf("/scrub/d").stripes().get(0).member(9);
    byte[] parityBytes = bytesOf(parity);
    String dataHolder = corruptEveryReplica(manifestOf("/scrub/c").stripes().get(0), 3).get(0);
    String parityHolder = corruptEveryReplica(manifestOf("/scrub/d").stripes().get(0), 9).get(0);
    assertEquals(1, corruptByteCount(c, readFile("/scrub/c")), "HDFS's checksums pass: a read returns the changed byte");

    JsonNode j = repair("/scrub/c");
    assertEquals("unit_at_fault [3]", j.get("verdict").asText() + " " + j.get("suspects"));
    assertEquals("[\"" + dataHolder + "\"] []", j.get("reportedCorrupt") + " " + j.get("agreeingReplicas"));
    j = repair("/scrub/d");
    assertEquals("unit_at_fault [9]", j.get("verdict").asText() + " " + j.get("suspects"));
    assertEquals("[\"" + parityHolder + "\"] []", j.get("reportedCorrupt") + " " + j.get("agreeingReplicas"));

    awaitRebuiltAwayFrom(data, dataHolder);
    awaitRebuiltAwayFrom(parity, parityHolder);
    assertArrayEquals(c, readFile("/scrub/c"));
    assertArrayEquals(parityBytes, bytesOf(parity));
    assertEquals(List.of("consistent"), verdicts("/scrub/c", 0));
    assertEquals(List.of("consistent"), verdicts("/scrub/d", 0));
  }

  /** verify --repair --json of a one-stripe archive: its stripe's row, after an exit 1 (the stripe was at fault). */
  private JsonNode repair(String path) throws Exception {
    ToolRun r = tool("verify", path, "--repair", "--page-bytes", "512", "--seed", "11", "--json");
    assertEquals(1, r.exit(), r.out() + r.err());
    JsonNode stripes = r.json().get("stripes");
    assertEquals(1, stripes.size());
    assertTrue(stripes.get(0).get("repairRequested").asBoolean());
    return stripes.get(0);
  }

  /** Waits until the member's one live replica is on another node than the corrupt one's and none is corrupt. */
  private void awaitRebuiltAwayFrom(StripeMember m, String corruptHolder) {
    await("blk_" + m.blockId() + " rebuilt away from " + corruptHolder, () -> {
      LocatedBlock lb = located(m);
      return !lb.isCorrupt() && lb.getLocations().length == 1
          && !lb.getLocations()[0].getXferAddr().equals(corruptHolder);
    });
  }

  private byte[] bytesOf(StripeMember m) throws Exception {
    LocatedBlock lb = located(m);
    byte[] b = new byte[(int) lb.getBlockSize()];
    try (FSDataInputStream in = fs.open(ArchiveLayout.inodePath(m.inodeId()))) {
      in.readFully(lb.getStartOffset(), b);
    }
    return b;
  }

  private byte[] readFile(String path) throws Exception {
    byte[] b = new byte[(int) fs.getFileStatus(new Path(path)).getLen()];
    try (FSDataInputStream in = fs.open(new Path(path))) {
      in.readFully(0, b);
    }
    return b;
  }

  private static int corruptByteCount(byte[] a, byte[] b) {
    int n = 0;
    for (int i = 0; i < a.length; i++) {
      n += a[i] != b[i] ? 1 : 0;
    }
    return n;
  }

  private byte[] write(String path, long seed) throws Exception {
    byte[] data = new byte[(int) (6 * BLOCK)];
    new Random(seed).nextBytes(data);
    try (FSDataOutputStream o = fs.create(new Path(path))) {
      o.write(data);
    }
    return data;
  }

  /** Each stripe's verdict and suspects, from verify --json, which exits as expected. */
  private List<String> verdicts(String path, int exit) throws Exception {
    ToolRun r = tool("verify", path, "--page-bytes", "512", "--seed", "7", "--json");
    assertEquals(exit, r.exit(), r.out() + r.err());
    JsonNode j = r.json();
    assertEquals(0, j.get("groupsChecked").asInt());
    List<String> out = new java.util.ArrayList<>();
    for (JsonNode s : j.get("stripes")) {
      out.add(s.has("verdict") ? s.get("verdict").asText() + (s.get("suspects").isEmpty() ? "" : " "
          + s.get("suspects")) : s.get("error").asText());
    }
    return out.stream().map(v -> v.replace(",", ", ")).toList();
  }

  /** Corrupts every replica of the unit's block (a byte changed, {@code .meta} to match); returns their holders. */
  private List<String> corruptEveryReplica(ArchivedStripe s, int unit) throws Exception {
    LocatedBlock lb = located(s.member(unit));
    List<String> holders = new java.util.ArrayList<>();
    for (DatanodeInfo holder : lb.getLocations()) {
      SilentCorruption.flipByte(cluster, holder.getXferAddr(), lb.getBlock(), 1000, 0x5a);
      holders.add(holder.getXferAddr());
    }
    return holders;
  }
}
