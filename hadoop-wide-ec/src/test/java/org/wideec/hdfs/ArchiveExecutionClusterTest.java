package org.wideec.hdfs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.Path;
import org.junit.jupiter.api.Test;
import org.wideec.archive.ArchivePointer;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.PlacementKind;
import org.wideec.archive.StripeManifest;
import org.wideec.archive.StripeState;
import org.wideec.archive.hdfs.Archiver;
import org.wideec.archive.hdfs.ClientClassicEncoder;
import org.wideec.cli.WideEcTool;

/**
 * {@code wide-ec archive} executing on a racked cluster (6 racks x 3 DataNodes, 64 KiB blocks, the pinned
 * azure-lrc:k=6,l=2,g=2): stripes end COMMITTED with parity equal to an independent encode of the data read back
 * through HDFS, data unchanged and still at replication 3, pointers on every file; a rerun resumes (nothing to do);
 * another code is refused; an append between PARITY_WRITTEN and VERIFIED makes the stripe STALE; a corrupt manifest
 * is an error naming its file. Chunks of 16 KiB, so every unit spans several chunks and short blocks end mid-chunk.
 */
class ArchiveExecutionClusterTest extends ArchiveTestBed {
  @Test
  void aFileOfTwoStripesIsCommittedWithParityEqualToAnIndependentEncode() throws Exception {
    long length = 9 * BLOCK + 1000; // 10 blocks: a full stripe and one of 4 blocks, the last 1000 bytes long
    checks.write("/f/a", length);
    ToolRun r = tool("archive", "/f/a", "--code", CODE, "--no-trim", "--json");
    assertEquals(0, r.exit(), r.err());
    JsonNode j = r.json();
    assertEquals(2, j.get("stripes").asInt());
    assertEquals(2, j.get("stripesByState").get("committed").asInt());
    assertEquals(0, j.get("stripesByState").get("planned").asInt());
    assertFalse(j.get("resumed").asBoolean());
    assertEquals(length, j.get("bytesEncoded").asLong(), "every data byte read once, no padding read");
    // Stripe 0: 2 global + 2 local parities of 64 KiB. Stripe 1 (4 data units, 2 virtual): both globals and both
    // locals are stored (each local group of 3 holds a real block), 64 KiB each.
    assertEquals(8 * BLOCK, j.get("parityBytesWritten").asLong());
    assertEquals(length, j.get("logicalBytes").asLong());
    assertEquals((double) (length + 8 * BLOCK) / length, j.get("redundancyAfter").asDouble(), 1e-12);
    assertEquals(0, j.get("stale").size());
    assertEquals(0, j.get("parityOffPlan").size());

    StripeManifest m = manifestOf("/f/a");
    long inode = store.inodeOf(new Path("/f/a"));
    assertEquals(List.of(StripeState.COMMITTED, StripeState.COMMITTED), ArchiveChecks.states(m));
    assertEquals("/.wideec/manifests/" + inode + ".wecm", j.get("manifest").asText());
    assertEquals("/.wideec/parity/" + inode + "/1", m.stripe(1).parityFilePath());
    assertEquals(store.inodeOf(new Path("/.wideec/parity/" + inode + "/1")), m.stripe(1).parityFileInode());
    checks.everyStripeMatchesIndependentEncode(m);
    checks.everyByteReadsBack();
    assertEquals(3, fs.getFileStatus(new Path("/f/a")).getReplication(), "nothing is trimmed with --no-trim");
    assertEquals(3, fs.getFileStatus(store.layout().manifest(inode)).getReplication());
    assertEquals(new ArchivePointer("/.wideec/manifests/" + inode + ".wecm", new long[] {0, 1}),
        store.pointer(new Path("/f/a")));
    assertEquals(0700, fs.getFileStatus(new Path("/.wideec")).getPermission().toShort(), "only superusers look inside");
    for (ArchivedStripe s : m.stripes()) {
      for (org.apache.hadoop.fs.FileStatus parity : fs.listStatus(new Path(s.parityFilePath()))) {
        assertEquals(0600, parity.getPermission().toShort(), parity.getPath().toString());
      }
    }
    assertTrue(java.util.Arrays.stream(fs.listStatus(store.layout().manifestDir())).noneMatch(st -> st.getPath().getName()
        .endsWith(".tmp") || st.getPath().getName().endsWith(".lock")), "temp files renamed, lock released");

    // Renamed, it is still found (inode ids), and a rerun has nothing to do.
    checks.rename("/f/a", "/f/a-renamed");
    ToolRun again = tool("archive", "/f/a-renamed", "--code", CODE, "--no-trim", "--json");
    assertEquals(0, again.exit(), again.err());
    assertTrue(again.json().get("resumed").asBoolean());
    assertEquals(0, again.json().get("bytesEncoded").asLong());
    assertEquals(0, again.json().get("parityBytesWritten").asLong());
    assertEquals(2, again.json().get("stripesByState").get("committed").asInt());

    ToolRun other = tool("archive", "/f/a-renamed", "--code", "rs:k=6,m=3");
    assertEquals(WideEcTool.EXIT_FAILED, other.exit());
    assertTrue(other.err().contains("/f/a-renamed is already being archived with " + CODE + " (manifest /.wideec/"
        + "manifests/" + inode + ".wecm, stripe 0); rerun with --code " + CODE + " to resume it"), other.err());
  }

