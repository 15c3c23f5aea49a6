package org.wideec.hdfs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.apache.hadoop.hdfs.util.StripedBlockUtil;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.wideec.archive.StripeMember;
import org.wideec.archive.StripeState;
import org.wideec.code.LinearCode;
import org.wideec.coder.StripedCodec;
import org.wideec.coder.hadoop.WideEcPolicies;
import org.wideec.minicluster.SilentCorruption;
import org.wideec.minicluster.StripedGroups;
import org.wideec.placement.hdfs.ContinuousScrubber;
import org.wideec.placement.hdfs.WideEcNameNodeMetrics;
import org.wideec.placement.hdfs.WideEcNameNodePlugin;
import org.wideec.scrub.RackSummingPlan;
import org.wideec.scrub.ScrubChecks;
import org.wideec.scrub.UnitSummary;
import org.wideec.scrub.hdfs.ScrubStatus;

/**
 * The NameNode's continuous scrubber on the racked test bed (6 racks x 3, 64 KiB blocks) with the trimmer, the archive
 * repair monitor and the DataNodes' workers: one archive (azure-lrc:k=6,l=2,g=2, trimmed) and one file under
 * WIDE-RS-6-3, one byte changed in a data member of the first and a parity unit of the second with {@code .meta}
 * rewritten to match. The test drives each pass itself ({@link ContinuousScrubber#passNow}; the interval is a day).
 */
class ContinuousScrubClusterTest extends ArchiveTestBed {
  private static final int CELL = 16 * 1024;
  private static final int DATA_MEMBER = 2;
  private static final int PARITY_UNIT = 7;

  @Override
  Configuration baseConf() {
    Configuration c = ArchivedScrubClusterTest.scrubBed();
    c.setBoolean("wide-ec.scrub.enabled", true);
    c.setLong("wide-ec.scrub.interval.ms", 24 * 3600 * 1000L);
    return c;
  }

  @BeforeAll
  void awaitLease() {
    awaitTrimmerLease();
  }

  @Test
  void onePassFindsEveryInjectedSilentCorruptionCountsAndRecordsItAndTheRepairRestoresTheBytes() throws Exception {
    byte[] archived = write(new Path("/s/a"), 6 * BLOCK, 1);
    ToolRun r = tool("archive", "/s/a", "--code", CODE);
    assertEquals(0, r.exit(), r.out() + r.err());
    assertEquals(StripeState.TRIMMED, manifestOf("/s/a").stripes().get(0).state());
    ErasureCodingPolicy policy = WideEcPolicies.addAndEnable(fs, WideEcPolicies.policy("wide-rs", 6, 3, CELL));
    LinearCode code = StripedCodec.WIDE_RS.codeFor(6, 3);
    fs.mkdirs(new Path("/s/rs"));
    fs.setErasureCodingPolicy(new Path("/s/rs"), policy.getName());
    Path file = new Path("/s/rs/f");
    byte[] striped = write(file, 6 * BLOCK - 1000, 2);
    StripedGroups.awaitSettled(cluster, fs, policy, List.of(file), 60_000);

    StripeMember member = manifestOf("/s/a").stripes().get(0).member(DATA_MEMBER);
    LocatedBlock memberBlock = located(member);
    String memberHolder = memberBlock.getLocations()[0].getXferAddr();
    SilentCorruption.flipByte(cluster, memberHolder, memberBlock.getBlock(), 1000, 0x21);
    LocatedStripedBlock group = StripedGroups.groups(fs, file).get(0);
    DatanodeInfo parityHolder = StripedGroups.location(group, PARITY_UNIT);
    SilentCorruption.flipByte(cluster, parityHolder.getXferAddr(), StripedBlockUtil.constructInternalBlock(
        group.getBlock(), policy, PARITY_UNIT), CELL + 5, 0x21);

    WideEcNameNodeMetrics m = WideEcNameNodePlugin.metrics();
    ContinuousScrubber scrubber = WideEcNameNodePlugin.scrubber();
    long[] before = counters(m);
    RackSummingPlan[] plans = plans(file, code); // before the pass, whose repairs move the units at fault
    ScrubStatus status = scrubber.passNow();
    // Checked: the archive's one stripe and the file's one group; both at fault, both named, both sent for repair.
    assertEquals(List.of(2L, 2L, 0L, 2L, 0L, 1L), delta(before, counters(m)));
    // Both failed their check rows: the NameNode received each summing rack's rows and the other units' pages, then a
    // page from each unit that had been summed.
    long summedUnits = java.util.Arrays.stream(plans).flatMap(p -> p.sums().stream()).mapToInt(s -> s.units().length)
        .sum();
    assertEquals(cleanPassBytes(plans) + summedUnits * UnitSummary.DEFAULT_PAGE_SIZE,
        m.scrub().summaryBytes() - before[6]);
    assertFalse(status.midPass());
    assertEquals(List.of(
        "/s/a unit_at_fault [" + DATA_MEMBER + "] " + memberHolder + " true",
        "/s/rs/f unit_at_fault [" + PARITY_UNIT + "] " + parityHolder.getXferAddr() + " true"),
        status.bad().stream().map(b -> b.path() + " " + b.result() + " " + b.node() + " " + b.repairRequested())
            .toList());
    ToolRun fsck = tool("fsck", "/s", "--json");
    assertEquals(1, fsck.exit(), fsck.out() + fsck.err());
    assertEquals(2, fsck.json().get("scrub").get("bad").size(), fsck.out());
    ToolRun text = tool("fsck", "/s/a");
    String line = "SCRUB: /s/a stripe 0 (" + CODE + "): unit_at_fault [" + DATA_MEMBER + "] on " + memberHolder
        + ", reported for repair (pass " + status.pass() + ", ";
    assertTrue(text.out().lines().anyMatch(l -> l.startsWith(line)), text.out());
    JsonNode underRs = tool("fsck", "/s/rs", "--json").json().get("scrub").get("bad");
    assertEquals(1, underRs.size(), underRs.toString());
    assertEquals("/s/rs/f", underRs.get(0).get("path").asText());

    await("the archived member rebuilt away from " + memberHolder, () -> {
      LocatedBlock lb = located(member);
      return !lb.isCorrupt() && lb.getLocations().length == 1
          && !lb.getLocations()[0].getXferAddr().equals(memberHolder);
    });
    await("parity unit " + PARITY_UNIT + " rebuilt away from " + parityHolder, () -> {
      DatanodeInfo now = StripedGroups.location(StripedGroups.groups(fs, file).get(0), PARITY_UNIT);
      return now != null && !now.getXferAddr().equals(parityHolder.getXferAddr());
    });
    StripedGroups.awaitComplete(fs, file, policy, 60_000);
    assertArrayEquals(archived, read(new Path("/s/a")));
    assertArrayEquals(striped, read(file));
    assertEquals(code.n(), StripedGroups.verifyEveryUnit(cluster, fs, file, policy, code, striped));

    before = counters(m);
    status = scrubber.passNow();
    assertEquals(List.of(2L, 0L, 0L, 0L, 0L, 1L), delta(before, counters(m)), "the next pass finds both consistent");
    assertEquals(cleanPassBytes(plans(file, code)), m.scrub().summaryBytes() - before[6], "rack sums and lone pages only");
    assertEquals(List.of(), status.bad());
    assertEquals(0, tool("fsck", "/s", "--json").json().get("scrub").get("bad").size());
  }

