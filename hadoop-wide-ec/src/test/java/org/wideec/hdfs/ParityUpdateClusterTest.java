package org.wideec.hdfs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.security.PrivilegedExceptionAction;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.security.UserGroupInformation;
import org.junit.jupiter.api.Test;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.StripeManifest;
import org.wideec.archive.StripeState;
import org.wideec.archive.hdfs.ArchiveLayout;
import org.wideec.archive.hdfs.ParityUpdater;

/**
 * {@code wide-ec rm} on archived directories of the racked test bed (6 racks x 3 DataNodes, 64 KiB blocks,
 * azure-lrc:k=6,l=2,g=2): removed files leave the namespace at once, their stripes' parity is rewritten as new blocks
 * that equal an independent encode of the remaining data, every stripe decodes from random k-subsets, every remaining
 * byte reads back, and a crash after any step of the update is rolled back or forward by a rerun.
 */
class ParityUpdateClusterTest extends ArchiveTestBed {
  /** File sizes of an archived directory: 9 blocks, so a full stripe of 6 and one of 3 (short blocks included). */
  static final long[] SIZES = {BLOCK + 5000, BLOCK / 2, 3000, BLOCK * 2, BLOCK / 3, 70_000, 1000};

  private static final class Crash extends IOException {
    Crash(String step) {
      super("injected crash after " + step);
    }
  }

  @Override
  Configuration baseConf() {
    return org.wideec.minicluster.MiniClusters.withQuickDataNodeHeartbeats(new Configuration());
  }

  /** Writes the files of a directory and archives it (committed, replication kept); returns its file paths. */
  List<String> archiveDir(String dir) throws Exception {
    List<String> files = new ArrayList<>();
    for (int i = 0; i < SIZES.length; i++) {
      files.add(dir + "/f" + i);
      checks.write(dir + "/f" + i, SIZES[i]);
    }
    ToolRun r = tool("archive", dir, "--code", CODE, "--no-trim");
    assertEquals(0, r.exit(), r.out() + r.err());
    return files;
  }

  /**
   * Who computes the new parity here: this bed runs no wide-ec DataNode plugin and no block tokens, so the updater
   * falls back to its own process (wide-ec.update.executor's default is datanode).
   */
  String executor() {
    return "client";
  }

  ParityUpdater updater(long graceMs, ParityUpdater.Hook hook) {
    return new ParityUpdater(fs, store, graceMs, 16 * 1024, new Random(7), hook);
  }

  /** What the tool's configuration frees at once. */
  ToolRun toolNoGrace(String... args) throws Exception {
    Configuration c = new Configuration(conf);
    c.setLong(ParityUpdater.GRACE_KEY, 0);
    return ToolRun.of(c, args);
  }

  /** The checks every update ends with: each stripe against an independent encode, decodes, and every byte. */
  void everythingChecksOut(StripeManifest m) throws Exception {
    new UpdatedStripeChecks(fs, checks).everythingChecksOut(m);
  }

  void stripeMatchesIndependentEncode(ArchivedStripe s) throws Exception {
    new UpdatedStripeChecks(fs, checks).stripeMatchesIndependentEncode(s);
  }

  void decodesFromARandomKSubset(ArchivedStripe s, Random rnd) throws Exception {
    new UpdatedStripeChecks(fs, checks).decodesFromARandomKSubset(s, rnd);
  }

  static List<String> unitsOf(StripeManifest m, long inode) {
    return UpdatedStripeChecks.unitsOf(m, inode);
  }

