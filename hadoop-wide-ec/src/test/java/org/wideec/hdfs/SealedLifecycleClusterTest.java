package org.wideec.hdfs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.hdfs.tools.DFSck;
import org.apache.hadoop.util.ToolRunner;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.StripeManifest;
import org.wideec.archive.StripeMember;
import org.wideec.archive.hdfs.CodewordFiles;
import org.wideec.client.WideEcFileSystem;
import org.wideec.minicluster.Eventually;
import org.wideec.minicluster.MiniClusters;
import org.wideec.placement.hdfs.WideEcNameNodePlugin;

/**
 * The life of a sealed (RapidRAID) file after archival on the racked test bed (6 racks x 3
 * DataNodes, 64 KiB blocks) with the NameNode's repair monitor and the DataNodes' workers: a lost codeword is rebuilt
 * under its own block id from k others by the exact code, checked against the manifest's CRC.
 */
class SealedLifecycleClusterTest extends ArchiveTestBed {
  static final String RR = "rapidraid:n=8,k=4";
  private final List<MiniDFSCluster.DataNodeProperties> stopped = new ArrayList<>();

  @Override
  Configuration baseConf() {
    Configuration base = MiniClusters.withWideEcRepair(MiniClusters.withWideEcPlacement(new Configuration()));
    base.setLong("wide-ec.archive.repair.interval.ms", 300);
    base.setLong("wide-ec.archive.repair.backoff.ms", 500);
    return base;
  }

  @AfterEach
  void restartStopped() throws Exception {
    // The later tests archive their own files onto the nodes as they are.
    MiniClusters.restartAndReport(cluster, stopped, MiniClusters.Ports.SAME_IF_FREE);
  }

  byte[] write(String path, long bytes) throws Exception {
    byte[] data = new byte[(int) bytes];
    new Random(path.hashCode()).nextBytes(data);
    try (FSDataOutputStream o = fs.create(new Path(path), (short) 3)) {
      o.write(data);
    }
    return data;
  }

  FileSystem wideEc() throws IOException {
    Configuration c = new Configuration(conf);
    c.set("fs.hdfs.impl", WideEcFileSystem.class.getName());
    c.setBoolean("fs.hdfs.impl.disable.cache", true);
    return FileSystem.newInstance(fs.getUri(), c);
  }

  static byte[] readAll(FileSystem client, String path, int length) throws IOException {
    byte[] out = new byte[length];
    try (FSDataInputStream in = client.open(new Path(path))) {
      in.readFully(0, out);
    }
    return out;
  }

  StripeManifest sealedManifest(String path) throws IOException {
    return store.read(new Path(store.pointer(new Path(path)).manifestPath()));
  }

  /** A file written and sealed with {@link #RR}: its bytes, placeholder inode, manifest and archive inode. */
  record Sealed(byte[] data, long placeholder, String manifest, long archive, StripeManifest stripes) {}

  Sealed seal(String path, long length) throws Exception {
    byte[] data = write(path, length);
    assertEquals(0, tool("archive", path, "--code", RR).exit());
    String manifest = store.pointer(new Path(path)).manifestPath();
    return new Sealed(data, fs.getClient().getFileInfo(path).getFileId(), manifest,
        org.wideec.archive.hdfs.ArchiveLayout.archiveInodeOf(manifest), sealedManifest(path));
  }

  private LocatedBlock located(ArchivedStripe s, int u) throws IOException {
    String file = CodewordFiles.file(s, u).toString();
    return fs.getClient().getLocatedBlocks(file, 0, Math.max(1, s.unitLength())).get(0);
  }

  private void kill(String xferAddr) throws Exception {
    DataNode dn = cluster.getDataNodes().stream().filter(d -> d.getDatanodeId().getXferAddr().equals(xferAddr))
        .findFirst().orElseThrow();
    stopped.add(cluster.stopDataNode(xferAddr));
    cluster.setDataNodeDead(dn.getDatanodeId());
  }