  @Test
  void pathsFromAnHdfsListAreArchivedInTurnAndAFailedOneIsNamedWhileTheOthersGoOn() throws Exception {
    checks.write("/list/one", 2 * BLOCK);
    checks.write("/list/two", 7 * BLOCK + 10);
    try (FSDataOutputStream o = fs.create(new Path("/ops/paths.txt"))) {
      o.write("# cold data, oldest first\n/list/one\n\n/list/gone\n  /list/two  \n".getBytes(StandardCharsets.UTF_8));
    }
    ToolRun r = tool("archive", "--paths-from", "/ops/paths.txt", "--code", CODE, "--no-trim", "--json");
    assertEquals(WideEcTool.EXIT_FAILED, r.exit(), r.out() + r.err());
    assertTrue(r.err().contains("wide-ec archive: /list/gone: not found"), r.err());
    assertTrue(r.err().contains("1 of 3 paths failed (rerun to resume): /list/gone"), r.err());
    List<String> lines = r.out().lines().toList();
    assertEquals(2, lines.size(), "one JSON object a path archived: " + r.out());
    JsonNode one = new com.fasterxml.jackson.databind.ObjectMapper().readTree(lines.get(0));
    JsonNode two = new com.fasterxml.jackson.databind.ObjectMapper().readTree(lines.get(1));
    assertEquals("/list/one", one.get("path").asText());
    assertEquals("/list/two", two.get("path").asText());
    assertEquals(1, one.get("stripesByState").get("committed").asInt());
    assertEquals(2, two.get("stripesByState").get("committed").asInt());
    for (String p : List.of("/list/one", "/list/two")) {
      StripeManifest m = manifestOf(p);
      assertTrue(ArchiveChecks.states(m).stream().allMatch(x -> x == StripeState.COMMITTED), p + ": " + m);
      checks.everyStripeMatchesIndependentEncode(m);
    }
    checks.everyByteReadsBack();

    try (FSDataOutputStream o = fs.create(new Path("/ops/bad.txt"))) {
      o.write("/list/one\n# next\nlist/two\n".getBytes(StandardCharsets.UTF_8));
    }
    ToolRun bad = tool("archive", "--paths-from", "/ops/bad.txt", "--code", CODE, "--no-trim");
    assertEquals(WideEcTool.EXIT_FAILED, bad.exit());
    assertTrue(bad.err().contains("--paths-from /ops/bad.txt line 3: 'list/two' is not an absolute path"), bad.err());
    ToolRun missing = tool("archive", "--paths-from", "/ops/none.txt", "--code", CODE, "--no-trim");
    assertEquals(WideEcTool.EXIT_FAILED, missing.exit());
    assertTrue(missing.err().contains("--paths-from /ops/none.txt: no such file on hdfs://"), missing.err());
  }

