package org.wideec.hdfs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.security.PrivilegedExceptionAction;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.server.blockmanagement.BlockInfo;
import org.apache.hadoop.hdfs.server.blockmanagement.BlockManager;
import org.apache.hadoop.hdfs.server.blockmanagement.WideEcReplicaPlacementPolicy;
import org.apache.hadoop.ipc.CallerContext;
import org.apache.hadoop.security.UserGroupInformation;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.wideec.archive.ArchiveGrouping;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.PlacementKind;
import org.wideec.archive.StripeManifest;
import org.wideec.archive.StripeMember;
import org.wideec.archive.StripeLifecycle;
import org.wideec.archive.StripeState;
import org.wideec.archive.hdfs.ArchiveLayout;
import org.wideec.archive.hdfs.Archiver;
import org.wideec.archive.hdfs.ClientClassicEncoder;
import org.wideec.archive.hdfs.StripeEncoder;
import org.wideec.archive.hdfs.TrimProtocol;
import org.wideec.cli.WideEcTool;
import org.wideec.code.UnitRole;
import org.wideec.minicluster.Eventually;
import org.wideec.minicluster.MiniClusters;
import org.wideec.placement.hdfs.WideEcNameNodePlugin;
import org.wideec.placement.hdfs.WideEcNameNodeMetrics;

/**
 * COMMITTED → TRIMMED on a racked cluster (6 racks x 3 DataNodes, 64 KiB blocks, azure-lrc:k=6,l=2,g=2) running our
 * replica placement policy and the NameNode plugin's trimmer: every data block ends with exactly one replica, on
 * the node the manifest planned, its file at replication 1, its stripes TRIMMED, parity intact and every byte
 * readable; nothing is lowered before COMMITTED; the trim marker defers only for HDFS superusers; plain
 * setReplication is stock; a snapshot refuses the trim.
 */
class TrimClusterTest extends ArchiveTestBed {
  @Override
  Configuration baseConf() {
    Configuration base = MiniClusters.withWideEcArchiveTrim(new Configuration(), 300);
    base.setLong(TrimProtocol.WAIT_KEY, 30_000);
    return base;
  }

  @BeforeAll
  void awaitLease() throws Exception {
    awaitTrimmerLease();
  }

  private static WideEcNameNodeMetrics metrics() {
    return WideEcNameNodePlugin.metrics();
  }

  /** Replicas of every data block of the manifest as the NameNode lists them now. */
  private java.util.Map<Long, List<String>> replicasNow(StripeManifest m) throws Exception {
    java.util.Map<Long, List<String>> out = new java.util.HashMap<>();
    for (ArchivedStripe s : m.stripes()) {
      for (StripeMember d : s.members()) {
        if (d.role() == UnitRole.DATA && !d.padding()) {
          Path file = ArchiveLayout.inodePath(d.inodeId());
          long len = fs.getFileStatus(file).getLen();
          for (LocatedBlock lb : fs.getClient().getLocatedBlocks(file.toString(), 0, len).getLocatedBlocks()) {
            List<String> at = new ArrayList<>();
            for (org.apache.hadoop.hdfs.protocol.DatanodeInfo n : lb.getLocations()) {
              at.add(n.getXferAddr());
            }
            out.put(lb.getBlock().getBlockId(), at);
          }
        }
      }
    }
    return out;
  }

  /**
   * After a trim: every data block has exactly its planned replica, including each whose planned node held none at
   * COMMITTED ({@code before}: the plan's moves), which the trim moved there and names in {@code moved}; nothing is
   * off plan and every stripe is TRIMMED. Returns how many blocks were moved.
   */
  private int trimmedAsPlanned(StripeManifest m, java.util.Map<Long, List<String>> before, List<String> offPlan,
      List<String> moved) throws Exception {
    java.util.Map<Long, List<String>> now = replicasNow(m);
    int off = 0;
    for (ArchivedStripe s : m.stripes()) {
      boolean onPlan = true;
      for (StripeMember d : s.members()) {
        if (d.role() != UnitRole.DATA || d.padding()) {
          continue;
        }
        String what = "block " + d.blockId() + " of stripe " + s.stripeId();
        assertEquals(List.of(d.plannedNode()), now.get(d.blockId()), what + " kept on its planned node alone");
        if (!before.get(d.blockId()).contains(d.plannedNode())) {
          off++;
          assertTrue(moved.stream().anyMatch(l -> l.contains("blk_" + d.blockId() + "_") && l.endsWith(" to "
              + d.plannedNode())), what + " moved onto its planned node: " + moved);
        }
      }
      assertEquals(StripeState.TRIMMED, s.state(), "stripe " + s.stripeId());
    }
    assertEquals(List.of(), offPlan);
    assertEquals(off, moved.size(), moved.toString());
    return off;
  }

