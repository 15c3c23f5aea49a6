package org.wideec.hdfs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.PrivilegedExceptionAction;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.HdfsFileStatus;
import org.apache.hadoop.security.UserGroupInformation;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.SourcePiece;
import org.wideec.archive.StripeManifest;
import org.wideec.archive.StripeState;
import org.wideec.archive.hdfs.Archiver;
import org.wideec.archive.hdfs.ArchiveLayout;
import org.wideec.archive.hdfs.CodewordFiles;
import org.wideec.archive.hdfs.SealedArchiver;
import org.wideec.archive.hdfs.SealedFiles;
import org.wideec.client.WideEcFileSystem;
import org.wideec.code.LinearCode;
import org.wideec.coder.ErasureCoder;

/**
 * Sealed archives on a racked MiniDFSCluster (6 racks x 3 DataNodes, 64 KiB blocks): a file archived with a
 * RapidRAID code is sealed; every byte reads back through WideEcFileSystem (with the reader's own permissions, and
 * through codeword losses the exact code tolerates); a stock client's open fails with a clear error and reads
 * nothing, with or without our coder factory; a crash at every recorded transition resumes to the same result.
 */
class SealedArchiveClusterTest extends ArchiveTestBed {
  static final String RR = "rapidraid:n=8,k=4";