  @Test
  void removingOneFileZeroesItInItsStripesAndEveryOtherByteStays() throws Exception {
    List<String> files = archiveDir("/one");
    long archive = store.inodeOf(new Path("/one"));
    StripeManifest before = manifestOf("/one");
    long inode = store.inodeOf(new Path(files.get(0)));
    assertEquals(List.of("0:0", "0:1"), unitsOf(before, inode));

    ToolRun r = tool("rm", files.get(0), "--json");
    assertEquals(0, r.exit(), r.out() + r.err());
    checks.removed(files.get(0));
    assertFalse(fs.exists(new Path(files.get(0))), "the file left the namespace");
    var j = r.json().get("archives").get(0);
    assertEquals(executor(), r.json().get("executor").asText(), r.out());
    assertEquals(1, j.get("manifestVersion").asInt(), r.out());
    assertEquals(1, j.get("filesRemoved").asInt());
    assertEquals(1, j.get("stripesUpdated").asInt());
    assertEquals(3, j.get("parityBlocksWritten").asInt(), "the two globals and the group's local parity");

    StripeManifest after = manifestOf("/one");
    assertEquals(1, after.version());
    assertEquals(List.of(), unitsOf(after, inode));
    ArchivedStripe s0 = after.stripe(0);
    assertTrue(s0.member(0).padding() && s0.member(1).padding());
    assertEquals(StripeState.COMMITTED, s0.state());
    assertEquals(before.stripe(1), after.stripe(1), "the other stripe is untouched");
    byte[] raw = fs.open(store.layout().manifest(archive)).readAllBytes();
    assertEquals(StripeManifest.UPDATED_FORMAT_VERSION, ByteBuffer.wrap(raw, 4, 2).getShort());
    everythingChecksOut(after);

    // The grace period keeps what version 0 used: the set-aside file and the superseded parity, so a read or repair
    // that started on version 0 (and reaches its units by inode) still decodes every unit of it.
    assertTrue(fs.exists(store.layout().asideFile(archive, inode)));
    stripeMatchesIndependentEncode(before.stripe(0));
    for (long seed = 0; seed < 4; seed++) {
      decodesFromARandomKSubset(before.stripe(0), new Random(seed));
    }
    assertEquals(4, j.get("keptForGrace").asInt(), "3 superseded parity files and the set-aside file: " + r.out());
    ToolRun finish = toolNoGrace("rm", "--finish", "--json");
    assertEquals(0, finish.exit(), finish.out() + finish.err());
    var finished = java.util.stream.StreamSupport.stream(finish.json().get("archives").spliterator(), false)
        .filter(a -> a.get("archive").asText().equals("/one")).findFirst().orElseThrow();
    assertEquals(4, finished.get("freed").asInt(), finish.out());
    assertEquals(0, finished.get("keptForGrace").asInt(), finish.out());
    assertFalse(fs.exists(store.layout().asideFile(archive, inode)));
    assertTrue(fs.exists(ArchiveLayout.parityUnit(s0.parityFilePath(), 9)), "the other group's local parity stays");
    for (int u = 6; u < 9; u++) {
      assertFalse(fs.exists(ArchiveLayout.parityUnit(s0.parityFilePath(), u)), "old parity " + u + " freed");
    }
    everythingChecksOut(manifestOf("/one"));

    // An updated archive goes back like any other: its version 1 manifest, parity and aside directory are freed.
    ToolRun back = tool("unarchive", "/one");
    assertEquals(0, back.exit(), back.out() + back.err());
    assertFalse(fs.exists(store.layout().manifest(archive)));
    assertFalse(fs.exists(store.layout().parityRoot(archive)));
    assertFalse(fs.exists(store.layout().asideRoot(archive)));
    checks.everyByteReadsBack();
  }