  @Test
  void aFileOfTwoStripesIsTrimmedToExactlyItsPlannedReplicas() throws Exception {
    checks.write("/f/a", 9 * BLOCK + 1000); // 10 blocks: a full stripe and a short one
    long offPlanBefore = metrics().trim().blocksOffPlan();
    assertEquals(0, tool("archive", "/f/a", "--code", CODE, "--no-trim").exit());
    java.util.Map<Long, List<String>> committed = replicasNow(manifestOf("/f/a"));
    ToolRun r = tool("archive", "/f/a", "--code", CODE, "--json"); // resumes: COMMITTED, then the trim
    JsonNode j = r.json();
    List<String> offPlan = new ArrayList<>();
    j.get("dataOffPlan").forEach(n -> offPlan.add(n.asText()));
    List<String> moved = new ArrayList<>();
    j.get("dataMoved").forEach(n -> moved.add(n.asText()));
    StripeManifest m = manifestOf("/f/a");
    trimmedAsPlanned(m, committed, offPlan, moved);
    assertEquals(0, r.exit(), r.out() + r.err());
    assertEquals(ArchiveChecks.states(m).stream().filter(x -> x == StripeState.TRIMMED).count(),
        j.get("trimmed").asLong());
    assertEquals(0, j.get("notTrimmed").size());
    everyDataBlockOnItsPlannedNodeOnly(m);
    assertEquals(1, fs.getFileStatus(new Path("/f/a")).getReplication());
    checks.everyStripeMatchesIndependentEncode(m); // parity untouched, still on its planned nodes
    checks.everyByteReadsBack();
    assertTrue(metrics().trim().blocksTrimmed() > 0);
    // Moved before the file was lowered, so the trimmer never found a block off plan.
    assertEquals(offPlanBefore, metrics().trim().blocksOffPlan());
  }