  /** Writes seeded bytes at replication 3 and returns them. */
  byte[] write(String path, long bytes) throws Exception {
    byte[] data = new byte[(int) bytes];
    new Random(path.hashCode()).nextBytes(data);
    try (FSDataOutputStream o = fs.create(new Path(path), (short) 3)) {
      o.write(data);
    }
    // Every replica reported before a test snapshots the namespace (HDFS closes a file with one replica in).
    org.apache.hadoop.hdfs.DFSTestUtil.waitReplication(fs, new Path(path), (short) 3);
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
      assertEquals(-1, in.read(length, new byte[1], 0, 1), "nothing past the end");
    }
    return out;
  }

  StripeManifest sealedManifest(String path) throws IOException {
    return store.read(new Path(store.pointer(new Path(path)).manifestPath()));
  }

  @Test
  void aSealedFileReadsBackThroughOurFileSystemOnlyAndIsReadOnly() throws Exception {
    String path = "/cold/a";
    long length = 10 * BLOCK + 1000; // 11 blocks: stripes of 4, 4 and 3 pieces (the last short by one piece)
    byte[] data = write(path, length);
    fs.mkdirs(new Path("/cold"), new FsPermission((short) 0755));
    fs.setOwner(new Path(path), "alice", "staff");
    fs.setPermission(new Path(path), new FsPermission((short) 0640));

    ToolRun run = tool("archive", path, "--code", RR, "--json");
    assertEquals(0, run.exit(), run.out() + run.err());
    assertTrue(run.json().get("sealed").asBoolean(), run.out());
    assertEquals(length, run.json().get("length").asLong());

    HdfsFileStatus st = fs.getClient().getFileInfo(path);
    assertTrue(SealedFiles.isSealed(st), "the path is the placeholder");
    assertEquals(0, st.getLen());
    assertEquals("alice", st.getOwner());
    assertEquals((short) 0640, st.getPermission().toShort());

    StripeManifest m = sealedManifest(path);
    assertEquals(List.of(StripeState.TRIMMED, StripeState.TRIMMED, StripeState.TRIMMED), ArchiveChecks.states(m));
    assertEquals(List.of(4, 4, 3), m.stripes().stream().map(s -> s.sources().size()).toList());
    for (ArchivedStripe s : m.stripes()) {
      codewordsMatchAnIndependentEncode(s, data);
    }

    // A stock client (with our jar, whose coder refuses) fails at open and reads nothing.
    Exception stock = assertThrows(Exception.class, () -> readAll(fs, path, (int) length));
    assertTrue(String.valueOf(stock.getMessage()).contains("raw erasure decoder"), stock.toString());

    // A stock client without our coder factory finds no coder for the codec: the open fails too.
    Configuration noFactory = new Configuration(conf);
    noFactory.set("io.erasurecode.codec.wideec-sealed.rawcoders", "not_installed");
    noFactory.setBoolean("fs.hdfs.impl.disable.cache", true);
    try (FileSystem bare = FileSystem.newInstance(fs.getUri(), noFactory)) {
      assertThrows(Exception.class, () -> readAll(bare, path, (int) length));
    }

    try (FileSystem ours = wideEc()) {
      assertArrayEquals(data, readAll(ours, path, (int) length));
      assertEquals(length, ours.getFileStatus(new Path(path)).getLen());
      assertEquals(length, ours.listStatus(new Path("/cold"))[0].getLen());
      byte[] mid = new byte[5000];
      try (FSDataInputStream in = ours.open(new Path(path))) {
        in.seek(4 * BLOCK - 2000); // across the first stripe's end into the second
        in.readFully(mid);
      }
      assertArrayEquals(java.util.Arrays.copyOfRange(data, (int) (4 * BLOCK - 2000), (int) (4 * BLOCK + 3000)), mid);
      IOException refused = assertThrows(IOException.class, () -> ours.create(new Path(path), true).close());
      assertTrue(refused.getMessage().contains("sealed") && refused.getMessage().contains("read-only"),
          refused.getMessage());
      assertThrows(IOException.class, () -> ours.append(new Path(path)).close());
    }

    // The owner reads it with her own permissions (the NameNode decides its parts on its path); another user cannot.
    byte[] asAlice = UserGroupInformation.createUserForTesting("alice", new String[] {"staff"})
        .doAs((PrivilegedExceptionAction<byte[]>) () -> {
          try (FileSystem ours = wideEc()) {
            return readAll(ours, path, (int) length);
          }
        });
    assertArrayEquals(data, asAlice);
    UserGroupInformation bob = UserGroupInformation.createUserForTesting("bob", new String[] {"other"});
    Exception denied = assertThrows(Exception.class, () -> bob.doAs((PrivilegedExceptionAction<byte[]>) () -> {
      try (FileSystem ours = wideEc()) {
        return readAll(ours, path, (int) length);
      }
    }));
    assertTrue(String.valueOf(denied.getMessage()).contains("Permission denied"), denied.toString());

    // The parts are the archiver's, read-only: the owner can neither rewrite her index nor re-replicate or append to
    // her codewords (outside her quota, lowering tolerance).
    Path index = ArchiveLayout.from(conf).sealedIndex(st.getFileId());
    Path codeword = CodewordFiles.file(m.stripes().get(0), 0);
    assertFalse("alice".equals(fs.getFileStatus(codeword).getOwner()), fs.getFileStatus(codeword).toString());
    assertFalse("alice".equals(fs.getFileStatus(index).getOwner()), fs.getFileStatus(index).toString());
    UserGroupInformation alice = UserGroupInformation.createUserForTesting("alice", new String[] {"staff"});
    for (PrivilegedExceptionAction<Object> attempt : List.<PrivilegedExceptionAction<Object>>of(
        () -> { FileSystem a = FileSystem.newInstance(fs.getUri(), conf); a.create(index, true).close(); return a; },
        () -> FileSystem.newInstance(fs.getUri(), conf).setReplication(codeword, (short) 3),
        () -> { FileSystem a = FileSystem.newInstance(fs.getUri(), conf); a.append(codeword).close(); return a; })) {
      Exception e = assertThrows(Exception.class, () -> alice.doAs(attempt));
      assertTrue(String.valueOf(e.getMessage()).contains("Permission denied"), e.toString());
    }
    assertEquals(1, fs.getFileStatus(codeword).getReplication());
  }

  @Test
  void aFileBehindAPrivateAncestorIsSealedAndReadByItsOwnerOnly() throws Exception {
    fs.mkdirs(new Path("/home/alice"));
    fs.setOwner(new Path("/home/alice"), "alice", "staff");
    fs.setPermission(new Path("/home/alice"), new FsPermission((short) 0700));
    String path = "/home/alice/private";
    byte[] data = write(path, 2 * BLOCK);
    fs.setOwner(new Path(path), "alice", "staff");
    fs.setPermission(new Path(path), new FsPermission((short) 0644));
    ToolRun run = tool("archive", path, "--code", RR);
    assertEquals(0, run.exit(), run.out() + run.err());
    assertTrue(SealedFiles.isSealed(fs.getClient().getFileInfo(path)));
    byte[] asAlice = UserGroupInformation.createUserForTesting("alice", new String[] {"staff"})
        .doAs((PrivilegedExceptionAction<byte[]>) () -> {
          try (FileSystem ours = wideEc()) {
            return readAll(ours, path, data.length);
          }
        });
    assertArrayEquals(data, asAlice);
    // Bob may not pass her directory: the file's index and codewords are refused him too.
    Path index = ArchiveLayout.from(conf).sealedIndex(fs.getClient().getFileInfo(path).getFileId());
    UserGroupInformation bob = UserGroupInformation.createUserForTesting("bob", new String[] {"other"});
    for (Path part : List.of(index, CodewordFiles.file(sealedManifest(path).stripes().get(0), 0))) {
      Exception e = assertThrows(Exception.class, () -> bob.doAs((PrivilegedExceptionAction<byte[]>) () -> {
        try (FileSystem stock = FileSystem.newInstance(fs.getUri(), conf)) {
          return readAll(stock, part.toString(), 1);
        }
      }));
      assertTrue(String.valueOf(e.getMessage()).contains(org.wideec.archive.hdfs.SealedPart.REFUSAL), e.toString());
    }
  }

  @Override
  Configuration baseConf() {
    Configuration c = new Configuration();
    // The NameNode plugin decides who reads a sealed file's parts (on the file's path); without it only superusers.
    c.set("dfs.namenode.plugins", "org.wideec.placement.hdfs.WideEcNameNodePlugin");
    java.io.File keys = new java.io.File(System.getProperty("java.io.tmpdir"), "wideec-sealed-" + System.nanoTime()
        + ".jceks");
    keys.deleteOnExit();
    c.set("hadoop.security.key.provider.path", "jceks://file" + keys.getAbsolutePath());
    return c;
  }

  @Test
  void aFileInAnEncryptionZoneOrUnderASnapshotIsNotSealed() throws Exception {
    org.apache.hadoop.hdfs.DFSTestUtil.createKey("sealedkey", cluster, conf);
    fs.mkdirs(new Path("/ez"), new FsPermission((short) 0755));
    fs.createEncryptionZone(new Path("/ez"), "sealedkey");
    write("/ez/f", BLOCK);
    ToolRun ez = tool("archive", "/ez/f", "--code", RR);
    assertTrue(ez.exit() != 0 && ez.err().contains("encryption zone") && ez.err().contains("/ez"),
        ez.out() + ez.err());
    assertFalse(SealedFiles.isSealed(fs.getClient().getFileInfo("/ez/f")));
    assertEquals(null, manifestOf("/ez/f"), "nothing was planned");

    fs.mkdirs(new Path("/snap/sub"), new FsPermission((short) 0755));
    write("/snap/sub/f", BLOCK);
    fs.allowSnapshot(new Path("/snap"));
    fs.createSnapshot(new Path("/snap"), "s0");
    ToolRun snap = tool("archive", "/snap/sub/f", "--code", RR);
    assertTrue(snap.exit() != 0 && snap.err().contains("/snap has 1 snapshot"), snap.out() + snap.err());
    assertFalse(SealedFiles.isSealed(fs.getClient().getFileInfo("/snap/sub/f")));
    fs.deleteSnapshot(new Path("/snap"), "s0");
    ToolRun after = tool("archive", "/snap/sub/f", "--code", RR);
    assertEquals(0, after.exit(), after.out() + after.err());
    assertTrue(SealedFiles.isSealed(fs.getClient().getFileInfo("/snap/sub/f")));
  }

  @Test
  void readsThroughEveryLossTheExactCodeToleratesAndNamesTheStripeOtherwise() throws Exception {
    String path = "/cold/lossy";
    long length = 8 * BLOCK;
    byte[] data = write(path, length);
    assertEquals(0, tool("archive", path, "--code", RR).exit());
    StripeManifest m = sealedManifest(path);
    LinearCode code = m.stripes().get(0).code();
    // Stripe 0 loses four codewords that leave a decodable set, stripe 1 one DataNode (marked dead).
    int[] lost = decodableLoss(code, 4, new Random(7));
    for (int u : lost) {
      assertTrue(fs.delete(CodewordFiles.file(m.stripes().get(0), u), false));
    }
    String node = m.stripes().get(1).member(2).plannedNode();
    var dn = cluster.getDataNodes().stream().filter(d -> d.getDatanodeId().getXferAddr().equals(node)).findFirst()
        .orElseThrow();
    String uuid = dn.getDatanodeUuid();
    cluster.stopDataNode(dn.getDatanodeId().getXferAddr());
    cluster.setDataNodeDead(new org.apache.hadoop.hdfs.protocol.DatanodeID(dn.getDatanodeId()));
    try (FileSystem ours = wideEc()) {
      assertArrayEquals(data, readAll(ours, path, (int) length));
      // One more codeword of stripe 0 gone: five of eight lost is beyond any (8, 4) code.
      int more = java.util.stream.IntStream.range(0, 8).filter(u -> java.util.Arrays.stream(lost).noneMatch(l -> l == u))
          .findFirst().orElseThrow();
      assertTrue(fs.delete(CodewordFiles.file(m.stripes().get(0), more), false));
    }
    try (FileSystem ours = wideEc()) {
      IOException e = assertThrows(IOException.class, () -> readAll(ours, path, (int) length));
      assertTrue(e.getMessage().contains(path) && e.getMessage().contains("stripe 0 cannot be decoded"),
          e.getMessage());
    }
    assertFalse(uuid.isEmpty());
  }

  /**
   * The swap moves the original aside before the placeholder goes in, without overwriting: an append opened just
   * before is caught (the file moved back whole, the stripes STALE), a file that takes the path in between is never
   * deleted, and a run stopped between the two renames is finished by a rerun.
   */
  @Test
  void aCodewordLostBeforeTheSwapStopsTheSealAndTheFileStaysWhole() throws Exception {
    String path = "/cold/lost";
    long length = 4 * BLOCK;
    byte[] data = write(path, length);
    long inode = fs.getClient().getFileInfo(path).getFileId();
    // The codeword is lost once its stripe is committed, before the swap would make the codewords the only copy.
    Archiver.Hook loseOne = (manifest, stripe) -> {
      if (stripe != null && stripe.state() == StripeState.COMMITTED) {
        assertTrue(fs.delete(CodewordFiles.file(stripe, 3), false));
      }
    };
    IOException e = assertThrows(IOException.class, () -> new SealedArchiver(fs, store, SealedArchiver.classic(fs),
        loseOne, 3).archive(new Path(path), RR));
    assertTrue(e.getMessage().startsWith("sealing " + path + " stopped before its swap: codeword 3 of stripe 0 (blk_"),
        e.getMessage());
    assertTrue(e.getMessage().endsWith(") is gone; rerun after repairing it; the file is whole"), e.getMessage());
    HdfsFileStatus st = fs.getClient().getFileInfo(path);
    assertFalse(SealedFiles.isSealed(st), "the original keeps its path");
    assertEquals(inode, st.getFileId());
    assertArrayEquals(data, readAll(fs, path, (int) length));
    assertEquals(List.of(StripeState.COMMITTED), ArchiveChecks.states(store.find(inode)));
  }

  @Test
  void theSwapNeverDeletesAFileItDidNotArchiveAndResumesBetweenItsRenames() throws Exception {
    fs.mkdirs(new Path("/swap"), new FsPermission((short) 0755));
    // An append opened in the gap before the swap.
    String appended = "/swap/appended";
    byte[] data = write(appended, 2 * BLOCK);
    FSDataOutputStream[] open = new FSDataOutputStream[1];
    SealedArchiver.Result r = new SealedArchiver(fs, store, SealedArchiver.classic(fs), Archiver.Hook.NONE, 1)
        .withSwapHook(step -> {
          if (step.equals("moving")) {
            open[0] = fs.append(new Path(appended));
            open[0].write(new byte[] {42});
            open[0].hflush();
          }
        }).archive(new Path(appended), RR);
    open[0].close();
    assertFalse(r.sealed());
    assertFalse(r.stale().isEmpty(), r.toString());
    assertFalse(SealedFiles.isSealed(fs.getClient().getFileInfo(appended)));
    byte[] grown = java.util.Arrays.copyOf(data, data.length + 1);
    grown[data.length] = 42;
    assertArrayEquals(grown, readAll(fs, appended, grown.length), "the file and its append are kept");

    // A run stopped between the renames: the path is empty, the rerun finishes.
    String stopped = "/swap/stopped";
    byte[] bytes = write(stopped, 3 * BLOCK + 7);
    IOException crash = assertThrows(IOException.class, () -> new SealedArchiver(fs, store,
        SealedArchiver.classic(fs), Archiver.Hook.NONE, 1).withSwapHook(step -> {
          if (step.equals("moved")) {
            throw new IOException("injected crash " + step);
          }
        }).archive(new Path(stopped), RR));
    assertTrue(crash.getMessage().contains("injected crash"), crash.getMessage());
    assertFalse(fs.exists(new Path(stopped)), "the original is aside");
    ToolRun dryMid = tool("archive", stopped, "--code", RR, "--dry-run");
    assertEquals(org.wideec.cli.WideEcTool.EXIT_FAILED, dryMid.exit(), dryMid.out());
    assertTrue(dryMid.err().contains("a seal of " + stopped + " is mid-swap (its original waits in the archive's"
        + " private directory); rerun without --dry-run to finish it"), dryMid.err());
    ToolRun rerun = tool("archive", stopped, "--code", RR);
    assertEquals(0, rerun.exit(), rerun.out() + rerun.err());
    assertTrue(SealedFiles.isSealed(fs.getClient().getFileInfo(stopped)));
    try (FileSystem ours = wideEc()) {
      assertArrayEquals(bytes, readAll(ours, stopped, bytes.length));
    }
    long inode = ArchiveLayout.archiveInodeOf(store.pointer(new Path(stopped)).manifestPath());
    assertFalse(fs.exists(new Path(store.layout().codewordRoot(inode), "original")), "the original is freed");
    assertTrue(fs.getXAttrs(new Path("/swap")).isEmpty(), fs.getXAttrs(new Path("/swap")).toString());

    // A marker left by a crash after a swap ended (its archive gone, the file unsealed since) is stale: a dry run and a
    // seal of a file at that path go on as if it were not there, and the seal removes it.
    String fresh = "/swap/fresh";
    byte[] freshBytes = write(fresh, 2 * BLOCK + 3);
    fs.setXAttr(new Path("/swap"), "trusted.wideec.sealing.987654321", fresh.getBytes(StandardCharsets.UTF_8));
    ToolRun dryStale = tool("archive", fresh, "--code", RR, "--dry-run");
    assertEquals(0, dryStale.exit(), dryStale.out() + dryStale.err());
    assertEquals(0, tool("archive", fresh, "--code", RR).exit());
    assertTrue(SealedFiles.isSealed(fs.getClient().getFileInfo(fresh)));
    try (FileSystem ours = wideEc()) {
      assertArrayEquals(freshBytes, readAll(ours, fresh, freshBytes.length));
    }
    assertTrue(fs.getXAttrs(new Path("/swap")).isEmpty(), fs.getXAttrs(new Path("/swap")).toString());

    // A file that takes the path between the renames is kept, the original stays whole aside.
    String taken = "/swap/taken";
    byte[] mine = write(taken, 2 * BLOCK);
    IOException refused = assertThrows(IOException.class, () -> new SealedArchiver(fs, store,
        SealedArchiver.classic(fs), Archiver.Hook.NONE, 1).withSwapHook(step -> {
          if (step.equals("moved")) {
            try (FSDataOutputStream o = fs.create(new Path(taken), false)) {
              o.write(7);
            }
          }
        }).archive(new Path(taken), RR));
    assertTrue(refused.getMessage().contains("another file took its path"), refused.getMessage());
    assertEquals(1, fs.getFileStatus(new Path(taken)).getLen(), "the newcomer is kept");
    long archived = store.inodeOf(new Path(refused.getMessage().replaceAll("(?s).* to (\\S+/original),.*", "$1")));
    assertArrayEquals(mine, readAll(fs, ArchiveLayout.inodePath(archived).toString(), mine.length));
  }

  /**
   * Appends racing the swap (a writer following the file by its inode, as a superuser's may, from just before the
   * original moves aside, and one more append at the point between the last check and the delete) are never lost:
   * every append HDFS reported done is in the file afterwards, sealed or rolled back, and the rest failed.
   */
  @Test
  void appendsRacingTheSwapAreNeverLost() throws Exception {
    for (int round = 0; round < 4; round++) {
      boolean racing = round > 0; // round 0: only the append between the check and the delete, so the seal completes
      String path = "/race/f" + round;
      byte[] data = write(path, 2 * BLOCK + 100 + round);
      long inode = fs.getClient().getFileInfo(path).getFileId();
      Path byInode = ArchiveLayout.inodePath(inode);
      List<byte[]> reported = java.util.Collections.synchronizedList(new ArrayList<>());
      java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
      Random random = new Random(round);
      Runnable appendOnce = () -> {
        byte[] chunk = new byte[100 + random.nextInt(900)];
        random.nextBytes(chunk);
        synchronized (reported) { // the two writers here append one at a time, so the list is the file's order
          try (FileSystem writer = FileSystem.newInstance(fs.getUri(), conf);
              FSDataOutputStream o = writer.append(byInode)) {
            o.write(chunk);
            o.close();
            reported.add(chunk);
          } catch (IOException refused) {
            // held by the archiver, moved, or deleted: nothing was reported written
          }
        }
      };
      Thread appender = new Thread(() -> {
        while (!stop.get()) {
          appendOnce.run();
        }
      });
      SealedArchiver.Result r;
      try {
        r = new SealedArchiver(fs, store, SealedArchiver.classic(fs), Archiver.Hook.NONE, round).withSwapHook(step -> {
          if (step.equals("moving") && racing) {
            appender.start();
          } else if (step.equals("moved")) {
            appendOnce.run(); // between the check and the delete
          }
        }).archive(new Path(path), RR);
      } finally {
        stop.set(true);
        if (appender.getState() != Thread.State.NEW) {
          appender.join();
        }
      }
      java.io.ByteArrayOutputStream expected = new java.io.ByteArrayOutputStream();
      expected.write(data);
      for (byte[] chunk : reported) {
        expected.write(chunk);
      }
      byte[] want = expected.toByteArray();
      assertEquals(r.sealed(), SealedFiles.isSealed(fs.getClient().getFileInfo(path)), r.toString());
      if (r.sealed() || !racing) {
        assertTrue(r.sealed(), "round " + round + ": " + r);
        assertEquals(List.of(), reported, "a sealed file took no append: its original was held, then deleted");
      }
      try (FileSystem ours = wideEc()) {
        assertEquals(want.length, ours.getFileStatus(new Path(path)).getLen(), "round " + round + ": " + r);
        assertArrayEquals(want, readAll(ours, path, want.length), "round " + round);
      }
    }
  }

  /** The RapidRAID dry run refuses what the run would refuse after writing its manifest: no block tokens. */
  @Test
  void theRapidraidDryRunNeedsBlockTokensAsTheRunDoes() throws Exception {
    String path = "/cold/tokenless";
    write(path, 2 * BLOCK);
    String before = ArchiveChecks.namespace(fs);
    ToolRun dry = tool("archive", path, "--code", RR, "--encoder", "rapidraid", "--dry-run");
    assertEquals(org.wideec.cli.WideEcTool.EXIT_FAILED, dry.exit(), dry.out());
    assertTrue(dry.err().contains("block tokens are off (dfs.block.access.token.enable)"), dry.err());
    assertEquals(before, ArchiveChecks.namespace(fs), "nothing changed");
    ToolRun classic = tool("archive", path, "--code", RR, "--dry-run", "--json");
    assertEquals(0, classic.exit(), classic.err());
    assertTrue(classic.json().has("policy"), classic.out());
  }

  /** A sealed file whose manifest was set back to PLANNED (hand-edited) is never marked STALE nor freed: it fails. */
  @Test
  void aSealedFileWithAPlannedStripeInItsManifestFailsAndKeepsItsCodewords() throws Exception {
    String path = "/cold/edited";
    byte[] data = write(path, 5 * BLOCK);
    assertEquals(0, tool("archive", path, "--code", RR).exit());
    Path manifestPath = new Path(store.pointer(new Path(path)).manifestPath());
    long archive = ArchiveLayout.archiveInodeOf(manifestPath.toString());
    StripeManifest m = store.read(manifestPath);
    ArchivedStripe s0 = m.stripes().get(0);
    ArchivedStripe planned = new ArchivedStripe(s0.stripeId(), s0.codeSpec(), s0.codeFormatVersion(),
        StripeState.PLANNED, s0.parityFilePath(), 0, s0.members().stream().map(u -> u.unwritten()).toList(),
        s0.sources().stream().map(p -> p.withCrc(org.wideec.archive.StripeMember.NO_CRC)).toList());
    try (FSDataOutputStream out = fs.create(manifestPath, true)) { // by hand: no transition is checked
      out.write(m.with(planned).toBytes());
    }
    ToolRun run = tool("archive", path, "--code", RR);
    assertTrue(run.exit() != 0 && run.err().contains("is sealed") && run.err().contains("PLANNED"),
        run.out() + run.err());
    assertEquals(StripeState.PLANNED, store.read(manifestPath).stripes().get(0).state(), "nothing recorded");
    assertTrue(fs.exists(store.layout().codewordRoot(archive)), "the codewords are kept");
    try (FileSystem ours = wideEc()) {
      assertArrayEquals(data, readAll(ours, path, data.length));
    }
  }

  /** Some set of {@code count} codewords whose loss the exact code decodes (RapidRAID is not MDS in general). */
  static int[] decodableLoss(LinearCode code, int count, Random rnd) {
    while (true) {
      List<Integer> all = new ArrayList<>();
      for (int u = 0; u < code.n(); u++) {
        all.add(u);
      }
      java.util.Collections.shuffle(all, rnd);
      int[] pick = all.subList(0, count).stream().mapToInt(Integer::intValue).sorted().toArray();
      if (code.isDecodable(pick)) {
        return pick;
      }
    }
  }

  /** A run stopped right after recording each state resumes to a sealed file with every byte. */
  @ParameterizedTest
  @EnumSource(value = StripeState.class, names = {"PLANNED", "ENCODING", "PARITY_WRITTEN", "VERIFIED", "COMMITTED",
      "TRIMMED"})
  void aCrashAtEveryTransitionResumes(StripeState at) throws Exception {
    String path = "/crash/" + at;
    long length = 5 * BLOCK + 77;
    byte[] data = write(path, length);
    boolean[] crashed = {false};
    Archiver.Hook crash = (manifest, stripe) -> {
      StripeState recorded = stripe == null ? StripeState.PLANNED : stripe.state();
      boolean last = stripe == null || stripe.stripeId() == manifest.stripes().get(manifest.stripes().size() - 1)
          .stripeId();
      if (!crashed[0] && recorded == at && (at == StripeState.PLANNED || last)) {
        crashed[0] = true;
        throw new IOException("injected crash after recording " + at);
      }
    };
    DistributedFileSystem dfs = fs;
    IOException e = assertThrows(IOException.class, () -> new SealedArchiver(dfs, store, SealedArchiver.classic(dfs),
        crash, 1).archive(new Path(path), RR));
    assertTrue(e.getMessage().contains("injected crash"), e.getMessage());
    boolean sealedBeforeRerun = SealedFiles.isSealed(fs.getClient().getFileInfo(path));
    assertEquals(at == StripeState.TRIMMED, sealedBeforeRerun, "only the rename seals the file");
    if (!sealedBeforeRerun) {
      assertArrayEquals(data, readAll(fs, path, (int) length), "until sealed, the file is untouched");
    }
    SealedArchiver.Result r = new SealedArchiver(fs, store, SealedArchiver.classic(fs), Archiver.Hook.NONE, 2)
        .archive(new Path(path), RR);
    assertTrue(r.sealed());
    assertTrue(r.resumed());
    StripeManifest m = sealedManifest(path);
    assertTrue(ArchiveChecks.states(m).stream().allMatch(s -> s == StripeState.TRIMMED), m.toString());
    try (FileSystem ours = wideEc()) {
      assertArrayEquals(data, readAll(ours, path, (int) length));
    }
    // No leftover placeholder beside the codewords.
    long inode = ArchiveLayout.archiveInodeOf(store.pointer(new Path(path)).manifestPath());
    assertFalse(fs.exists(new Path(store.layout().codewordRoot(inode), "placeholder")));
  }

  /** Each codeword file is the recorded block, and equals what an independent encode of the file's pieces gives. */
  void codewordsMatchAnIndependentEncode(ArchivedStripe s, byte[] file) throws Exception {
    LinearCode code = s.code();
    int unit = (int) s.unitLength();
    ByteBuffer[] pieces = new ByteBuffer[code.k()];
    for (int t = 0; t < code.k(); t++) {
      byte[] p = new byte[unit];
      if (t < s.sources().size()) {
        SourcePiece sp = s.sources().get(t);
        System.arraycopy(file, (int) sp.offset(), p, 0, (int) sp.length());
        assertEquals(ArchiveChecks.crc(java.util.Arrays.copyOf(p, (int) sp.length())), sp.crc32c());
      }
      pieces[t] = ByteBuffer.wrap(p);
    }
    ByteBuffer[] words = new ByteBuffer[code.n()];
    for (int i = 0; i < code.n(); i++) {
      words[i] = ByteBuffer.allocate(unit);
    }
    ErasureCoder.java(code).encode(pieces, words);
    for (int i = 0; i < code.n(); i++) {
      byte[] stored = readAll(fs, CodewordFiles.file(s, i).toString(), unit);
      assertArrayEquals(words[i].array(), stored, "stripe " + s.stripeId() + " codeword " + i);
      assertEquals(ArchiveChecks.crc(stored), s.member(i).crc32c());
      var lbs = fs.getClient().getLocatedBlocks(CodewordFiles.file(s, i).toString(), 0, unit);
      assertEquals(s.member(i).blockId(), lbs.get(0).getBlock().getBlockId());
      assertEquals(1, lbs.get(0).getLocations().length);
    }
  }
}
