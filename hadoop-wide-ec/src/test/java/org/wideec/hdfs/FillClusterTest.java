package org.wideec.hdfs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.List;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.Path;
import org.junit.jupiter.api.Test;
import org.wideec.archive.ArchivePointer;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.StripeManifest;
import org.wideec.archive.StripeMember;
import org.wideec.archive.hdfs.ArchiveLayout;
import org.wideec.archive.hdfs.FillUpdate;
import org.wideec.archive.hdfs.ParityUpdater;

/**
 * {@code wide-ec archive --fill} on archived directories of the racked test bed (6 racks x 3 DataNodes, 64 KiB blocks,
 * azure-lrc:k=6,l=2,g=2): the directory's 9 blocks make a full stripe and a short one whose units 3-5 (and so the
 * local parity 9 of their group) are virtual. New files go into those slots by parity updates that equal an
 * independent encode, every stripe decodes from random k-subsets, every byte reads back, and a crash after any step
 * is rolled back or forward by a rerun.
 */
class FillClusterTest extends ArchiveTestBed {
  /** File sizes of an archived directory: 9 blocks, a full stripe of 6 (f0-f3) and one of 3 (f4-f6). */
  static final long[] SIZES = {BLOCK + 5000, BLOCK / 2, 3000, BLOCK * 2, BLOCK / 3, 60_000, 1000};

  private static final class Crash extends IOException {
    Crash(String step) {
      super("injected crash after " + step);
    }
  }

  @Override
  Configuration baseConf() {
    return org.wideec.minicluster.MiniClusters.withQuickDataNodeHeartbeats(new Configuration());
  }

  /** Writes the files of a directory (9 blocks: a full stripe and one of 3) and archives it, replication kept. */
  void archiveDir(String dir) throws Exception {
    for (int i = 0; i < SIZES.length; i++) {
      checks.write(dir + "/f" + i, SIZES[i]);
    }
    ToolRun r = tool("archive", dir, "--code", CODE, "--no-trim");
    assertEquals(0, r.exit(), r.out() + r.err());
  }

  /** {@code wide-ec archive ARGS} (or {@code wide-ec rm ARGS} when they start with rm) with no grace period. */
  ToolRun fill(String... args) throws Exception {
    Configuration c = new Configuration(conf);
    c.setLong(ParityUpdater.GRACE_KEY, 0);
    if (args[0].equals("rm")) {
      return ToolRun.of(c, args);
    }
    String[] all = new String[args.length + 1];
    all[0] = "archive";
    System.arraycopy(args, 0, all, 1, args.length);
    return ToolRun.of(c, all);
  }

  FillUpdate filler(ParityUpdater.Hook hook) {
    return new FillUpdate(fs, store, new ParityUpdater(fs, store, 0, 16 * 1024, new Random(7), hook));
  }

  void everythingChecksOut(StripeManifest m) throws Exception {
    new UpdatedStripeChecks(fs, checks).everythingChecksOut(m);
  }

  /** The file's data units, its pointer naming the manifest, and each block on its slot's planned node. */
  void archivedIntoItsSlots(String dir, String file, List<String> units) throws Exception {
    StripeManifest m = manifestOf(dir);
    long inode = store.inodeOf(new Path(file));
    assertEquals(units, UpdatedStripeChecks.unitsOf(m, inode), file);
    assertEquals(new ArchivePointer(store.layout().manifest(store.inodeOf(new Path(dir))).toUri().getPath(),
        m.stripesOf(inode)), store.pointer(new Path(file)), file);
    for (ArchivedStripe s : m.stripes()) {
      for (StripeMember u : s.members()) {
        if (!u.padding() && u.inodeId() == inode) {
          List<String> at = java.util.Arrays.stream(located(u).getLocations()).map(d -> d.getXferAddr()).toList();
          assertTrue(at.contains(u.plannedNode()), file + " block " + u.blockId() + " on " + at + ", planned "
              + u.plannedNode());
        }
      }
    }
  }