  @Test
  void aDirectoryOfMixedSizesPacksItsFilesAndPointsEachToTheManifest() throws Exception {
    checks.write("/d/b", BLOCK / 2);
    checks.write("/d/c", 2 * BLOCK + 17);
    checks.write("/d/sub/e", 7 * BLOCK);
    ToolRun r = tool("archive", "/d", "--code", CODE, "--no-trim");
    assertEquals(0, r.exit(), r.err());
    long dir = store.inodeOf(new Path("/d"));
    assertTrue(r.out().contains("archive /d with " + CODE + " (classic encoder): 2 of 2 stripes committed; read "
        + String.format("%,d", BLOCK / 2 + 2 * BLOCK + 17 + 7 * BLOCK) + " data bytes"), r.out());
    assertTrue(r.out().contains("manifest: /.wideec/manifests/" + dir + ".wecm"), r.out());
    assertTrue(r.out().contains("stripes committed; data keeps its replication (--no-trim)"), r.out());

    StripeManifest m = manifestOf("/d");
    checks.everyStripeMatchesIndependentEncode(m);
    checks.everyByteReadsBack();
    String manifest = "/.wideec/manifests/" + dir + ".wecm";
    // Path order: b (1 block), c (3), e (7): stripe 0 = b c c c e e, stripe 1 = e x 5 and one virtual unit.
    assertEquals(new ArchivePointer(manifest, new long[] {0}), store.pointer(new Path("/d/b")));
    assertEquals(new ArchivePointer(manifest, new long[] {0}), store.pointer(new Path("/d/c")));
    assertEquals(new ArchivePointer(manifest, new long[] {0, 1}), store.pointer(new Path("/d/sub/e")));
    assertEquals(m, store.covering(new Path("/d/sub/e")), "a file finds its directory's manifest by its pointer");

    ToolRun status = tool("status", "/d/c", "--json");
    assertEquals(0, status.exit(), status.err());
    JsonNode s = status.json();
    long logical = BLOCK / 2 + 2 * BLOCK + 17 + 7 * BLOCK;
    long parity = m.stripes().stream().mapToLong(x -> 4 * x.unitLength()).sum(); // 4 stored parities per stripe
    assertEquals("/d", s.get("path").asText());
    assertEquals("directory", s.get("scope").asText());
    assertEquals(2, s.get("stripesByState").get("committed").asInt());
    assertEquals(logical, s.get("logicalBytes").asLong());
    assertEquals(parity, s.get("parityBytes").asLong());
    assertEquals(3 * logical + parity, s.get("storedBytesNow").asLong());
    assertEquals(logical + parity, s.get("storedBytesAfterTrim").asLong());
    assertEquals(2 * logical, s.get("bytesSavedOnceTrimmed").asLong());

    ToolRun text = tool("status", "/d");
    assertEquals(0, text.exit(), text.err());
    assertTrue(text.out().contains("/d (directory, " + CODE + "): 2 stripes"), text.out());
    assertTrue(text.out().contains("committed       2"), text.out());
  }

  @Test
  void anAppendBetweenParityWrittenAndVerifiedMakesTheStripeStaleAndDeletesItsParity() throws Exception {
    checks.write("/s/g", 2 * BLOCK + 100); // one short stripe; its last block is partial, so an append changes it
    Path g = new Path("/s/g");
    byte[] extra = "appended after the parity was written".getBytes(StandardCharsets.UTF_8);
    Archiver.Hook appendAfterParity = (manifest, stripe) -> {
      if (stripe != null && stripe.state() == StripeState.PARITY_WRITTEN) {
        checks.append("/s/g", extra);
      }
    };
    Archiver.Result r = new Archiver(fs, store, ClientClassicEncoder.from(fs), appendAfterParity,
        Archiver.Listener.NONE).archive(g, CODE, PlacementKind.CL);
    assertEquals(List.of("stripe 0 is STALE"), r.stale());
    StripeManifest m = manifestOf("/s/g");
    assertEquals(List.of(StripeState.STALE), ArchiveChecks.states(m));
    assertFalse(fs.exists(new Path(m.stripe(0).parityFilePath())), "stale parity is deleted");
    assertEquals(null, store.pointer(g), "a file with a stale stripe gets no pointer");
    checks.everyByteReadsBack();

    ToolRun rerun = tool("archive", "/s/g", "--code", CODE, "--no-trim");
    assertEquals(WideEcTool.EXIT_FOUND_PROBLEM, rerun.exit(), rerun.err());
    assertTrue(rerun.out().contains("stripe 0 is STALE (recorded earlier): its data changed after planning, its parity"
        + " was deleted"), rerun.out());
  }

  @Test
  void aCorruptManifestIsAnErrorNamingItsFile() throws Exception {
    checks.write("/c/h", BLOCK + 5);
    assertEquals(0, tool("archive", "/c/h", "--code", CODE, "--no-trim").exit());
    Path manifest = store.layout().manifest(store.inodeOf(new Path("/c/h")));
    byte[] bytes;
    try (FSDataInputStream in = fs.open(manifest)) {
      bytes = in.readAllBytes();
    }
    bytes[bytes.length / 2] ^= 0x10;
    try (FSDataOutputStream o = fs.create(manifest, true)) {
      o.write(bytes);
    }
    String expected = manifest.toUri().getPath() + ": CRC32C mismatch";
    for (String[] args : new String[][] {{"status", "/c/h"}, {"archive", "/c/h", "--code", CODE}}) {
      ToolRun r = tool(args);
      assertEquals(WideEcTool.EXIT_FAILED, r.exit(), args[0]);
      assertTrue(r.err().contains(expected), r.err());
      assertTrue(r.err().contains("the manifest is corrupt"), r.err());
    }
  }

