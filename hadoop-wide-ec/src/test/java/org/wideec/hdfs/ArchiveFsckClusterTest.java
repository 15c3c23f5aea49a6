package org.wideec.hdfs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.TreeSet;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.protocol.DatanodeID;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.StripeManifest;
import org.wideec.archive.StripeMember;
import org.wideec.archive.hdfs.ArchivalSource;
import org.wideec.archive.hdfs.ArchiveLayout;
import org.wideec.archive.hdfs.Unarchiver;
import org.wideec.code.RemainingTolerance;
import org.wideec.code.UnitRole;
import org.wideec.minicluster.Eventually;
import org.wideec.placement.hdfs.WideEcNameNodePlugin;

/**
 * {@code wide-ec fsck} of archived paths and {@code wide-ec unarchive} on a racked cluster (6 racks x 3 DataNodes,
 * 64 KiB blocks, azure-lrc:k=6,l=2,g=2, trimmed to the planned replicas by our NameNode plugin): clean after
 * archival; exactly the members of a stopped DataNode missing, still decodable; an append named stale; a deleted
 * member file lowering the stripe's tolerance; a hand-deleted manifest leaving orphaned parity and pointers;
 * unarchive restoring replication 3 with every byte equal and nothing left in the system directory, rerun a no-op.
 * The test that stops a DataNode runs last (the cluster is shared).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ArchiveFsckClusterTest extends ArchiveTestBed {
  @Override
  Configuration baseConf() {
    Configuration base = trimmingConf(30_000);
    base.setLong(Unarchiver.WAIT_KEY, 60_000);
    // Every archive and unarchive here waits for HDFS to delete or copy replicas: the NameNode hands that work out
    // every quarter second, and deletions to every DataNode each time rather than to a third of them (the default).
    base.set(DFSConfigKeys.DFS_NAMENODE_REDUNDANCY_INTERVAL_SECONDS_KEY, "250ms");
    base.setFloat(DFSConfigKeys.DFS_NAMENODE_INVALIDATE_WORK_PCT_PER_ITERATION, 1.0f);
    // The reprotection looks often, so that it runs inside an unarchive's steps (it must leave them alone).
    base.setLong("wide-ec.archive.reprotect.interval.ms", 200);
    return base;
  }

  @BeforeAll
  void awaitLease() throws Exception {
    awaitTrimmerLease();
  }

  /** fsck PATH --json with the exit expected; its "archived" object. */
  private JsonNode fsck(String path, int exit) throws Exception {
    ToolRun r = tool("fsck", path, "--json");
    assertEquals(exit, r.exit(), r.out() + r.err());
    return r.json().get("archived");
  }

  private void archive(String path) throws Exception {
    ToolRun r = tool("archive", path, "--code", CODE);
    assertEquals(0, r.exit(), r.out() + r.err());
  }

  /** The code's margin for a stripe with these units lost (virtual padding never lost). */
  private static int tolerance(ArchivedStripe s, int... lost) {
    BitSet padding = new BitSet();
    for (int u = 0; u < s.members().size(); u++) {
      padding.set(u, s.member(u).padding());
    }
    return RemainingTolerance.of(s.code(), padding, lost).value();
  }

  /** "problem file stripe unit block" of each finding, stripe findings first. */
  private static List<String> findings(JsonNode archived) {
    List<String> out = new ArrayList<>();
    archived.get("stripes").forEach(s -> s.get("findings").forEach(f -> out.add(line(f))));
    archived.get("findings").forEach(f -> out.add(line(f)));
    return out;
  }

  private static String line(JsonNode f) {
    return f.get("problem").asText() + " " + f.get("file").asText() + " " + f.get("stripe").asLong() + " "
        + f.get("unit").asInt() + " " + f.get("block").asLong();
  }

  private static JsonNode stripe(JsonNode archived, String path, long id) {
    for (JsonNode s : archived.get("stripes")) {
      if (s.get("path").asText().equals(path) && s.get("stripe").asLong() == id) {
        return s;
      }
    }
    throw new AssertionError("no stripe " + id + " of " + path + " in " + archived);
  }

  @Test
  @Order(1)
  void aFreshlyArchivedDirectoryAndFileAreClean() throws Exception {
    checks.write("/clean/d/a", 3 * BLOCK + 5);
    checks.write("/clean/d/b", BLOCK / 2);
    checks.write("/clean/d/sub/c", 4 * BLOCK);
    checks.write("/clean/f", 9 * BLOCK + 1000);
    archive("/clean/d");
    archive("/clean/f");
    JsonNode a = fsck("/clean", 0);
    assertEquals(2, a.get("manifestsChecked").asInt());
    List<ArchivedStripe> all = new ArrayList<>(manifestOf("/clean/d").stripes());
    all.addAll(manifestOf("/clean/f").stripes());
    assertEquals(all.size(), a.get("stripesChecked").asInt());
    assertEquals(0, a.get("problems").asInt());
    assertEquals(0, a.get("stripesNotDecodable").asInt());
    assertEquals(List.of(), findings(a));
    for (String p : List.of("/clean/d", "/clean/f")) {
      for (ArchivedStripe s : manifestOf(p).stripes()) {
        JsonNode j = stripe(a, p, s.stripeId());
        assertEquals("TRIMMED", j.get("state").asText());
        assertEquals(0, j.get("lostUnits").size());
        assertTrue(j.get("decodable").asBoolean());
        assertEquals(tolerance(s), j.get("remainingTolerance").asInt());
        assertEquals(tolerance(s), j.get("toleranceWhenWhole").asInt());
        assertEquals(ArchiveLayout.from(conf).manifest(store.inodeOf(new Path(p))).toUri().getPath(),
            j.get("manifest").asText());
      }
    }
    ToolRun text = tool("fsck", "/clean");
    assertEquals(0, text.exit(), text.out() + text.err());
    assertTrue(text.out().contains(all.size() + " archived stripes in 2 manifests checked: 0 not decodable, 0 missing,"
        + " 0 off plan, 0 stale (0 stripes below tolerance, 0 held by raised replication), 0 stuck mid-archive, 0"
        + " unprotected blocks, 0 orphaned, 0 corrupt"), text.out());
  }

  @Test
  @Order(2)
  void anAppendToAnArchivedFileIsNamedStale() throws Exception {
    checks.write("/stale/f", 2 * BLOCK + 100);
    archive("/stale/f");
    StripeManifest m = manifestOf("/stale/f");
    ArchivedStripe s = m.stripes().get(0);
    StripeMember last = s.member(2);
    checks.append("/stale/f", new byte[] {1, 2, 3, 4, 5});
    JsonNode a = fsck("/stale", 1);
    // No repair monitor here (no cluster secret): the stripe stays below its code's tolerance, and fsck says so.
    assertEquals(List.of("stale /stale/f " + s.stripeId() + " 2 " + last.blockId(),
        "below-tolerance /stale/f " + s.stripeId() + " -1 0"), findings(a));
    JsonNode j = stripe(a, "/stale/f", s.stripeId());
    assertEquals("[2]", j.get("lostUnits").toString());
    assertTrue(j.get("decodable").asBoolean());
    assertEquals(tolerance(s, 2), j.get("remainingTolerance").asInt());
    String message = j.get("findings").get(0).get("message").asText();
    assertTrue(message.contains("stripe " + s.stripeId() + " of /stale/f unit 2 (data block blk_" + last.blockId()
        + " of /stale/f): generation stamp"), message);
    checks.everyByteReadsBack();
  }

  @Test
  @Order(3)
  void aDeletedMemberFileLowersItsStripesTolerance() throws Exception {
    checks.write("/del/d/a", BLOCK);
    checks.write("/del/d/b", BLOCK);
    checks.write("/del/d/c", BLOCK);
    archive("/del/d");
    ArchivedStripe s = manifestOf("/del/d").stripes().get(0);
    long inodeB = store.inodeOf(new Path("/del/d/b"));
    int unit = -1;
    for (int u = 0; u < s.code().k(); u++) {
      if (s.member(u).inodeId() == inodeB) {
        unit = u;
      }
    }
    checks.write("/del/g", BLOCK + 3);
    archive("/del/g");
    String manifestG = ArchiveLayout.from(conf).manifest(store.inodeOf(new Path("/del/g"))).toUri().getPath();
    checks.delete("/del/d/b");
    checks.delete("/del/g"); // a file archived alone: its manifest and parity are left protecting nothing
    JsonNode a = fsck("/del", 1);
    assertEquals(List.of("stale /.reserved/.inodes/" + inodeB + " " + s.stripeId() + " " + unit + " "
        + s.member(unit).blockId(), "below-tolerance /del/d " + s.stripeId() + " -1 0",
        "orphan-manifest " + manifestG + " -1 -1 0"), findings(a));
    assertTrue(a.get("findings").get(0).get("message").asText().contains("(archived as /del/g), which no longer"
        + " exists"), a.toString());
    JsonNode j = stripe(a, "/del/d", s.stripeId());
    assertEquals("[" + unit + "]", j.get("lostUnits").toString());
    assertTrue(j.get("decodable").asBoolean());
    int now = j.get("remainingTolerance").asInt();
    assertEquals(tolerance(s, unit), now);
    assertEquals(tolerance(s), j.get("toleranceWhenWhole").asInt());
    assertTrue(now < tolerance(s), "one unit gone: " + now + " of " + tolerance(s));
    assertTrue(j.get("findings").get(0).get("message").asText().endsWith("its file is gone (deleted or overwritten)"));
    ToolRun text = tool("fsck", "/del");
    assertEquals(1, text.exit(), text.out() + text.err());
    assertTrue(text.out().contains("stripe " + s.stripeId() + " of /del/d (" + CODE + ", TRIMMED): decodable with units ["
        + unit + "] lost; tolerates " + now + " more loss" + (now == 1 ? "" : "es") + " (" + tolerance(s)
        + " when whole)"), text.out());
    assertTrue(text.out().contains("  STALE: stripe " + s.stripeId() + " of /del/d unit " + unit), text.out());
  }

  @Test
  @Order(4)
  void aManifestDeletedByHandLeavesOrphanedParityAndPointers() throws Exception {
    checks.write("/orph/d/a", 2 * BLOCK);
    checks.write("/orph/d/b", BLOCK);
    archive("/orph/d");
    long dir = store.inodeOf(new Path("/orph/d"));
    ArchiveLayout layout = ArchiveLayout.from(conf);
    String manifest = layout.manifest(dir).toUri().getPath();
    assertTrue(fs.delete(layout.manifest(dir), false));
    JsonNode a = fsck("/orph", 1);
    assertEquals(0, a.get("manifestsChecked").asInt());
    assertEquals(List.of("orphan-parity /.wideec/parity/" + dir + " -1 -1 0", "orphan-pointer /orph/d/a -1 -1 0",
        "orphan-pointer /orph/d/b -1 -1 0"), findings(a));
    assertTrue(a.get("findings").get(1).get("message").asText().contains("names manifest " + manifest + "), but that"
        + " manifest does not exist"));
    // A lone pointer is undone by unarchiving its file: replicas back, pointer gone.
    ToolRun r = tool("unarchive", "/orph/d/a", "--json");
    assertEquals(0, r.exit(), r.out() + r.err());
    assertEquals(1, r.json().get("pointersRemoved").asInt());
    assertEquals(2, r.json().get("blocks").asInt());
    assertEquals(3, fs.getFileStatus(new Path("/orph/d/a")).getReplication());
    assertNull(store.pointer(new Path("/orph/d/a")));
    assertEquals(List.of("orphan-parity /.wideec/parity/" + dir + " -1 -1 0", "orphan-pointer /orph/d/b -1 -1 0"),
        findings(fsck("/orph", 1)));
    checks.everyByteReadsBack();
  }

  @Test
  @Order(5)
  void aCrashedArchiveIsStuckUntilRerunAndACorruptManifestIsNamed() throws Exception {
    checks.write("/stuck/f", 9 * BLOCK + 1000);
    org.wideec.archive.hdfs.Archiver.Hook crash = (manifest, stripe) -> {
      if (stripe != null && stripe.state() == org.wideec.archive.StripeState.PARITY_WRITTEN) {
        throw new java.io.IOException("crash at PARITY_WRITTEN");
      }
    };
    org.junit.jupiter.api.Assertions.assertThrows(java.io.IOException.class, () -> new org.wideec.archive.hdfs.Archiver(
        fs, store, org.wideec.archive.hdfs.ClientClassicEncoder.from(fs), crash,
        org.wideec.archive.hdfs.Archiver.Listener.NONE).archive(new Path("/stuck/f"), CODE,
        org.wideec.archive.PlacementKind.CL));
    JsonNode a = fsck("/stuck", 1);
    assertEquals(List.of("stuck  0 -1 0", "stuck  1 -1 0"), findings(a));
    assertEquals("PARITY_WRITTEN", stripe(a, "/stuck/f", 0).get("state").asText());
    assertEquals("PLANNED", stripe(a, "/stuck/f", 1).get("state").asText());
    assertTrue(stripe(a, "/stuck/f", 1).get("decodable").isNull(), "no parity yet");
    String message = stripe(a, "/stuck/f", 0).get("findings").get(0).get("message").asText();
    assertTrue(message.endsWith("stopped mid-archive before COMMITTED (every data block keeps its replication); rerun"
        + " 'wide-ec archive /stuck/f --code " + CODE + "' to resume"), message);
    archive("/stuck/f");
    assertEquals(List.of(), findings(fsck("/stuck", 0)));

    // A truncated manifest: fsck names it and goes on; unarchive refuses, naming it, and changes nothing.
    Path manifest = ArchiveLayout.from(conf).manifest(store.inodeOf(new Path("/stuck/f")));
    byte[] bytes;
    try (org.apache.hadoop.fs.FSDataInputStream in = fs.open(manifest)) {
      bytes = in.readAllBytes();
    }
    try (org.apache.hadoop.fs.FSDataOutputStream out = fs.create(manifest, true)) {
      out.write(bytes, 0, bytes.length / 2);
    }
    String name = manifest.toUri().getPath();
    JsonNode c = fsck("/stuck", 1);
    assertEquals(List.of("corrupt-manifest " + name + " -1 -1 0"), findings(c));
    assertTrue(c.get("findings").get(0).get("message").asText().contains(name), c.toString());
    ToolRun u = tool("unarchive", "/stuck/f");
    assertEquals(3, u.exit(), u.out() + u.err());
    assertTrue(u.err().contains(name), u.err());
    assertEquals(1, fs.getFileStatus(new Path("/stuck/f")).getReplication());
    try (org.apache.hadoop.fs.FSDataOutputStream out = fs.create(manifest, true)) {
      out.write(bytes); // whole again, for the tests after this one
    }
    assertEquals(List.of(), findings(fsck("/stuck", 0)));
  }

  @Test
  @Order(6)
  void unarchiveRestoresReplicationFreesTheStripesAndARerunIsANoOp() throws Exception {
    checks.write("/un/f", 9 * BLOCK + 1000);
    checks.write("/un/d/x", 2 * BLOCK);
    checks.write("/un/d/y", BLOCK + 7);
    archive("/un/f");
    archive("/un/d");
    ToolRun inside = tool("unarchive", "/un/d/x");
    assertEquals(3, inside.exit(), inside.out() + inside.err());
    assertTrue(inside.err().contains("/un/d/x is inside the archived directory /un/d"), inside.err());
    assertEquals(1, fs.getFileStatus(new Path("/un/d/x")).getReplication(), "refused: nothing changed");

    Path f = new Path("/un/f");
    long inode = store.inodeOf(f);
    StripeManifest m = manifestOf("/un/f");
    long parityUnits = m.stripes().stream().flatMap(s -> s.members().stream())
        .filter(u -> u.isParity() && !u.padding()).count();
    assertEquals(1, fs.getFileStatus(f).getReplication());
    ToolRun r = tool("unarchive", "/un/f", "--json");
    assertEquals(0, r.exit(), r.out() + r.err());
    JsonNode j = r.json();
    assertTrue(j.get("wasArchived").asBoolean());
    assertEquals(3, j.get("replication").asInt());
    assertEquals(1, j.get("files").asInt());
    assertEquals(10, j.get("blocks").asInt());
    assertEquals(2, j.get("stripesFreed").asInt());
    assertEquals(parityUnits, j.get("parityFilesDeleted").asLong());
    assertEquals(1, j.get("pointersRemoved").asInt());
    assertEquals(3, fs.getFileStatus(f).getReplication());
    for (LocatedBlock lb : fs.getClient().getLocatedBlocks("/un/f", 0, fs.getFileStatus(f).getLen())
        .getLocatedBlocks()) {
      assertTrue(lb.getLocations().length >= 3, "blk_" + lb.getBlock().getBlockId() + " has "
          + lb.getLocations().length + " replicas");
    }
    assertFalse(fs.getXAttrs(f).containsKey(ArchivalSource.POINTER_XATTR));
    ArchiveLayout layout = ArchiveLayout.from(conf);
    assertFalse(fs.exists(layout.manifest(inode)));
    assertFalse(fs.exists(layout.parityRoot(inode)));
    for (org.apache.hadoop.fs.FileStatus st : fs.listStatus(layout.manifestDir())) {
      assertFalse(st.getPath().getName().startsWith(inode + "."), "left in the manifest directory: " + st.getPath());
    }
    checks.everyByteReadsBack();
    assertEquals(0, fsck("/un/f", 0).get("manifestsChecked").asInt());

    ToolRun again = tool("unarchive", "/un/f", "--json");
    assertEquals(0, again.exit(), again.out() + again.err());
    assertFalse(again.json().get("wasArchived").asBoolean());
    assertEquals(0, again.json().get("stripesFreed").asInt());

    ToolRun d = tool("unarchive", "/un/d");
    assertEquals(0, d.exit(), d.out() + d.err());
    assertTrue(d.out().startsWith("unarchived /un/d: 2 files (4 blocks) at replication 3; 1 stripes freed"), d.out());
    assertEquals(3, fs.getFileStatus(new Path("/un/d/y")).getReplication());
    JsonNode clean = fsck("/un", 0);
    assertEquals(0, clean.get("manifestsChecked").asInt());
    assertEquals(List.of(), findings(clean));
    checks.everyByteReadsBack();
  }

  @Test
  @Order(7)
  void anUnarchiveStoppedAfterAnyStepIsFinishedByARerun() throws Exception {
    ArchiveLayout layout = ArchiveLayout.from(conf);
    for (String step : List.of("replicated", "pointers", "parity", "manifest")) {
      String dir = "/crash-" + step + "/d";
      checks.write(dir + "/a", 2 * BLOCK);
      checks.write(dir + "/b", BLOCK / 3);
      archive(dir);
      long inode = store.inodeOf(new Path(dir));
      Unarchiver.Hook crash = s -> {
        if (s.equals(step)) {
          throw new java.io.IOException("crash after " + s);
        }
      };
      java.io.IOException e = org.junit.jupiter.api.Assertions.assertThrows(java.io.IOException.class,
          () -> new Unarchiver(fs, store, crash).unarchive(new Path(dir), (short) 3, Unarchiver.Progress.NONE));
      assertEquals("crash after " + step, e.getMessage());
      // Stopped with the replicas back and the pointers (then the parity) gone but the manifest still there: the
      // NameNode's reprotection sees members gone from a stripe no file relies on any more, and raises nothing.
      long passes = WideEcNameNodePlugin.metrics().archiveReprotectionPasses();
      Eventually.await("two reprotection passes", Duration.ofSeconds(30),
          () -> WideEcNameNodePlugin.metrics().archiveReprotectionPasses(), n -> n >= passes + 2);
      for (String f : List.of(dir + "/a", dir + "/b")) {
        assertEquals(3, fs.getFileStatus(new Path(f)).getReplication(), step + " " + f);
      }
      ToolRun r = tool("unarchive", dir, "--json");
      assertEquals(0, r.exit(), step + ": " + r.out() + r.err());
      // Until the manifest is deleted the rerun redoes the rest; after it, there is nothing left to do.
      assertEquals(!step.equals("manifest"), r.json().get("wasArchived").asBoolean(), step);
      assertFalse(fs.exists(layout.manifest(inode)), step);
      assertFalse(fs.exists(layout.parityRoot(inode)), step);
      for (String f : List.of(dir + "/a", dir + "/b")) {
        assertEquals(3, fs.getFileStatus(new Path(f)).getReplication(), step + " " + f);
        assertNull(store.pointer(new Path(f)), step + " " + f);
      }
      JsonNode a = fsck("/crash-" + step, 0);
      assertEquals(List.of(), findings(a), step);
    }
    checks.everyByteReadsBack();
  }

  @Test
  @Order(8)
  void aStoppedDataNodesMembersAreMissingTheStripesStillDecodeAndUnarchiveRefuses() throws Exception {
    checks.write("/lost/f", 9 * BLOCK + 1000);
    archive("/lost/f");
    StripeManifest m = manifestOf("/lost/f");
    String node = m.stripes().get(0).member(0).plannedNode();
    TreeSet<String> expected = new TreeSet<>();
    for (ArchivedStripe s : m.stripes()) {
      for (int u = 0; u < s.members().size(); u++) {
        StripeMember x = s.member(u);
        if (!x.padding() && x.plannedNode().equals(node)) {
          String file = x.role() == UnitRole.DATA ? "/lost/f" : ArchiveLayout.parityUnit(s.parityFilePath(), u).toString();
          expected.add("missing " + file + " " + s.stripeId() + " " + u + " " + x.blockId());
        }
      }
    }
    DatanodeID id = null;
    for (DataNode dn : cluster.getDataNodes()) {
      if (dn.getDatanodeId().getXferAddr().equals(node)) {
        id = dn.getDatanodeId();
      }
    }
    assertNotNull(id, node);
    assertNotNull(cluster.stopDataNode(node));
    cluster.setDataNodeDead(id);
    // The data is at one replica: its node's members go at once.
    JsonNode a = Eventually.await("fsck finds " + expected, Duration.ofSeconds(30), () -> fsck("/lost", 1),
        j -> new TreeSet<>(findings(j)).equals(expected));
    assertEquals(expected, new TreeSet<>(findings(a)));
    for (ArchivedStripe s : m.stripes()) {
      JsonNode j = stripe(a, "/lost/f", s.stripeId());
      List<Integer> lost = new ArrayList<>();
      j.get("lostUnits").forEach(u -> lost.add(u.asInt()));
      assertTrue(lost.size() <= 1, "one unit per node per stripe: " + lost);
      assertTrue(j.get("decodable").asBoolean(), "stripe " + s.stripeId());
      assertEquals(tolerance(s, lost.stream().mapToInt(Integer::intValue).toArray()),
          j.get("remainingTolerance").asInt());
    }
    ToolRun r = tool("unarchive", "/lost/f");
    assertEquals(3, r.exit(), r.out() + r.err());
    long missingData = m.stripes().get(0).member(0).blockId();
    assertTrue(r.err().contains("/lost/f block blk_") && r.err().contains("has no live replica"), r.err());
    assertTrue(r.err().contains("blk_" + missingData + " (stripe 0 unit 0)") || r.err().contains("(stripe "), r.err());
    assertEquals(1, fs.getFileStatus(new Path("/lost/f")).getReplication(), "refused before anything changed");
    assertTrue(fs.exists(ArchiveLayout.from(conf).manifest(store.inodeOf(new Path("/lost/f")))));
  }
}