  @Test
  void aPassCutShortResumesAfterTheLastInodeItFinished() throws Exception {
    write(new Path("/r/a"), 6 * BLOCK, 3);
    ToolRun r = tool("archive", "/r/a", "--code", CODE);
    assertEquals(0, r.exit(), r.out() + r.err());
    ContinuousScrubber scrubber = WideEcNameNodePlugin.scrubber();
    ScrubStatus cut = ScrubStatus.read(fs, store.layout());
    cut.begin("archived", System.currentTimeMillis());
    cut.at("archived", store.inodeOf(new Path("/r/a")) - 1);
    cut.write(fs, store.layout());
    long pass = cut.pass();

    WideEcNameNodeMetrics m = WideEcNameNodePlugin.metrics();
    long[] before = counters(m);
    ScrubStatus status = scrubber.passNow();
    // Archives only after the saved inode: the one just made, not the other test's (an older inode) if it ran first;
    // then every striped file, that test's one group if it ran.
    long stripedGroups = fs.exists(new Path("/s/rs/f")) ? 1 : 0;
    assertEquals(List.of(1 + stripedGroups, 0L, 0L, 0L, 0L, 1L), delta(before, counters(m)));
    assertEquals(pass, status.pass());
    assertFalse(status.midPass());
  }

  /** The rack-summing plans of the archive's stripe and the file's group, as the NameNode's scrubber makes them. */
  private RackSummingPlan[] plans(Path file, LinearCode groupCode) throws Exception {
    String nameNodeRack = org.wideec.client.ClientRack.of(cluster.getConfiguration(0),
        org.apache.hadoop.net.NetUtils.getLocalHostname());
    org.wideec.archive.ArchivedStripe stripe = manifestOf("/s/a").stripes().get(0);
    String[] memberRacks = new String[stripe.code().n()];
    for (int u = 0; u < memberRacks.length; u++) {
      memberRacks[u] = located(stripe.member(u)).getLocations()[0].getNetworkLocation();
    }
    return new RackSummingPlan[] {
        RackSummingPlan.plan(ScrubChecks.of(stripe.code(), ScrubChecks.DEFAULT_CHECKS, 0), memberRacks, nameNodeRack),
        RackSummingPlan.plan(ScrubChecks.of(groupCode, ScrubChecks.DEFAULT_CHECKS, 0), StripedGroups.rackOfUnit(
            StripedGroups.groups(fs, file).get(0), groupCode.n()), nameNodeRack)};
  }

  /** What the NameNode receives for stripes that pass their check rows: each summing rack's rows, each other page. */
  private static long cleanPassBytes(RackSummingPlan[] plans) {
    long pages = 0;
    for (RackSummingPlan p : plans) {
      pages += (long) p.sums().size() * p.checks().count() + p.alone().length;
    }
    return pages * UnitSummary.DEFAULT_PAGE_SIZE;
  }

  private long[] counters(WideEcNameNodeMetrics m) {
    return new long[] {m.scrub().stripesChecked(), m.scrub().mismatches(), m.scrub().undecidable(), m.scrub().repairsRequested(),
        m.scrub().failures(), m.scrub().passes(), m.scrub().summaryBytes()};
  }

  /** Checked, mismatches, undecidable, repairs requested, failures, passes: what a pass added. */
  private static List<Long> delta(long[] before, long[] after) {
    return java.util.stream.IntStream.range(0, 6).mapToObj(i -> after[i] - before[i]).toList();
  }

  private byte[] write(Path path, long length, long seed) throws Exception {
    byte[] data = new byte[(int) length];
    new Random(seed).nextBytes(data);
    try (FSDataOutputStream o = fs.create(path)) {
      o.write(data);
    }
    return data;
  }

  private byte[] read(Path path) throws Exception {
    byte[] b = new byte[(int) fs.getFileStatus(path).getLen()];
    try (FSDataInputStream in = fs.open(path)) {
      in.readFully(0, b);
    }
    return b;
  }
}