  @Test
  void aDirectoryIsTrimmedOnlyAfterItsStripesAreCommittedAndTrimmedIsRecordedAfterTheEffect() throws Exception {
    checks.write("/d/b", BLOCK / 2);
    checks.write("/d/c", 2 * BLOCK + 17);
    checks.write("/d/sub/e", 7 * BLOCK);
    Path d = new Path("/d");
    String[] files = {"/d/b", "/d/c", "/d/sub/e"};
    List<String> seen = new ArrayList<>();
    java.util.Map<Long, List<String>> committed = new java.util.HashMap<>();
    Archiver.Hook check = (manifest, stripe) -> {
      try {
        if (stripe == null || stripe.state() != StripeState.TRIMMED) {
          // Up to and including COMMITTED (parity verified), every data block keeps all three replicas.
          for (String f : files) {
            assertEquals(3, fs.getFileStatus(new Path(f)).getReplication(), f + " at " + stripe);
            for (int live : liveReplicas(new Path(f))) {
              assertEquals(3, live, f + " at " + stripe);
            }
          }
        } else {
          // TRIMMED is recorded once the NameNode shows each of the stripe's blocks on its planned node alone.
          for (StripeMember u : stripe.members()) {
            if (u.role() == UnitRole.DATA && !u.padding()) {
              assertTrue(locations(ArchiveLayout.inodePath(u.inodeId())).contains(List.of(u.plannedNode())),
                  "block " + u.blockId() + " on " + u.plannedNode() + " alone before TRIMMED is recorded");
            }
          }
        }
        if (stripe != null && stripe.state() == StripeState.COMMITTED) {
          committed.putAll(replicasNow(manifest));
        }
        seen.add(stripe == null ? "planned" : stripe.stripeId() + ":" + stripe.state());
      } catch (java.io.IOException | RuntimeException | Error e) {
        throw e;
      } catch (Exception e) {
        throw new java.io.IOException(e);
      }
    };
    Archiver archiver = new Archiver(fs, store, ClientClassicEncoder.from(fs), check, Archiver.Listener.NONE);
    archiver.archive(d, CODE, PlacementKind.CL);
    List<long[]> progress = new ArrayList<>();
    Archiver.TrimResult t = archiver.trim(d, (settled, total) -> progress.add(new long[] {settled, total}));
    assertEquals(List.of(), t.notTrimmed());
    assertEquals(List.of(), t.stale());
    StripeManifest m = manifestOf("/d");
    trimmedAsPlanned(m, committed, t.offPlan(), t.moved());
    List<String> expected = new ArrayList<>(List.of("planned", "0:ENCODING", "0:PARITY_WRITTEN", "0:VERIFIED",
        "0:COMMITTED", "1:ENCODING", "1:PARITY_WRITTEN", "1:VERIFIED", "1:COMMITTED"));
    for (ArchivedStripe s : m.stripes()) {
      if (s.state() == StripeState.TRIMMED) {
        expected.add(s.stripeId() + ":TRIMMED");
      }
    }
    assertEquals(expected, seen);
    assertEquals(expected.size() - 9, t.trimmed());
    long[] last = progress.get(progress.size() - 1);
    assertEquals(11, last[1], "b (1 block), c (3), e (7)");
    assertEquals(11, last[0]);
    everyDataBlockOnItsPlannedNodeOnly(m);
    checks.everyStripeMatchesIndependentEncode(m);
    checks.everyByteReadsBack();

    ToolRun status = tool("status", "/d", "--json");
    assertEquals(0, status.exit(), status.err());
    long logical = BLOCK / 2 + 2 * BLOCK + 17 + 7 * BLOCK;
    assertEquals(t.trimmed(), status.json().get("stripesByState").get("trimmed").asInt());
    assertEquals(status.json().get("storedBytesAfterTrim").asLong(), status.json().get("storedBytesNow").asLong(),
        "every file is at replication 1");
    assertEquals(logical, status.json().get("logicalBytes").asLong());
  }

  @Test
  void aFileIsLoweredOnceItsStripesAreCommittedWhileLaterStripesEncode() throws Exception {
    // Three files of one stripe each, grouped in file order: two take effect while the third still encodes.
    String[] files = {"/early/a", "/early/b", "/early/c"};
    for (String f : files) {
      checks.write(f, 6 * BLOCK);
    }
    List<String> lowered = new ArrayList<>();
    StripeEncoder classic = ClientClassicEncoder.from(fs);
    // Looked at from the encoder: a hook runs under the recorder's lock, which the trim takes to read the manifest.
    StripeEncoder lookingFirst = new StripeEncoder() {
      @Override
      public String name() {
        return classic.name();
      }

      @Override
      public Encoded encode(ArchivedStripe stripe) throws java.io.IOException {
        if (stripe.stripeId() == 2) {
          StripeManifest now = manifestOf("/early");
          for (String f : files) {
            Path file = new Path(f);
            if (StripeLifecycle.mayTakeEffect(now, store.inodeOf(file))) {
              // Its trim began when its stripe was committed, and runs beside this encode.
              Eventually.await(f + " lowered to one replica while the last stripe encodes", Duration.ofSeconds(30),
                  () -> fs.getFileStatus(file).getReplication() == 1);
              lowered.add(f);
            } else {
              assertEquals(3, fs.getFileStatus(file).getReplication(), f + " keeps its replication before COMMITTED");
              try {
                for (int live : liveReplicas(file)) {
                  assertEquals(3, live, f + " keeps every replica before COMMITTED");
                }
              } catch (Exception e) {
                throw new java.io.IOException(e);
              }
            }
          }
        }
        return classic.encode(stripe);
      }
    };
    Archiver archiver = new Archiver(fs, store, lookingFirst, Archiver.Hook.NONE, Archiver.Listener.NONE,
        ArchiveGrouping.FILES);
    Archiver.Result r = archiver.archive(new Path("/early"), CODE, PlacementKind.CL, true);
    assertEquals(List.of("/early/a", "/early/b"), lowered);
    Archiver.TrimResult t = archiver.trim(new Path("/early"), Archiver.TrimProgress.NONE);
    assertEquals(List.of(), t.notTrimmed());
    assertEquals(List.of(), t.offPlan());
    assertEquals(List.of(), t.stale());
    StripeManifest m = manifestOf("/early");
    assertEquals(List.of(StripeState.TRIMMED, StripeState.TRIMMED, StripeState.TRIMMED), ArchiveChecks.states(m));
    assertEquals(3, t.trimmed());
    everyDataBlockOnItsPlannedNodeOnly(m);
    // Each block moved onto its planned node is named once, by the trim begun early or by the one after.
    List<String> moved = new ArrayList<>(r.moved());
    moved.addAll(t.moved());
    assertEquals(moved.size(), new java.util.HashSet<>(moved).size(), moved.toString());
    checks.everyStripeMatchesIndependentEncode(m);
    checks.everyByteReadsBack();
  }