  void fsckHealthy() throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int rc = ToolRunner.run(new DFSck(conf, new PrintStream(out, true, "UTF-8")), new String[] {"/"});
    String report = out.toString("UTF-8");
    assertEquals(0, rc, report);
    assertTrue(report.contains("is HEALTHY"), report);
  }

  @Test
  void aLostCodewordIsRebuiltUnderItsOwnIdFromKOthers() throws Exception {
    String path = "/cold/repair";
    long length = 6 * BLOCK + 500; // stripes of 4 and 3 pieces (the last short)
    byte[] data = write(path, length);
    ToolRun run = tool("archive", path, "--code", RR);
    assertEquals(0, run.exit(), run.out() + run.err());
    StripeManifest m = sealedManifest(path);
    ArchivedStripe s0 = m.stripes().get(0);
    String dead = located(s0, 3).getLocations()[0].getXferAddr();
    List<long[]> onDead = new ArrayList<>(); // {stripe index, unit}
    for (int i = 0; i < m.stripes().size(); i++) {
      ArchivedStripe s = m.stripes().get(i);
      for (int u : s.storedUnits()) {
        if (located(s, u).getLocations()[0].getXferAddr().equals(dead)) {
          onDead.add(new long[] {i, u});
        }
      }
    }
    long repairedBefore = WideEcNameNodePlugin.metrics().archivedBlocksRepaired();
    kill(dead);
    for (long[] x : onDead) {
      ArchivedStripe s = m.stripes().get((int) x[0]);
      int u = (int) x[1];
      Eventually.await("stripe " + s.stripeId() + " codeword " + u + " live again", Duration.ofSeconds(60),
          () -> located(s, u).getLocations().length > 0);
      LocatedBlock lb = located(s, u);
      StripeMember mem = s.member(u);
      assertEquals(mem.blockId(), lb.getBlock().getBlockId());
      assertEquals(mem.generationStamp(), lb.getBlock().getGenerationStamp());
      assertEquals(1, lb.getLocations().length);
      assertTrue(!lb.getLocations()[0].getXferAddr().equals(dead));
      assertEquals(mem.plannedRack(), lb.getLocations()[0].getNetworkLocation());
      byte[] bytes = readAll(fs, CodewordFiles.file(s, u).toString(), (int) s.unitLength());
      assertEquals(mem.crc32c(), ArchiveChecks.crc(bytes), "stripe " + s.stripeId() + " codeword " + u);
    }
    // The monitor counts a rebuild once it sees the replica live on its next pass, which may come after we did.
    Eventually.await(onDead.size() + " rebuilds counted", Duration.ofSeconds(60),
        () -> WideEcNameNodePlugin.metrics().archivedBlocksRepaired() - repairedBefore, n -> n >= onDead.size());
    try (FileSystem ours = wideEc()) {
      assertArrayEquals(data, readAll(ours, path, (int) length));
    }
    fsckHealthy();
  }

  /** The archived findings of fsck's JSON whose problem is {@code problem}, as "file: message" lines. */
  static List<String> findings(com.fasterxml.jackson.databind.JsonNode archived, String problem) {
    List<String> out = new ArrayList<>();
    archived.get("findings").forEach(f -> {
      if (f.get("problem").asText().equals(problem)) {
        out.add(f.get("file").asText() + ": " + f.get("message").asText());
      }
    });
    archived.get("stripes").forEach(st -> st.get("findings").forEach(f -> {
      if (f.get("problem").asText().equals(problem)) {
        out.add(f.get("file").asText() + ": " + f.get("message").asText());
      }
    }));
    return out;
  }

  @Test
  void fsckJudgesSealedFilesByTheExactCodeAndFindTheirLeftovers() throws Exception {
    String path = "/fsck/a";
    write(path, 5 * BLOCK + 9); // stripes of 4 and 2 pieces
    assertEquals(0, tool("archive", path, "--code", RR).exit());
    StripeManifest m = sealedManifest(path);
    int whole = org.wideec.code.RemainingTolerance.of(m.stripes().get(0).code(), new java.util.BitSet()).value();

    ToolRun healthy = tool("fsck", path, "--json");
    assertEquals(0, healthy.exit(), healthy.out() + healthy.err());
    var archived = healthy.json().get("archived");
    assertEquals(1, archived.get("manifestsChecked").asInt(), healthy.out());
    assertEquals(2, archived.get("stripesChecked").asInt());
    assertEquals(0, archived.get("problems").asInt(), healthy.out());
    for (var st : archived.get("stripes")) {
      assertEquals(path, st.get("path").asText());
      assertEquals("TRIMMED", st.get("state").asText());
      assertTrue(st.get("decodable").asBoolean());
      assertEquals(whole, st.get("remainingTolerance").asInt(), st.toString());
    }

    // A codeword file deleted: that member is lost (its file is gone), the stripe decodes with one loss fewer left.
    ArchivedStripe s0 = m.stripes().get(0);
    assertTrue(fs.delete(CodewordFiles.file(s0, 2), false));
    ToolRun lossy = tool("fsck", path, "--json");
    assertEquals(1, lossy.exit(), lossy.out());
    var st0 = lossy.json().get("archived").get("stripes").get(0);
    assertEquals("[2]", st0.get("lostUnits").toString());
    assertTrue(st0.get("decodable").asBoolean());
    assertEquals(org.wideec.code.RemainingTolerance.of(s0.code(), new java.util.BitSet(), new int[] {2}).value(),
        st0.get("remainingTolerance").asInt());
    assertTrue(st0.get("findings").get(0).get("message").asText().contains("unit 2 (coded block blk_"
        + s0.member(2).blockId()), st0.toString());

    // Leftovers: codewords of no manifest, an index of no placeholder, a placeholder whose manifest is gone.
    String b = "/fsck/b";
    write(b, 2 * BLOCK);
    assertEquals(0, tool("archive", b, "--code", RR).exit());
    String manifestB = store.pointer(new Path(b)).manifestPath();
    long inodeB = org.wideec.archive.hdfs.ArchiveLayout.archiveInodeOf(manifestB);
    Path stash = new Path(store.layout().root(), "stash.bin");
    assertTrue(fs.rename(new Path(manifestB), stash));
    Path strayCodewords = new Path(store.layout().codewordRoot(999_999), "0");
    fs.mkdirs(strayCodewords);
    Path strayIndex = store.layout().sealedIndex(888_888);
    try (FSDataOutputStream o = fs.create(strayIndex)) {
      o.write(new byte[] {1, 2, 3});
    }
    try {
      ToolRun all = tool("fsck", "/", "--json");
      assertEquals(1, all.exit(), all.out());
      var j = all.json().get("archived");
      String root = store.layout().root().toUri().getPath();
      assertTrue(findings(j, "orphan-codewords").stream().anyMatch(f -> f.startsWith(root + "/codewords/999999:")),
          all.out());
      assertTrue(findings(j, "orphan-codewords").stream().anyMatch(f -> f.startsWith(root + "/codewords/" + inodeB
          + ":")), all.out());
      assertTrue(findings(j, "orphan-index").stream().anyMatch(f -> f.startsWith(strayIndex.toUri().getPath() + ":")),
          all.out());
      List<String> lostManifest = findings(j, "orphan-placeholder");
      assertTrue(lostManifest.stream().anyMatch(f -> f.startsWith(b + ":") && f.contains(manifestB)
          && f.contains("holds a copy of the manifest")), all.out());
      assertTrue(findings(j, "orphan-pointer").stream().noneMatch(f -> f.startsWith(b + ":")), all.out());
    } finally {
      fs.delete(strayIndex, false);
      fs.delete(store.layout().codewordRoot(999_999), true);
      assertTrue(fs.rename(stash, new Path(manifestB)));
    }
    ToolRun back = tool("fsck", b, "--json");
    assertEquals(0, back.exit(), back.out());

    // A stock append to the placeholder fails (its coder refuses) and leaves it empty and closed.
    org.junit.jupiter.api.Assertions.assertThrows(Exception.class, () -> fs.append(new Path(b)).close());
    ToolRun appended = tool("fsck", b, "--json");
    assertEquals(0, appended.exit(), appended.out());
    fs.recoverLease(new Path(b));
    try (FileSystem ours = wideEc()) {
      assertEquals(2 * BLOCK, readAll(ours, b, (int) (2 * BLOCK)).length);
    }
  }

  /**
   * Unarchive decodes the sealed file into a replicated file that replaces its placeholder, then frees its codewords,
   * reader's index and manifest; a run stopped after each step ({@code at}) is finished by a rerun.
   */
  @ParameterizedTest
  @ValueSource(strings = {"", "decoded", "aside", "placed", "renamed", "codewords", "index", "manifest", "pointer"})
  void unarchiveRestoresTheFileAndResumesAfterACrashAtEachStep(String at) throws Exception {
    String path = "/restore/" + (at.isEmpty() ? "whole" : at);
    long length = 5 * BLOCK + 321;
    byte[] data = write(path, length);
    fs.setOwner(new Path(path), "alice", "staff");
    fs.setPermission(new Path(path), new org.apache.hadoop.fs.permission.FsPermission((short) 0640));
    long modified = fs.getFileStatus(new Path(path)).getModificationTime();
    assertEquals(0, tool("archive", path, "--code", RR).exit());
    long placeholder = fs.getClient().getFileInfo(path).getFileId();
    String manifest = store.pointer(new Path(path)).manifestPath();
    long archive = org.wideec.archive.hdfs.ArchiveLayout.archiveInodeOf(manifest);
    if (!at.isEmpty()) {
      org.wideec.archive.hdfs.Unarchiver.Hook crash = step -> {
        if (step.equals(at)) {
          throw new IOException("injected crash after " + step);
        }
      };
      IOException e = org.junit.jupiter.api.Assertions.assertThrows(IOException.class,
          () -> new org.wideec.archive.hdfs.Unarchiver(fs, store, crash).unarchive(new Path(path), (short) 2,
              org.wideec.archive.hdfs.Unarchiver.Progress.NONE));
      assertTrue(e.getMessage().contains("injected crash"), e.getMessage());
      assertEquals(at.equals("decoded"), org.wideec.archive.hdfs.SealedFiles.isSealed(fs.getClient().getFileInfo(path)),
          "only the rename replaces the placeholder");
      if (at.equals("aside")) {
        org.junit.jupiter.api.Assertions.assertFalse(fs.exists(new Path(path)), "stopped between the renames");
      } else {
        if (at.equals("placed")) {
          assertTrue(fs.getXAttrs(new Path("/restore")).containsKey("trusted.wideec.unsealing." + archive),
              "stopped after the rename, before the swap marker went");
        }
        try (FileSystem ours = wideEc()) {
          assertArrayEquals(data, readAll(ours, path, (int) length), "readable between the steps");
        }
      }
    }
    ToolRun r = tool("unarchive", path, "--replication", "2", "--json");
    assertEquals(0, r.exit(), r.out() + r.err());
    // Stopped after its last step, the run had finished: the rerun finds nothing to do.
    assertEquals(!at.equals("pointer"), r.json().get("wasArchived").asBoolean(), r.out());

    var st = fs.getClient().getFileInfo(path);
    assertTrue(!st.isErasureCoded(), "a plain replicated file again");
    assertEquals(length, st.getLen());
    assertEquals(2, st.getReplication());
    assertEquals("alice", st.getOwner());
    assertEquals("staff", st.getGroup());
    assertEquals((short) 0640, st.getPermission().toShort());
    assertEquals(modified, st.getModificationTime());
    assertArrayEquals(data, readAll(fs, path, (int) length), "a stock client reads the restored bytes");
    for (LocatedBlock lb : fs.getClient().getLocatedBlocks(path, 0, length).getLocatedBlocks()) {
      assertEquals(2, lb.getLocations().length, "blk_" + lb.getBlock().getBlockId());
      assertEquals(BLOCK, fs.getClient().getFileInfo(path).getBlockSize());
    }
    org.junit.jupiter.api.Assertions.assertFalse(fs.exists(store.layout().codewordRoot(archive)));
    org.junit.jupiter.api.Assertions.assertFalse(fs.exists(store.layout().sealedIndex(placeholder)));
    org.junit.jupiter.api.Assertions.assertFalse(fs.exists(new Path(manifest)));
    assertTrue(fs.getXAttrs(new Path(path)).keySet().stream().noneMatch(k -> k.startsWith("trusted.wideec")),
        fs.getXAttrs(new Path(path)).keySet().toString());
    assertTrue(fs.getXAttrs(new Path("/restore")).isEmpty(), "no swap marker left");
    ToolRun again = tool("unarchive", path, "--json");
    assertEquals(0, again.exit(), again.out() + again.err());
    org.junit.jupiter.api.Assertions.assertFalse(again.json().get("wasArchived").asBoolean(), again.out());
    ToolRun fsck = tool("fsck", path, "--json");
    assertEquals(0, fsck.exit(), fsck.out());
    if (at.equals("placed")) {
      // A marker left behind would route every later unarchive of the path to the non-systematic way back.
      ToolRun sys = tool("archive", path, "--code", CODE, "--no-trim");
      assertEquals(0, sys.exit(), sys.out() + sys.err());
      // As an older version left it: a stale marker (its restored file long renamed in) is ignored and removed.
      fs.setXAttr(new Path("/restore"), "trusted.wideec.unsealing." + archive,
          path.getBytes(java.nio.charset.StandardCharsets.UTF_8));
      ToolRun plain = tool("unarchive", path, "--json");
      assertEquals(0, plain.exit(), plain.out() + plain.err());
      assertTrue(plain.json().get("wasArchived").asBoolean(), plain.out());
      assertArrayEquals(data, readAll(fs, path, (int) length));
      assertTrue(fs.getXAttrs(new Path("/restore")).isEmpty(), "the stale marker removed");
    }
  }

  /**
   * Another file takes a sealed file's path while unarchive runs: before the swap (the placeholder renamed away and a
   * file made in its place) or between the swap's renames. Either way the run is refused naming what happened, the
   * other file is left alone, and nothing of the sealed file is freed: codewords, reader's index and manifest stay,
   * and its bytes still read back (through its placeholder, or from the restored copy a rerun then puts in place).
   */
  @ParameterizedTest
  @ValueSource(strings = {"decoded", "aside"})
  void unarchiveIsRefusedWhenAnotherFileTakesThePathAndLosesNothing(String at) throws Exception {
    String path = "/taken/" + at;
    long length = 3 * BLOCK + 77;
    Sealed f = seal(path, length);
    byte[] data = f.data();
    long placeholder = f.placeholder();
    String manifest = f.manifest();
    long archive = f.archive();
    StripeManifest sealed = f.stripes();
    String moved = path + ".moved";
    byte[] other = "another writer's file".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    org.wideec.archive.hdfs.Unarchiver.Hook intruder = step -> {
      if (step.equals(at)) {
        if (at.equals("decoded")) {
          fs.rename(new Path(path), new Path(moved)); // the placeholder (and its pointer) goes elsewhere
        }
        try (FSDataOutputStream o = fs.create(new Path(path), false)) {
          o.write(other);
        }
      }
    };
    IOException e = assertThrows(IOException.class, () -> new org.wideec.archive.hdfs.Unarchiver(fs, store, intruder)
        .unarchive(new Path(path), (short) 2, org.wideec.archive.hdfs.Unarchiver.Progress.NONE));
    assertTrue(e.getMessage().contains(at.equals("decoded") ? path + " changed while it was restored"
        : "restoring " + path + " stopped: another file took its path"), e.getMessage());
    long otherInode = fs.getClient().getFileInfo(path).getFileId();
    assertArrayEquals(other, readAll(fs, path, other.length), "the other file is untouched");
    // Nothing freed: every codeword as archived, the reader's index, the manifest.
    assertEquals(sealed, store.read(new Path(manifest)));
    for (ArchivedStripe s : sealed.stripes()) {
      for (int u = 0; u < s.members().size(); u++) {
        assertEquals(s.member(u).blockId(), located(s, u).getBlock().getBlockId());
        assertEquals(s.member(u).crc32c(), ArchiveChecks.crc(readAll(fs, CodewordFiles.file(s, u).toString(),
            (int) s.unitLength())), "codeword " + u + " of stripe " + s.stripeId());
      }
    }
    assertTrue(fs.exists(store.layout().sealedIndex(placeholder)), "the reader's index is kept");
    if (at.equals("decoded")) {
      try (FileSystem ours = wideEc()) {
        assertArrayEquals(data, readAll(ours, moved, (int) length), "the sealed file reads back where it went");
      }
      return;
    }
    ToolRun blocked = tool("unarchive", path);
    assertEquals(org.wideec.cli.WideEcTool.EXIT_FAILED, blocked.exit(), blocked.out());
    assertTrue(blocked.err().contains("restoring " + path + " is unfinished, and another file (inode " + otherInode
        + ") took its path meanwhile"), blocked.err());
    assertArrayEquals(other, readAll(fs, path, other.length), "still untouched");
    fs.rename(new Path(path), new Path(moved));
    ToolRun r = tool("unarchive", path, "--replication", "2");
    assertEquals(0, r.exit(), r.out() + r.err());
    assertArrayEquals(data, readAll(fs, path, (int) length), "the restored bytes, by a stock client");
    assertArrayEquals(other, readAll(fs, moved, other.length));
    assertTrue(!fs.exists(store.layout().codewordRoot(archive)) && !fs.exists(new Path(manifest)),
        "freed only once the file was back");
  }

  /**
   * A sealed file's unarchive whose lock another run recovered while it decoded (a retried attempt took it for dead)
   * stops before it swaps anything in or frees anything, as the systematic way back does: the placeholder, every
   * codeword, the reader's index and the manifest stay, and the next run finishes.
   */
  @Test
  void aSealedUnarchiveWhoseLockWasRecoveredStopsBeforeTheSwapAndFreesNothing() throws Exception {
    String path = "/fenced/sealed";
    long length = 3 * BLOCK + 77;
    Sealed f = seal(path, length);
    long archive = f.archive();
    // The second run: its own client (its own lease holder), as a retried map attempt in another JVM would be.
    org.apache.hadoop.hdfs.DistributedFileSystem fs2 =
        (org.apache.hadoop.hdfs.DistributedFileSystem) FileSystem.newInstance(conf);
    org.wideec.archive.hdfs.ManifestStore store2 =
        new org.wideec.archive.hdfs.ManifestStore(fs2, store.layout()).holder("second run");
    java.io.Closeable[] held2 = {null};
    org.wideec.archive.hdfs.Unarchiver.Hook takeOver = step -> {
      if (step.equals("decoded")) {
        assertTrue(store2.releaseDeadHolder(archive, 60_000), "the first run's lease was recovered");
        held2[0] = store2.lock(archive);
      }
    };
    try {
      org.wideec.archive.hdfs.LostArchiveLockException lost = assertThrows(
          org.wideec.archive.hdfs.LostArchiveLockException.class,
          () -> new org.wideec.archive.hdfs.Unarchiver(fs, store, takeOver).unarchive(new Path(path), (short) 2,
              org.wideec.archive.hdfs.Unarchiver.Progress.NONE));
      assertTrue(lost.getMessage().contains("stopped before swapping the restored copy in for " + path),
          lost.getMessage());
      assertEquals(f.placeholder(), fs.getClient().getFileInfo(path).getFileId(), "the placeholder stays");
      assertTrue(org.wideec.archive.hdfs.SealedFiles.isSealed(fs.getClient().getFileInfo(path)));
      assertEquals(f.stripes(), store.read(new Path(f.manifest())));
      assertTrue(fs.exists(store.layout().sealedIndex(f.placeholder())), "the reader's index is kept");
      for (ArchivedStripe s : f.stripes().stripes()) {
        for (int u = 0; u < s.members().size(); u++) {
          assertEquals(s.member(u).blockId(), located(s, u).getBlock().getBlockId(), "codeword " + u);
        }
      }
      assertEquals("second run", store.lockHolder(archive), "the lost lock was not deleted by its old holder");
      held2[0].close();
      held2[0] = null;
    } finally {
      if (held2[0] != null) {
        held2[0].close();
      }
      fs2.close();
    }
    ToolRun r = tool("unarchive", path, "--replication", "2");
    assertEquals(0, r.exit(), r.out() + r.err());
    assertArrayEquals(f.data(), readAll(fs, path, (int) length), "the restored bytes, by a stock client");
    assertTrue(!fs.exists(store.layout().codewordRoot(archive)) && !fs.exists(new Path(f.manifest())));
  }

  /** The restored copy of an archive, where it waits beside the codewords until it is swapped in. */
  Path restoredCopy(long archive) {
    return new Path(store.layout().codewordRoot(archive), "restored");
  }

  /**
   * A refused run left a whole restored copy beside the codewords; the sealed file is renamed away after the next run
   * located it but before that run took the lock. The empty path is not a swap stopped between its renames (no live
   * marker of this archive): the run is refused, the leftover is never placed there, and the renamed sealed file keeps
   * its codewords, reader's index and manifest, then unarchives at its new path.
   */
  @Test
  void aLeftoverRestoredCopyIsNotPlacedWhereTheSealedFileWasRenamedAway() throws Exception {
    String path = "/renamed/f";
    String moved = "/renamed/g";
    long length = 3 * BLOCK + 77;
    Sealed f = seal(path, length);
    org.wideec.archive.hdfs.Unarchiver.Hook crash = step -> {
      if (step.equals("decoded")) {
        throw new IOException("injected crash after " + step);
      }
    };
    assertThrows(IOException.class, () -> new org.wideec.archive.hdfs.Unarchiver(fs, store, crash)
        .unarchive(new Path(path), (short) 2, org.wideec.archive.hdfs.Unarchiver.Progress.NONE));
    long leftover = fs.getClient().getFileInfo(restoredCopy(f.archive()).toString()).getFileId();
    org.wideec.archive.hdfs.Unarchiver.Hook renameAway = step -> {
      if (step.equals("locked")) {
        assertTrue(fs.rename(new Path(path), new Path(moved)));
      }
    };
    java.io.FileNotFoundException e = assertThrows(java.io.FileNotFoundException.class,
        () -> new org.wideec.archive.hdfs.Unarchiver(fs, store, renameAway).unarchive(new Path(path), (short) 2,
            org.wideec.archive.hdfs.Unarchiver.Progress.NONE));
    assertTrue(e.getMessage().contains(path), e.getMessage());
    org.junit.jupiter.api.Assertions.assertFalse(fs.exists(new Path(path)), "the leftover was not placed there");
    assertEquals(leftover, fs.getClient().getFileInfo(restoredCopy(f.archive()).toString()).getFileId());
    assertEquals(f.stripes(), store.read(new Path(f.manifest())));
    assertTrue(fs.exists(store.layout().sealedIndex(f.placeholder())), "the reader's index is kept");
    try (FileSystem ours = wideEc()) {
      assertArrayEquals(f.data(), readAll(ours, moved, (int) length), "the sealed file reads back where it went");
    }
    ToolRun r = tool("unarchive", moved, "--replication", "2");
    assertEquals(0, r.exit(), r.out() + r.err());
    assertArrayEquals(f.data(), readAll(fs, moved, (int) length), "the restored bytes, by a stock client");
    assertTrue(!fs.exists(store.layout().codewordRoot(f.archive())) && !fs.exists(new Path(f.manifest())));
  }

  /**
   * A user's file takes the sealed file's path after the restored copy is written, before the run waits for it: the
   * run waits for its own copy (by inode) and never raises the user's file's replication, then refuses the swap; the
   * sealed file, moved away, keeps its codewords and reads back.
   */
  @Test
  void aFileThatTakesThePathDuringTheRestoreKeepsItsReplication() throws Exception {
    String path = "/replaced/f";
    String moved = path + ".moved";
    long length = 3 * BLOCK + 77;
    Sealed f = seal(path, length);
    byte[] other = new byte[(int) BLOCK + 5];
    new Random(7).nextBytes(other);
    org.wideec.archive.hdfs.Unarchiver.Hook replace = step -> {
      if (step.equals("written")) {
        assertTrue(fs.rename(new Path(path), new Path(moved)));
        try (FSDataOutputStream o = fs.create(new Path(path), (short) 1)) {
          o.write(other);
        }
      }
    };
    IOException e = assertThrows(IOException.class, () -> new org.wideec.archive.hdfs.Unarchiver(fs, store, replace)
        .unarchive(new Path(path), (short) 2, org.wideec.archive.hdfs.Unarchiver.Progress.NONE));
    assertTrue(e.getMessage().contains(path + " changed while it was restored"), e.getMessage());
    assertEquals(1, fs.getClient().getFileInfo(path).getReplication(), "the user's file keeps its replication");
    assertArrayEquals(other, readAll(fs, path, other.length), "the user's file is untouched");
    assertEquals(f.stripes(), store.read(new Path(f.manifest())));
    try (FileSystem ours = wideEc()) {
      assertArrayEquals(f.data(), readAll(ours, moved, (int) length), "the sealed file reads back where it went");
    }
  }

  /**
   * The restored copy disappears after the placeholder was moved aside (a run taken for dead deleting it): the swap
   * puts the placeholder back at its path, so the sealed file still reads, and a rerun restores it.
   */
  @Test
  void aCopyLostAfterThePlaceholderWentAsidePutsThePlaceholderBack() throws Exception {
    String path = "/lostcopy/f";
    long length = 2 * BLOCK + 11;
    Sealed f = seal(path, length);
    org.wideec.archive.hdfs.Unarchiver.Hook loseCopy = step -> {
      if (step.equals("aside")) {
        assertTrue(fs.delete(restoredCopy(f.archive()), false));
      }
    };
    assertThrows(IOException.class, () -> new org.wideec.archive.hdfs.Unarchiver(fs, store, loseCopy)
        .unarchive(new Path(path), (short) 2, org.wideec.archive.hdfs.Unarchiver.Progress.NONE));
    assertTrue(fs.exists(new Path(path)), "the placeholder is back at its path");
    try (FileSystem ours = wideEc()) {
      assertArrayEquals(f.data(), readAll(ours, path, (int) length), "the sealed file still reads");
    }
    new org.wideec.archive.hdfs.Unarchiver(fs, store, org.wideec.archive.hdfs.Unarchiver.Hook.NONE)
        .unarchive(new Path(path), (short) 2, org.wideec.archive.hdfs.Unarchiver.Progress.NONE);
    assertArrayEquals(f.data(), readAll(fs, path, (int) length), "a rerun restores the file");
  }

  /**
   * A run stalls after taking the lock, before it decodes, and is taken for dead: a second run recovers the lock,
   * restores and waits for its copy. When the first wakes it proves the lock before deleting that copy and stops;
   * the second swaps in exactly the copy it waited for (by inode) and frees the codewords only then.
   */
  @Test
  void aRunTakenForDeadBeforeItDecodesNeverTouchesTheCopyTheNextRunWaitsFor() throws Exception {
    String path = "/stalled/f";
    long length = 3 * BLOCK + 77;
    Sealed f = seal(path, length);
    long archive = f.archive();
    org.apache.hadoop.hdfs.DistributedFileSystem fs2 =
        (org.apache.hadoop.hdfs.DistributedFileSystem) FileSystem.newInstance(conf);
    org.wideec.archive.hdfs.ManifestStore store2 =
        new org.wideec.archive.hdfs.ManifestStore(fs2, store.layout()).holder("second run");
    java.util.concurrent.CountDownLatch secondWaited = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.CountDownLatch firstDone = new java.util.concurrent.CountDownLatch(1);
    long[] secondCopy = {-1};
    java.util.concurrent.CompletableFuture<org.wideec.archive.hdfs.Unarchiver.Result> second =
        new java.util.concurrent.CompletableFuture<>();
    org.wideec.archive.hdfs.Unarchiver.Hook waitForFirst = step -> {
      if (step.equals("decoded")) {
        secondCopy[0] = fs2.getClient().getFileInfo(restoredCopy(archive).toString()).getFileId();
        secondWaited.countDown();
        try {
          firstDone.await();
        } catch (InterruptedException ie) {
          throw new java.io.InterruptedIOException("interrupted");
        }
      }
    };
    Thread secondRun = new Thread(() -> {
      try {
        second.complete(new org.wideec.archive.hdfs.Unarchiver(fs2, store2, waitForFirst).unarchive(new Path(path),
            (short) 2, org.wideec.archive.hdfs.Unarchiver.Progress.NONE));
      } catch (Throwable t) {
        second.completeExceptionally(t);
      }
    }, "second unarchive");
    org.wideec.archive.hdfs.Unarchiver.Hook stall = step -> {
      if (step.equals("locked")) {
        assertTrue(store2.releaseDeadHolder(archive, 60_000), "the first run's lease was recovered");
        secondRun.start();
        try {
          secondWaited.await();
        } catch (InterruptedException ie) {
          throw new java.io.InterruptedIOException("interrupted");
        }
      }
    };
    try {
      org.wideec.archive.hdfs.LostArchiveLockException lost = assertThrows(
          org.wideec.archive.hdfs.LostArchiveLockException.class,
          () -> new org.wideec.archive.hdfs.Unarchiver(fs, store, stall).unarchive(new Path(path), (short) 2,
              org.wideec.archive.hdfs.Unarchiver.Progress.NONE));
      assertTrue(lost.getMessage().contains("stopped before deleting the restored copy"), lost.getMessage());
      assertEquals(secondCopy[0], fs.getClient().getFileInfo(restoredCopy(archive).toString()).getFileId(),
          "the second run's copy is untouched");
    } finally {
      firstDone.countDown();
      secondRun.join(); // returns at once if the first run never started it
    }
    try {
      org.wideec.archive.hdfs.Unarchiver.Result r = second.get();
      assertTrue(r.archived());
      assertEquals(secondCopy[0], fs.getClient().getFileInfo(path).getFileId(), "the copy it waited for is in place");
      assertArrayEquals(f.data(), readAll(fs, path, (int) length), "the restored bytes, by a stock client");
      assertTrue(!fs.exists(store.layout().codewordRoot(archive)) && !fs.exists(new Path(f.manifest())));
    } finally {
      fs2.close();
    }
  }

  /**
   * A run stopped between the swap's renames left the path empty: the next run puts the restored file back in place
   * before it waits for its replicas again, so the file reads back throughout that wait.
   */
  @Test
  void aSwapStoppedBetweenItsRenamesPutsTheFileBackBeforeWaitingAgain() throws Exception {
    String path = "/between/f";
    long length = 3 * BLOCK + 77;
    Sealed f = seal(path, length);
    org.wideec.archive.hdfs.Unarchiver.Hook crash = step -> {
      if (step.equals("aside")) {
        throw new IOException("injected crash after " + step);
      }
    };
    assertThrows(IOException.class, () -> new org.wideec.archive.hdfs.Unarchiver(fs, store, crash)
        .unarchive(new Path(path), (short) 2, org.wideec.archive.hdfs.Unarchiver.Progress.NONE));
    org.junit.jupiter.api.Assertions.assertFalse(fs.exists(new Path(path)), "stopped between the renames");
    List<byte[]> readWhileWaiting = new ArrayList<>();
    org.wideec.archive.hdfs.Unarchiver.Progress reading = (done, total) -> {
      if (readWhileWaiting.isEmpty()) {
        try {
          readWhileWaiting.add(readAll(fs, path, (int) length));
        } catch (IOException e) {
          throw new java.io.UncheckedIOException(e);
        }
      }
    };
    org.wideec.archive.hdfs.Unarchiver.Result r = new org.wideec.archive.hdfs.Unarchiver(fs, store,
        org.wideec.archive.hdfs.Unarchiver.Hook.NONE).unarchive(new Path(path), (short) 2, reading);
    assertTrue(r.archived());
    assertEquals(1, readWhileWaiting.size());
    assertArrayEquals(f.data(), readWhileWaiting.get(0), "the restored bytes at the path while the run waited");
    assertArrayEquals(f.data(), readAll(fs, path, (int) length));
    assertTrue(!fs.exists(store.layout().codewordRoot(f.archive())) && !fs.exists(new Path(f.manifest())));
    assertTrue(fs.getXAttrs(new Path("/between")).isEmpty(), "no swap marker left");
  }

  /** A sealed file whose pointer names no manifest path is refused with an IOException naming the file and pointer. */
  @Test
  void aSealedFileWhosePointerNamesNoManifestIsRefusedNamingIt() throws Exception {
    String path = "/badpointer/f";
    Sealed f = seal(path, BLOCK + 3);
    long[] ids = f.stripes().stripes().stream().mapToLong(ArchivedStripe::stripeId).toArray();
    fs.setXAttr(new Path(path), org.wideec.archive.hdfs.ArchivalSource.POINTER_XATTR,
        new org.wideec.archive.ArchivePointer("/not/a-manifest", ids).toBytes());
    IOException e = assertThrows(IOException.class, () -> new org.wideec.archive.hdfs.Unarchiver(fs, store,
        org.wideec.archive.hdfs.Unarchiver.Hook.NONE).unarchive(new Path(path), (short) 2,
        org.wideec.archive.hdfs.Unarchiver.Progress.NONE));
    assertTrue(e.getMessage().contains(path + "'s trusted.wideec.archive pointer names no manifest")
        && e.getMessage().contains("/not/a-manifest"), e.getMessage());
    assertEquals(f.placeholder(), fs.getClient().getFileInfo(path).getFileId(), "the placeholder stays");
  }

  /**
   * Another sealed file is renamed onto the path after the run located it, before it took the lock: the run refuses
   * and that file keeps its placeholder (it still reads back); neither archive is freed.
   */
  @Test
  void anotherSealedFileRenamedOntoThePathIsNotReplaced() throws Exception {
    String path = "/twosealed/f";
    String otherPath = "/twosealed/h";
    long length = 2 * BLOCK + 9;
    Sealed f = seal(path, length);
    Sealed h = seal(otherPath, length);
    org.wideec.archive.hdfs.Unarchiver.Hook swapFiles = step -> {
      if (step.equals("locked")) {
        assertTrue(fs.rename(new Path(path), new Path(path + ".moved")));
        assertTrue(fs.rename(new Path(otherPath), new Path(path)));
      }
    };
    IOException e = assertThrows(IOException.class, () -> new org.wideec.archive.hdfs.Unarchiver(fs, store, swapFiles)
        .unarchive(new Path(path), (short) 2, org.wideec.archive.hdfs.Unarchiver.Progress.NONE));
    assertTrue(e.getMessage().contains(path + " changed before it was restored"), e.getMessage());
    assertEquals(h.placeholder(), fs.getClient().getFileInfo(path).getFileId(), "the other placeholder stays");
    try (FileSystem ours = wideEc()) {
      assertArrayEquals(h.data(), readAll(ours, path, (int) length), "the other sealed file reads back");
      assertArrayEquals(f.data(), readAll(ours, path + ".moved", (int) length), "and so does the first");
    }
    assertTrue(fs.exists(new Path(f.manifest())) && fs.exists(new Path(h.manifest())));
  }

  /** RapidRAID's own (16, 11) on the 18-node, 6-rack bed: sealed, audited by the exact code, read, repaired. */
  @Test
  void rapidRaidSixteenElevenSealsAuditsReadsAndRepairs() throws Exception {
    String path = "/cold/wide";
    long length = 12 * BLOCK + 77; // a stripe of 11 pieces and one of 2
    byte[] data = write(path, length);
    ToolRun run = tool("archive", path, "--code", "rapidraid:n=16,k=11", "--json");
    assertEquals(0, run.exit(), run.out() + run.err());
    StripeManifest m = sealedManifest(path);
    assertEquals(List.of(11, 2), m.stripes().stream().map(x -> x.sources().size()).toList());
    for (ArchivedStripe s : m.stripes()) {
      java.util.Map<String, Integer> perRack = new java.util.HashMap<>();
      for (int u : s.storedUnits()) {
        perRack.merge(located(s, u).getLocations()[0].getNetworkLocation(), 1, Integer::sum);
      }
      assertTrue(perRack.values().stream().allMatch(c -> c <= 3), "at most 3 codewords per rack: " + perRack);
    }
    ToolRun fsck = tool("fsck", path, "--json");
    assertEquals(0, fsck.exit(), fsck.out());
    var st0 = fsck.json().get("archived").get("stripes").get(0);
    assertEquals(3, st0.get("remainingTolerance").asInt(), "any 3 losses decode, one 4-loss pattern does not");
    assertTrue(st0.get("remainingToleranceExact").asBoolean());
    try (FileSystem ours = wideEc()) {
      assertArrayEquals(data, readAll(ours, path, (int) length));
    }
    ArchivedStripe s0 = m.stripes().get(0);
    String dead = located(s0, 10).getLocations()[0].getXferAddr();
    kill(dead);
    Eventually.await("codeword 10 of (16, 11) rebuilt", Duration.ofSeconds(60),
        () -> located(s0, 10).getLocations().length > 0);
    assertEquals(s0.member(10).blockId(), located(s0, 10).getBlock().getBlockId());
    assertEquals(s0.member(10).crc32c(), ArchiveChecks.crc(readAll(fs, CodewordFiles.file(s0, 10).toString(),
        (int) s0.unitLength())));
    try (FileSystem ours = wideEc()) {
      assertArrayEquals(data, readAll(ours, path, (int) length));
    }
  }
}