  @Test
  void severalFilesOfAStripeAreOneUpdateAndAStripeWithNoDataLeftIsDropped() throws Exception {
    List<String> files = archiveDir("/many");
    // f4..f6 are the whole of stripe 1 (units 0-2) along with the end of f3; f1 and f2 are in stripe 0.
    StripeManifest before = manifestOf("/many");
    List<String> removed = List.of(files.get(1), files.get(2), files.get(3), files.get(4), files.get(5),
        files.get(6));
    List<String> args = new ArrayList<>(List.of("rm"));
    args.addAll(removed);
    args.add("--json");
    ToolRun r = toolNoGrace(args.toArray(new String[0]));
    assertEquals(0, r.exit(), r.out() + r.err());
    removed.forEach(checks::removed);
    var j = r.json().get("archives").get(0);
    assertEquals(1, j.get("manifestVersion").asInt(), "one commit for the batch: " + r.out());
    assertEquals(6, j.get("filesRemoved").asInt());
    StripeManifest after = manifestOf("/many");
    assertEquals(1, j.get("stripesDropped").asInt(), "stripe 1 held only removed files: " + r.out());
    assertEquals(before.stripes().size() - 1, after.stripes().size());
    assertEquals(null, after.stripe(1), "the dropped stripe left the manifest");
    assertFalse(fs.exists(new Path(before.stripe(1).parityFilePath())), "its parity was freed with no grace");
    for (String f : removed) {
      assertFalse(fs.exists(new Path(f)), f);
    }
    everythingChecksOut(after);
    assertEquals(0, fs.listStatus(store.layout().asideRoot(store.inodeOf(new Path("/many")))).length,
        "with no grace the set-aside files are freed by the run itself");
  }

  @Test
  void aCrashAfterEveryStepIsRolledBackBeforeTheCommitAndForwardAfterIt() throws Exception {
    List<String> steps = List.of("locked", "aside", "planned", "parity-written", "verified", "committed", "freed");
    for (String step : steps) {
      String dir = "/crash-" + step;
      List<String> files = archiveDir(dir);
      long archive = store.inodeOf(new Path(dir));
      StripeManifest before = manifestOf(dir);
      long inode = store.inodeOf(new Path(files.get(3)));
      boolean committed = crashesAfter(step, steps, archive, before,
          crash -> updater(0, crash).remove(List.of(new Path(files.get(3)))));
      assertEquals(step.equals("locked"), fs.exists(new Path(files.get(3))), step);

      ParityUpdater.Result r = step.equals("locked") ? updater(0, ParityUpdater.Hook.NONE)
          .remove(List.of(new Path(files.get(3)))).get(0) : updater(0, ParityUpdater.Hook.NONE).resume(archive);
      checks.removed(files.get(3));
      boolean wroteParity = steps.indexOf(step) >= steps.indexOf("parity-written") && !committed;
      assertEquals(wroteParity ? before.stripesOf(inode).length : 0, r.rolledBack(),
          step + ": one version directory per updated stripe");
      recoveredAsVersion1(step, archive, inode);
      assertEquals(0, fs.listStatus(store.layout().asideRoot(archive)).length, step + ": everything freed");
    }
  }

  /**
   * After a crashed run's rerun: version 1 is current without the inode's units, everything checks out, and nothing
   * of a version 2 was left.
   */
  void recoveredAsVersion1(String step, long archive, long inode) throws Exception {
    StripeManifest after = store.find(archive);
    assertEquals(1, after.version(), step);
    assertEquals(List.of(), unitsOf(after, inode), step);
    everythingChecksOut(after);
    for (ArchivedStripe s : after.stripes()) {
      assertFalse(fs.exists(ArchiveLayout.parityVersionDir(s.parityFilePath(), 2)), step + ": nothing of version 2");
    }
  }

  /** An update run given the crash tests' hook. */
  @FunctionalInterface
  interface CrashingRun {
    void run(ParityUpdater.Hook hook) throws Exception;
  }

  /**
   * Runs {@code run} with a crash injected after {@code step} of {@code steps}: it fails with the crash, and the
   * archive's manifest is still {@code before} when the crash came before the commit, version 1 after it. Whether it
   * came after the commit.
   */
  boolean crashesAfter(String step, List<String> steps, long archive, StripeManifest before, CrashingRun run)
      throws Exception {
    ParityUpdater.Hook crash = s -> {
      if (s.equals(step)) {
        throw new Crash(s);
      }
    };
    Crash c = assertThrows(Crash.class, () -> run.run(crash), step);
    assertEquals("injected crash after " + step, c.getMessage());
    boolean committed = steps.indexOf(step) >= steps.indexOf("committed");
    assertEquals(committed ? 1 : 0, store.find(archive).version(), step);
    if (!committed) {
      assertEquals(before, store.find(archive), step + ": the old manifest stays");
    }
    return committed;
  }