  @Test
  void theMarkerDefersOnlyForSuperusersAndPlainSetReplicationIsStock() throws Exception {
    WideEcReplicaPlacementPolicy policy = (WideEcReplicaPlacementPolicy)
        cluster.getNamesystem().getBlockManager().getBlockPlacementPolicy();
    // An ordinary user lowering their own file with the marker: HDFS chooses the excess replicas at once, as usual.
    fs.mkdirs(new Path("/open"));
    fs.setPermission(new Path("/open"), new FsPermission((short) 0777));
    UserGroupInformation mallory = UserGroupInformation.createUserForTesting("mallory", new String[] {"users"});
    Path own = new Path("/open/m");
    long refusedBefore = policy.markersRefused();
    mallory.doAs((PrivilegedExceptionAction<Void>) () -> {
      try (FileSystem mfs = FileSystem.newInstance(fs.getUri(), conf)) {
        try (var o = mfs.create(own, (short) 3)) {
          o.write(new byte[(int) (2 * BLOCK)]);
        }
        withMarker(() -> mfs.setReplication(own, (short) 1));
      }
      return null;
    });
    assertEquals(List.of(1, 1), liveReplicas(own), "the marker grants an ordinary user nothing");
    assertTrue(policy.markersRefused() > refusedBefore);

    // A superuser without the marker: stock.
    Path plain = new Path("/plain/p");
    checks.write(plain.toString(), 2 * BLOCK);
    fs.setReplication(plain, (short) 1);
    assertEquals(List.of(1, 1), liveReplicas(plain), "no marker, stock excess choice");

    // A superuser with the marker on a file no manifest covers: deferred, and the trimmer has nothing to keep.
    Path deferred = new Path("/plain/q");
    checks.write(deferred.toString(), 2 * BLOCK);
    // Every replica reported first: an excess the NameNode finds later (a replica reported after the call) is chosen
    // then, without the caller's marker, the stock way.
    Eventually.await("every replica of " + deferred + " reported", Duration.ofSeconds(30),
        () -> liveReplicas(deferred), List.of(3, 3)::equals);
    withMarker(() -> fs.setReplication(deferred, (short) 1));
    assertEquals(List.of(3, 3), liveReplicas(deferred));
    long passes = metrics().trim().passes();
    Eventually.await("two more trim passes", Duration.ofSeconds(60), () -> metrics().trim().passes(),
        n -> n >= passes + 2);
    assertEquals(List.of(3, 3), liveReplicas(deferred), "not archived: the trimmer leaves it alone");
    checks.everyByteReadsBack();
  }

  @Test
  void aSnapshotRefusesTheTrimAndEveryReplicaIsKept() throws Exception {
    checks.write("/snap/s", 2 * BLOCK);
    fs.allowSnapshot(new Path("/snap"));
    fs.createSnapshot(new Path("/snap"), "before");
    ToolRun r = tool("archive", "/snap/s", "--code", CODE);
    assertEquals(WideEcTool.EXIT_FOUND_PROBLEM, r.exit(), r.out() + r.err());
    assertTrue(r.out().contains("not trimmed: trimming /snap/s refused: /snap has 1 snapshot(s), which keep its files"
        + " at their old replication"), r.out());
    assertEquals(List.of(StripeState.COMMITTED), ArchiveChecks.states(manifestOf("/snap/s")));
    assertEquals(3, fs.getFileStatus(new Path("/snap/s")).getReplication());
    assertEquals(List.of(3, 3), liveReplicas(new Path("/snap/s")));
    checks.everyByteReadsBack();
  }