  @Test
  void oneNewFileIsArchivedIntoTheShortStripesFirstSlotAndItsGroupsLocalParityComesOn() throws Exception {
    archiveDir("/one");
    StripeManifest before = manifestOf("/one");
    assertTrue(before.stripe(1).member(3).padding() && before.stripe(1).member(9).padding());
    checks.write("/one/g0", BLOCK / 2 + 123);

    ToolRun r = fill("--fill", "/one", "--json", "--no-trim");
    assertEquals(0, r.exit(), r.out() + r.err());
    var j = r.json();
    assertEquals("[\"/one/g0\"]", j.get("filesFilled").toString(), r.out());
    assertEquals(0, j.get("left").size(), r.out());
    assertEquals(1, j.get("manifestVersion").asInt());
    assertEquals(1, j.get("stripesUpdated").asInt());
    assertEquals(3, j.get("parityBlocksWritten").asInt(), "the two globals and local parity 9, which comes on");

    StripeManifest after = manifestOf("/one");
    assertEquals(1, after.version());
    assertEquals(before.stripe(0), after.stripe(0), "the full stripe is untouched");
    assertFalse(after.stripe(1).member(9).padding());
    archivedIntoItsSlots("/one", "/one/g0", List.of("1:3"));
    assertEquals(3, fs.getFileStatus(new Path("/one/g0")).getReplication(), "--no-trim keeps every replica");
    everythingChecksOut(after);
  }

  @Test
  void severalNewFilesFillTheOpenSlotsInPathOrderAndOneThatDoesNotFitIsLeftAndNamed() throws Exception {
    archiveDir("/many");
    checks.write("/many/g0", BLOCK + 10); // slots 3 and 4
    checks.write("/many/g1", 1000); // slot 5
    checks.write("/many/sub/g2", 2 * BLOCK); // no slot left
    ToolRun r = fill("--fill", "/many", "--json", "--no-trim");
    assertEquals(0, r.exit(), r.out() + r.err());
    var j = r.json();
    assertEquals("[\"/many/g0\",\"/many/g1\"]", j.get("filesFilled").toString(), r.out());
    assertEquals("/many/sub/g2", j.get("left").get(0).get("path").asText(), r.out());
    assertEquals("the stripes' open slots are taken (2 blocks needed)", j.get("left").get(0).get("reason").asText());
    assertEquals(1, j.get("manifestVersion").asInt(), "one commit for the batch");

    archivedIntoItsSlots("/many", "/many/g0", List.of("1:3", "1:4"));
    archivedIntoItsSlots("/many", "/many/g1", List.of("1:5"));
    assertNull(store.pointer(new Path("/many/sub/g2")), "left as it was");
    everythingChecksOut(manifestOf("/many"));

    ToolRun text = fill("--fill", "/many", "--no-trim");
    assertEquals(0, text.exit(), text.out() + text.err());
    assertTrue(text.out().contains("0 files archived into open slots"), text.out());
    assertTrue(text.out().contains("left for a normal wide-ec archive: /many/sub/g2: the stripes' open slots are"
        + " taken (2 blocks needed)"), text.out());
  }

  @Test
  void aSlotARemovalLeftTakesANewFile() throws Exception {
    archiveDir("/reuse");
    ToolRun rm = fill("rm", "/reuse/f4", "--json"); // f4 is stripe 1's unit 0
    assertEquals(0, rm.exit(), rm.out() + rm.err());
    checks.removed("/reuse/f4");
    checks.write("/reuse/g0", 2000);
    ToolRun r = fill("--fill", "/reuse", "--json", "--no-trim");
    assertEquals(0, r.exit(), r.out() + r.err());
    assertEquals(2, r.json().get("manifestVersion").asInt(), r.out());
    archivedIntoItsSlots("/reuse", "/reuse/g0", List.of("1:0"));
    everythingChecksOut(manifestOf("/reuse"));
  }