  /** A cron job's {@code rm --finish}: an archive it cannot finish now (its lock held) does not hold up the others. */
  @Test
  void rmFinishGoesOnPastAnArchiveItCannotFinishAndNamesIt() throws Exception {
    List<String> busy = archiveDir("/finish-busy");
    List<String> free = archiveDir("/finish-free");
    ParityUpdater.Hook crash = s -> {
      if (s.equals("aside")) {
        throw new Crash(s);
      }
    };
    for (String f : List.of(busy.get(2), free.get(2))) {
      assertThrows(Crash.class, () -> updater(0, crash).remove(List.of(new Path(f))));
      checks.removed(f);
    }
    long busyArchive = store.inodeOf(new Path("/finish-busy"));
    try (java.io.Closeable held = store.lock(busyArchive)) { // another run works on it now
      ToolRun r = toolNoGrace("rm", "--finish");
      assertNotEquals(0, r.exit(), r.out() + r.err());
      assertTrue(r.err().contains("archive inode " + busyArchive + ": another wide-ec archive run holds"), r.err());
      assertEquals(1, manifestOf("/finish-free").version(), "the other archive's removal was finished");
      assertEquals(0, manifestOf("/finish-busy").version(), "the held archive was left alone");
    }
    ToolRun again = toolNoGrace("rm", "--finish");
    assertEquals(0, again.exit(), again.out() + again.err());
    assertEquals(1, manifestOf("/finish-busy").version());
    everythingChecksOut(manifestOf("/finish-busy"));
    everythingChecksOut(manifestOf("/finish-free"));
  }

  @Test
  void aHalfWrittenNewParityFileIsRolledBack() throws Exception {
    List<String> files = archiveDir("/half");
    long archive = store.inodeOf(new Path("/half"));
    ArchivedStripe s0 = manifestOf("/half").stripe(0);
    FSDataOutputStream[] open = {null};
    ParityUpdater.Hook dying = s -> {
      if (s.equals("planned")) {
        open[0] = fs.create(ArchiveLayout.parityUnit(s0.parityFilePath(), 6, 1), (short) 1);
        open[0].write(new byte[1000]);
        open[0].hflush();
        throw new Crash("planned, with parity unit 6 half written");
      }
    };
    assertThrows(Crash.class, () -> updater(0, dying).remove(List.of(new Path(files.get(0)))));
    fs.recoverLease(ArchiveLayout.parityUnit(s0.parityFilePath(), 6, 1));
    checks.removed(files.get(0));
    rerunRollsBackOneVersionDirectory(archive);
  }

  /** A rerun after a crash before the commit: one uncommitted version directory deleted, version 1 committed. */
  void rerunRollsBackOneVersionDirectory(long archive) throws Exception {
    ParityUpdater.Result r = updater(0, ParityUpdater.Hook.NONE).resume(archive);
    assertEquals(1, r.rolledBack());
    assertEquals(1, r.version());
    everythingChecksOut(store.find(archive));
  }