  @Test
  void theChainEncoderNeedsBlockTokensAndTheClassicRerunFinishesTheStripe() throws Exception {
    checks.write("/x/i", BLOCK);
    ToolRun r = tool("archive", "/x/i", "--code", CODE, "--encoder", "chain");
    assertEquals(WideEcTool.EXIT_FAILED, r.exit());
    assertTrue(r.err().contains("stripe 0: block tokens are off (dfs.block.access.token.enable), so the archiver has"
        + " nothing to prove to a DataNode's slice port (wide-ec.transport.auth=hmac); the chain and rapidraid encoders"
        + " need block tokens, or use --encoder classic"), r.err());
    assertEquals(List.of(StripeState.ENCODING), ArchiveChecks.states(manifestOf("/x/i")), "nothing was created yet");
    String parityDir = manifestOf("/x/i").stripe(0).parityFilePath();
    assertFalse(!parityDir.isEmpty() && fs.exists(new Path(parityDir)), "no parity directory was created");
    ToolRun classic = tool("archive", "/x/i", "--code", CODE, "--encoder", "classic", "--no-trim", "--json");
    assertEquals(0, classic.exit(), classic.err());
    assertEquals(1, classic.json().get("rolledBack").asInt());
    checks.everyStripeMatchesIndependentEncode(manifestOf("/x/i"));
  }

  @Test
  void aStripeStateIsOnRecordBeforeItsEffect() throws Exception {
    checks.write("/o/j", 3 * BLOCK);
    Path j = new Path("/o/j");
    List<String> seen = new java.util.ArrayList<>();
    Archiver.Hook check = (manifest, stripe) -> {
      StripeManifest stored = manifestOf("/o/j");
      assertEquals(manifest, stored, "the hook sees what HDFS holds");
      if (stripe == null) {
        seen.add("planned");
        return;
      }
      ArchivedStripe s = stored.stripe(stripe.stripeId());
      seen.add(s.state().name());
      boolean parityExists = fs.exists(new Path(s.parityFilePath()));
      if (s.state() == StripeState.ENCODING) {
        assertFalse(parityExists, "ENCODING is recorded before any parity file exists");
      }
      if (s.state() == StripeState.COMMITTED) {
        assertEquals(null, store.pointer(j), "COMMITTED is recorded before the pointer is set");
      }
    };
    new Archiver(fs, store, ClientClassicEncoder.from(fs), check, Archiver.Listener.NONE).archive(j, CODE,
        PlacementKind.CL);
    assertEquals(List.of("planned", "ENCODING", "PARITY_WRITTEN", "VERIFIED", "COMMITTED"), seen);
    assertEquals(new ArchivePointer(store.layout().manifest(store.inodeOf(j)).toUri().getPath(), new long[] {0}),
        store.pointer(j));
  }

  @Test
  void withoutTheTrimmerOnTheNameNodeTrimmingIsRefusedAndEveryReplicaKept() throws Exception {
    // This cluster runs neither our replica placement policy nor the NameNode plugin: lowering replication would let
    // the stock policy keep a random replica, so the archiver refuses before lowering anything.
    checks.write("/t/k", 2 * BLOCK);
    ToolRun r = tool("archive", "/t/k", "--code", CODE);
    assertEquals(WideEcTool.EXIT_FOUND_PROBLEM, r.exit(), r.err());
    assertTrue(r.out().contains("not trimmed: trimming /t/k refused: the NameNode runs no wide-ec trimmer (no fresh"
        + " trusted.wideec.trimmer on /.wideec)"), r.out());
    assertTrue(r.out().contains("0 of 1 stripes trimmed"), r.out());
    assertEquals(List.of(StripeState.COMMITTED), ArchiveChecks.states(manifestOf("/t/k")));
    assertEquals(3, fs.getFileStatus(new Path("/t/k")).getReplication());
    for (org.apache.hadoop.hdfs.protocol.LocatedBlock b : fs.getClient().getLocatedBlocks("/t/k", 0, 2 * BLOCK)
        .getLocatedBlocks()) {
      assertEquals(3, b.getLocations().length, "every replica kept");
    }
    checks.everyByteReadsBack();
  }
}