  @Test
  void aFillIsRefusedWhileARemovalIsPendingAndGoesOnceItIsFinished() throws Exception {
    archiveDir("/pending");
    long f1 = store.inodeOf(new Path("/pending/f1")); // stripe 0's unit 2
    ParityUpdater.Hook crash = s -> {
      if (s.equals("aside")) {
        throw new Crash(s);
      }
    };
    assertThrows(Crash.class, () -> new ParityUpdater(fs, store, 0, 16 * 1024, new Random(7), crash)
        .remove(List.of(new Path("/pending/f1"))));
    checks.removed("/pending/f1");
    checks.write("/pending/g0", 3000);
    ToolRun r = fill("--fill", "/pending", "--no-trim");
    assertEquals(3, r.exit(), r.out() + r.err());
    assertTrue(r.err().contains("fill of /pending (manifest "), r.err());
    assertTrue(r.err().contains(" refused: removals or replacements of inodes [" + f1 + "] are pending; run wide-ec"
        + " rm --finish, then the fill"), r.err());
    assertEquals(0, manifestOf("/pending").version(), "nothing was updated");

    ToolRun finish = fill("rm", "--finish", "/pending");
    assertEquals(0, finish.exit(), finish.out() + finish.err());
    ToolRun again = fill("--fill", "/pending", "--json", "--no-trim");
    assertEquals(0, again.exit(), again.out() + again.err());
    assertEquals(2, again.json().get("manifestVersion").asInt(), again.out());
    archivedIntoItsSlots("/pending", "/pending/g0", List.of("0:2")); // the slot the removal left comes first
    everythingChecksOut(manifestOf("/pending"));
  }

  @Test
  void aCrashAfterEveryStepIsRolledBackBeforeTheCommitAndForwardAfterItByARerun() throws Exception {
    List<String> steps = List.of("locked", "planned", "parity-written", "verified", "committed", "freed");
    for (String step : steps) {
      String dir = "/crash-" + step;
      archiveDir(dir);
      long archive = store.inodeOf(new Path(dir));
      StripeManifest before = manifestOf(dir);
      checks.write(dir + "/g0", BLOCK + 99);
      ParityUpdater.Hook crash = s -> {
        if (s.equals(step)) {
          throw new Crash(s);
        }
      };
      Crash c = assertThrows(Crash.class, () -> filler(crash).fill(new Path(dir), false), step);
      assertEquals("injected crash after " + step, c.getMessage());
      boolean committed = steps.indexOf(step) >= steps.indexOf("committed");
      assertEquals(committed ? 1 : 0, store.find(archive).version(), step);
      if (!committed) {
        assertEquals(before, store.find(archive), step + ": the old manifest stays");
      }
      assertNull(store.pointer(new Path(dir + "/g0")), step + ": no pointer before the run ends");
      checks.everyByteReadsBack();

      boolean wroteParity = steps.indexOf(step) >= steps.indexOf("parity-written") && !committed;
      if (step.equals("verified")) { // the operator's cron job gets there first: it rolls the fill back
        ToolRun finish = fill("rm", "--finish", dir, "--json");
        assertEquals(0, finish.exit(), finish.out() + finish.err());
        assertEquals(1, finish.json().get("archives").get(0).get("rolledBack").asInt(), finish.out());
        assertEquals(0, store.find(archive).version());
        wroteParity = false;
      }
      FillUpdate.Result r = filler(ParityUpdater.Hook.NONE).fill(new Path(dir), false);
      assertEquals(wroteParity ? 1 : 0, r.update().rolledBack(), step + ": the one updated stripe's version directory");
      assertEquals(committed ? List.of() : List.of(dir + "/g0"), r.filled(), step);
      StripeManifest after = store.find(archive);
      assertEquals(1, after.version(), step);
      archivedIntoItsSlots(dir, dir + "/g0", List.of("1:3", "1:4"));
      everythingChecksOut(after);
      for (ArchivedStripe s : after.stripes()) {
        assertFalse(fs.exists(ArchiveLayout.parityVersionDir(s.parityFilePath(), 2)), step + ": nothing of version 2");
      }
    }
  }