  @Test
  void dryRunPrintsTheUpdateAndChangesNothing() throws Exception {
    List<String> files = archiveDir("/dry");
    String namespace = ArchiveChecks.namespace(fs);
    ToolRun r = tool("rm", files.get(0), files.get(2), "--dry-run", "--json", "--scheme", "baseline");
    assertEquals(0, r.exit(), r.out() + r.err());
    assertEquals(namespace, ArchiveChecks.namespace(fs), "nothing changed");
    var stripe = r.json().get("archives").get(0).get("stripes").get(0);
    assertEquals("baseline", r.json().get("scheme").asText());
    assertEquals("[0,1,3]", stripe.get("removedUnits").toString(), r.out());
    assertEquals("[6,7,8,9]", stripe.get("rewrittenParities").toString(), r.out());
    // Each scheme's delta plan is priced against re-encoding the stripe, and the cheaper one is printed: compare
    // what each run would send, in bytes (a re-encoding sends the kept units' own lengths, not whole chunks).
    long baseline = stripe.get("crossRackBytes").asLong();
    ToolRun rackcu = tool("rm", files.get(0), files.get(2), "--dry-run", "--json");
    var rackcuStripe = rackcu.json().get("archives").get(0).get("stripes").get(0);
    assertEquals("rackcu", rackcu.json().get("scheme").asText(), "the default scheme");
    assertTrue(rackcuStripe.get("crossRackBytes").asLong() <= baseline && baseline > 0,
        "rackcu " + rackcuStripe + " against baseline " + stripe);
    ToolRun text = tool("rm", files.get(0), "--dry-run");
    assertEquals(0, text.exit(), text.err());
    assertTrue(text.out().contains("/dry stripe 0 (" + CODE + "): data units [0, 1] change ([0, 1] leave), parity"
        + " units [6, 7, 8] rewritten"), text.out());
    assertTrue(text.out().contains("nothing was changed (--dry-run)"), text.out());
    assertEquals(namespace, ArchiveChecks.namespace(fs), "nothing changed");
  }

  /** A snapshot would keep the removed file's blocks after the update frees them, covered by no stripe: refused. */
  @Test
  void aFileASnapshotHoldsIsNotRemoved() throws Exception {
    List<String> files = archiveDir("/snap");
    fs.allowSnapshot(new Path("/snap"));
    fs.createSnapshot(new Path("/snap"), "s0");
    StripeManifest before = manifestOf("/snap");
    ToolRun r = tool("rm", files.get(0));
    assertEquals(3, r.exit(), r.out() + r.err());
    assertTrue(r.err().contains(files.get(0) + " is under /snap, which has 1 snapshot(s)"), r.err());
    assertTrue(fs.exists(new Path(files.get(0))), "nothing was set aside");
    assertEquals(before, manifestOf("/snap"));
    fs.deleteSnapshot(new Path("/snap"), "s0");
    fs.disallowSnapshot(new Path("/snap"));
    checks.everyByteReadsBack();
  }

  /**
   * A member appended to since archival is no longer what its stripe's parity encodes: removing another file of that
   * stripe is refused before anything is set aside, naming the stripe.
   */
  @Test
  void aStripeWithAChangedMemberTakesNoUpdate() throws Exception {
    List<String> files = archiveDir("/changed");
    StripeManifest before = manifestOf("/changed");
    try (org.apache.hadoop.fs.FSDataOutputStream out = fs.append(new Path(files.get(1)))) {
      out.write(new byte[100]);
    }
    ToolRun r = tool("rm", files.get(0));
    assertEquals(3, r.exit(), r.out() + r.err());
    assertTrue(r.err().contains("holds a member changed since it was archived"), r.err());
    assertTrue(fs.exists(new Path(files.get(0))), "nothing was set aside");
    assertEquals(before, manifestOf("/changed"));
    // Back to the bytes the class's checks expect (the stripe stays changed: its generation stamp moved).
    Path f1 = new Path(files.get(1));
    if (!fs.truncate(f1, SIZES[1])) {
      org.wideec.minicluster.Eventually.await("the truncate of " + f1 + " recovered", java.time.Duration.ofSeconds(60),
          () -> fs.isFileClosed(f1));
    }
    checks.everyByteReadsBack();
  }

  @Test
  void anotherUserCannotRemoveAFileTheyCannotWrite() throws Exception {
    List<String> files = archiveDir("/private");
    fs.setPermission(new Path("/private"), new FsPermission((short) 0755));
    StripeManifest before = manifestOf("/private");
    UserGroupInformation bob = UserGroupInformation.createUserForTesting("bob", new String[] {"other"});
    ToolRun r = bob.doAs((PrivilegedExceptionAction<ToolRun>) () -> tool("rm", files.get(0)));
    assertEquals(3, r.exit(), "the command ran and was refused: " + r.out() + r.err());
    assertTrue(r.err().contains("wide-ec rm: user bob may not remove " + files.get(0) + " (no write access to /private)"), r.err());
    assertTrue(fs.exists(new Path(files.get(0))));
    assertEquals(before, manifestOf("/private"));
    checks.everyByteReadsBack();
  }