  @Test
  void aFileThatGrewABlockAfterCommitIsNotLowered() throws Exception {
    // Two full blocks: an append starts a third, which no stripe covers. Written here, not through checks, whose
    // byte-for-byte read-back would not know of the append.
    try (org.apache.hadoop.fs.FSDataOutputStream o = fs.create(new Path("/grow/g"), (short) 3)) {
      o.write(new byte[(int) (2 * BLOCK)]);
    }
    ToolRun a = tool("archive", "/grow/g", "--code", CODE, "--no-trim");
    assertEquals(0, a.exit(), a.out() + a.err());
    try (org.apache.hadoop.fs.FSDataOutputStream o = fs.append(new Path("/grow/g"))) {
      o.write(new byte[100]);
    }
    ToolRun t = tool("archive", "/grow/g", "--code", CODE);
    assertEquals(WideEcTool.EXIT_FOUND_PROBLEM, t.exit(), t.out() + t.err());
    assertTrue(t.out().contains("is in no stripe (appended or concatenated since it was archived); the file keeps its"
        + " replication"), t.out());
    assertEquals(List.of(StripeState.COMMITTED), ArchiveChecks.states(manifestOf("/grow/g")));
    assertEquals(3, fs.getFileStatus(new Path("/grow/g")).getReplication());
    assertEquals(List.of(3, 3, 3), liveReplicas(new Path("/grow/g")));
  }

  @Test
  void aParityLostAfterVerificationStopsTheTrim() throws Exception {
    checks.write("/lost/p", 3 * BLOCK);
    ToolRun a = tool("archive", "/lost/p", "--code", CODE, "--no-trim");
    assertEquals(0, a.exit(), a.out() + a.err());
    ArchivedStripe s = manifestOf("/lost/p").stripes().get(0);
    StripeMember parity = s.members().stream().filter(m -> m.isParity() && !m.padding()).findFirst().orElseThrow();
    int unit = s.members().indexOf(parity);
    assertTrue(fs.delete(ArchiveLayout.parityUnit(s.parityFilePath(), unit), false));
    ToolRun t = tool("archive", "/lost/p", "--code", CODE);
    assertEquals(WideEcTool.EXIT_FOUND_PROBLEM, t.exit(), t.out() + t.err());
    assertTrue(t.out().contains("parity unit " + unit + " of stripe 0 (blk_" + parity.blockId() + ") is gone"), t.out());
    assertEquals(3, fs.getFileStatus(new Path("/lost/p")).getReplication());
    assertEquals(List.of(3, 3, 3), liveReplicas(new Path("/lost/p")));
  }

  @Test
  void aSecondRunIsRefusedWhileAnotherHoldsTheArchive() throws Exception {
    checks.write("/lock/l", BLOCK);
    try (java.io.Closeable held = store.lock(store.inodeOf(new Path("/lock/l")))) {
      ToolRun r = tool("archive", "/lock/l", "--code", CODE);
      assertEquals(WideEcTool.EXIT_FAILED, r.exit(), r.out() + r.err());
      assertTrue(r.err().contains("another wide-ec archive run holds"), r.err());
      assertTrue(store.find(store.inodeOf(new Path("/lock/l"))) == null, "the refused run recorded nothing");
    }
    ToolRun r = tool("archive", "/lock/l", "--code", CODE);
    assertEquals(0, r.exit(), r.out() + r.err());
    assertEquals(List.of(StripeState.TRIMMED), ArchiveChecks.states(manifestOf("/lock/l")));
  }

  private interface Call {
    void run() throws Exception;
  }

  private static void withMarker(Call c) throws Exception {
    CallerContext before = CallerContext.getCurrent();
    CallerContext.setCurrent(new CallerContext.Builder(TrimProtocol.CALLER_CONTEXT).build());
    try {
      c.run();
    } finally {
      CallerContext.setCurrent(before);
    }
  }
}