  @Test
  void dryRunPrintsTheStripeUpdateAndThePlanAndChangesNothing() throws Exception {
    archiveDir("/dry");
    checks.write("/dry/g0", 5000);
    String namespace = ArchiveChecks.namespace(fs);
    ToolRun r = fill("--fill", "/dry", "--dry-run", "--json", "--scheme", "baseline");
    assertEquals(0, r.exit(), r.out() + r.err());
    assertEquals(namespace, ArchiveChecks.namespace(fs), "nothing changed");
    var stripe = r.json().get("archives").get(0).get("stripes").get(0);
    assertEquals(1, stripe.get("stripe").asInt(), r.out());
    assertEquals("[3]", stripe.get("changedUnits").toString(), r.out());
    assertEquals("[]", stripe.get("removedUnits").toString(), r.out());
    assertEquals("[6,7,9]", stripe.get("rewrittenParities").toString(), r.out());
    assertEquals("baseline", stripe.get("plan").get("scheme").asText());
    assertEquals("[\"/dry/g0\"]", r.json().get("filesFilled").toString());
    ToolRun text = fill("--fill", "/dry", "--dry-run");
    assertEquals(0, text.exit(), text.err());
    assertTrue(text.out().contains("/dry stripe 1 (" + CODE + "): data units [3] change ([] leave), parity units"
        + " [6, 7, 9] rewritten"), text.out());
    assertTrue(text.out().contains("  filled: /dry/g0"), text.out());
    assertTrue(text.out().contains("nothing was changed (--dry-run)"), text.out());
    assertEquals(namespace, ArchiveChecks.namespace(fs), "nothing changed");
  }

  @Test
  void aFileOpenForWriteAnotherBlockSizeASingleFilesASealedAndNoArchiveAreRefused() throws Exception {
    archiveDir("/refused");
    StripeManifest before = manifestOf("/refused");
    try (FSDataOutputStream open = fs.create(new Path("/refused/open"))) {
      open.write(new byte[100]);
      open.hflush();
      ToolRun r = fill("--fill", "/refused", "--no-trim");
      assertEquals(3, r.exit(), r.out() + r.err());
      assertTrue(r.err().contains("fill of /refused refused: /refused/open is still open for writing"), r.err());
    }
    fs.delete(new Path("/refused/open"), false);

    try (FSDataOutputStream big = fs.create(new Path("/refused/big"), true, 4096, (short) 3, 2 * BLOCK)) {
      big.write(new byte[1000]);
    }
    ToolRun r = fill("--fill", "/refused", "--no-trim");
    assertEquals(3, r.exit(), r.out() + r.err());
    assertTrue(r.err().contains("fill of /refused refused: /refused/big has block size " + 2 * BLOCK + ", the"
        + " stripes of /refused " + BLOCK), r.err());
    fs.delete(new Path("/refused/big"), false);
    assertEquals(before, manifestOf("/refused"), "nothing was updated");

    checks.write("/single", BLOCK / 3);
    ToolRun single = tool("archive", "/single", "--code", CODE, "--no-trim");
    assertEquals(0, single.exit(), single.out() + single.err());
    ToolRun f = fill("--fill", "/single");
    assertEquals(3, f.exit(), f.out() + f.err());
    assertTrue(f.err().contains("fill of /single refused: it was archived as a single file"), f.err());

    fs.mkdirs(new Path("/plain-dir"));
    ToolRun none = fill("--fill", "/plain-dir");
    assertEquals(3, none.exit(), none.out() + none.err());
    assertTrue(none.err().contains("fill of /plain-dir refused: it is not archived"), none.err());

    fs.mkdirs(new Path("/cold"));
    try (FSDataOutputStream out = fs.create(new Path("/cold/v"))) {
      out.write(new byte[(int) (3 * BLOCK + 5)]);
    }
    ToolRun sealed = tool("archive", "/cold/v", "--code", "rapidraid:n=8,k=4");
    assertEquals(0, sealed.exit(), sealed.out() + sealed.err());
    ToolRun s = fill("--fill", "/cold/v");
    assertEquals(3, s.exit(), s.out() + s.err());
    assertTrue(s.err().contains("fill of /cold/v refused: it is sealed (its stripes hold non-systematic codewords,"
        + " RapidRAID)"), s.err());
    checks.everyByteReadsBack();
  }
}