  @Test
  void replacingAFileAppliesOldXorNewAndItsNewBytesReadBackProtected() throws Exception {
    List<String> files = archiveDir("/rep");
    String path = files.get(3); // two full blocks
    long archive = store.inodeOf(new Path("/rep"));
    long old = store.inodeOf(new Path(path));
    StripeManifest before = manifestOf("/rep");
    checks.write("/incoming/f3", BLOCK + 777); // two blocks, the second short
    long replacement = store.inodeOf(new Path("/incoming/f3"));
    ToolRun r = toolNoGrace("replace", path, "/incoming/f3", "--json");
    assertEquals(0, r.exit(), r.out() + r.err());
    checks.moved("/incoming/f3", path);
    assertFalse(fs.exists(new Path("/incoming/f3")));
    assertEquals(replacement, store.inodeOf(new Path(path)), "the new file was renamed in");
    StripeManifest after = manifestOf("/rep");
    assertEquals(1, after.version());
    assertEquals(List.of(), unitsOf(after, old));
    assertEquals(unitsOf(before, old), unitsOf(after, replacement), "the new blocks take the old units");
    assertEquals(new org.wideec.archive.ArchivePointer(store.layout().manifest(archive).toUri().getPath(),
        after.stripesOf(replacement)), store.pointer(new Path(path)));
    everythingChecksOut(after);
    assertFalse(fs.exists(store.layout().asideReplaced(archive, old, replacement)), "freed with no grace");
  }

  @Test
  void aReplaceCrashedAfterItsParityWasWrittenIsRolledBackAndRedone() throws Exception {
    List<String> files = archiveDir("/rep-crash");
    String path = files.get(0);
    long archive = store.inodeOf(new Path("/rep-crash"));
    checks.write("/incoming/f0", BLOCK / 2); // one block for two: the old second block leaves its stripe
    ParityUpdater.Hook crash = s -> {
      if (s.equals("parity-written")) {
        throw new Crash(s);
      }
    };
    assertThrows(Crash.class, () -> updater(0, crash).replace(new Path(path), new Path("/incoming/f0")));
    checks.moved("/incoming/f0", path);
    assertEquals(0, store.find(archive).version());
    checks.everyByteReadsBack(); // the new content is in place before its update commits
    rerunRollsBackOneVersionDirectory(archive);
  }

  @Test
  void aMemberDeletedByAStockRmIsTakenOutOfTheParityByAnUpdate() throws Exception {
    stockRmReconciled("/stock", archiveDir("/stock"));
  }

  /**
   * A stock {@code hdfs dfs -rm} of the archived directory's second file (the block is gone, the stripe still counts
   * it), reconciled by {@code rm --finish DIR} with this class's executor: one file removed from each of its stripes,
   * version 1 committed, and everything checks out. The run.
   */
  ToolRun stockRmReconciled(String dir, List<String> files) throws Exception {
    long archive = store.inodeOf(new Path(dir));
    long inode = store.inodeOf(new Path(files.get(1)));
    StripeManifest before = manifestOf(dir);
    checks.delete(files.get(1));
    ToolRun r = toolNoGrace("rm", "--finish", dir, "--json");
    assertEquals(0, r.exit(), r.out() + r.err());
    var j = r.json().get("archives").get(0);
    assertEquals(executor(), j.get("executor").asText(), r.out());
    assertEquals(1, j.get("filesRemoved").asInt(), r.out());
    StripeManifest after = store.find(archive);
    assertEquals(1, after.version());
    assertEquals(List.of(), unitsOf(after, inode));
    assertEquals(before.stripesOf(inode).length, j.get("stripesUpdated").asInt(), r.out());
    everythingChecksOut(after);
    return r;
  }
}
