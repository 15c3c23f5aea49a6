package org.wideec.hdfs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.List;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.junit.jupiter.api.Test;
import org.wideec.archive.ArchivePointer;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.PlacementKind;
import org.wideec.archive.StripeManifest;
import org.wideec.archive.StripeState;
import org.wideec.archive.hdfs.ArchiveLayout;
import org.wideec.archive.hdfs.Archiver;
import org.wideec.archive.hdfs.ClientClassicEncoder;
import org.wideec.archive.hdfs.LostArchiveLockException;
import org.wideec.archive.hdfs.ManifestStore;
import org.wideec.archive.hdfs.StripeEncoder;

/**
 * The archiver killed at every recorded transition, and inside the encoder with parity files half or fully written,
 * then run again: every stripe ends COMMITTED with parity equal to an independent encode, every data byte reads
 * back unchanged, every file carries its pointer. A crash is an exception thrown by a hook of the archiver's own
 * (nothing of HDFS is mocked), which leaves HDFS exactly as a killed process would: the manifest as last recorded,
 * parity files as far as they got.
 */
class ArchiveCrashResumeClusterTest extends ArchiveTestBed {
  /** 8 blocks, the last one short: a full stripe and one of 2 blocks. */
  static final long LENGTH = 7 * BLOCK + 300;
  /** The initial manifest, then ENCODING, PARITY_WRITTEN, VERIFIED and COMMITTED for each of 2 stripes. */
  static final int RECORDS = 1 + 2 * 4;


  private static final class Crash extends IOException {
    Crash(String where) {
      super("injected crash " + where);
    }
  }

  /** An encoder that dies part way: what it leaves behind is what the rerun must discard. */
  private interface Dying {
    void encode(ArchivedStripe stripe) throws IOException;
  }

  private static StripeEncoder crashing(Dying dying) {
    return new StripeEncoder() {
      @Override
      public String name() {
        return "classic";
      }

      @Override
      public Encoded encode(ArchivedStripe stripe) throws IOException {
        dying.encode(stripe);
        throw new IllegalStateException("a dying encoder must throw");
      }
    };
  }

  private Archiver archiver(StripeEncoder encoder, Archiver.Hook hook) {
    return new Archiver(fs, store, encoder, hook, Archiver.Listener.NONE);
  }

  /** Reruns with no fault and checks the end state and every byte. */
  private Archiver.Result resumeAndCheck(Path path) throws Exception {
    Archiver.Result r = archiver(ClientClassicEncoder.from(fs), Archiver.Hook.NONE).archive(path, CODE,
        PlacementKind.CL);
    assertTrue(r.resumed(), path.toString());
    StripeManifest m = store.find(store.inodeOf(path));
    assertEquals(m, r.manifest());
    assertEquals(List.of(StripeState.COMMITTED, StripeState.COMMITTED), ArchiveChecks.states(m), path.toString());
    checks.everyStripeMatchesIndependentEncode(m);
    checks.everyByteReadsBack();
    assertEquals(new ArchivePointer(store.layout().manifest(store.inodeOf(path)).toUri().getPath(), new long[] {0, 1}),
        store.pointer(path));
    assertEquals(3, fs.getFileStatus(path).getReplication());
    return r;
  }

  @Test
  void aCrashAfterEveryRecordedTransitionResumesToCommittedWithEveryByteIntact() throws Exception {
    for (int crashAt = 1; crashAt <= RECORDS; crashAt++) {
      Path path = new Path("/crash/at-" + crashAt);
      checks.write(path.toString(), LENGTH);
      int[] records = {0};
      String[] crashedAfter = {null};
      final int at = crashAt;
      Archiver.Hook crash = (manifest, stripe) -> {
        if (++records[0] == at) {
          crashedAfter[0] = stripe == null ? "PLANNED manifest" : "stripe " + stripe.stripeId() + " " + stripe.state();
          throw new Crash("after record " + at);
        }
      };
      Crash c = assertThrows(Crash.class,
          () -> archiver(ClientClassicEncoder.from(fs), crash).archive(path, CODE, PlacementKind.CL));
      assertEquals("injected crash after record " + at, c.getMessage());
      // Record 1 is the plan; then each stripe goes ENCODING, PARITY_WRITTEN, VERIFIED, COMMITTED.
      StripeState crashedIn = at == 1 ? StripeState.PLANNED : List.of(StripeState.ENCODING, StripeState.PARITY_WRITTEN,
          StripeState.VERIFIED, StripeState.COMMITTED).get((at - 2) % 4);
      long stripe = at == 1 ? 0 : (at - 2) / 4;
      assertEquals(crashedIn, store.find(store.inodeOf(path)).stripe(stripe).state(), crashedAfter[0]);

      Archiver.Result r = resumeAndCheck(path);
      boolean redone = crashedIn == StripeState.ENCODING || crashedIn == StripeState.PARITY_WRITTEN;
      assertEquals(redone ? 1 : 0, r.rolledBack(), crashedAfter[0]);
      // Bytes the rerun encoded: the stripes not yet past PARITY_WRITTEN when it crashed.
      long expectedRead = 0;
      if (at == 1 || (stripe == 0 && redone)) {
        expectedRead = LENGTH;
      } else if (stripe == 0 || (stripe == 1 && redone)) {
        expectedRead = LENGTH - 6 * BLOCK;
      }
      assertEquals(expectedRead, r.dataBytesRead(), crashedAfter[0]);
    }
  }

  @Test
  void aCrashInsideTheEncoderLeavesPartialParityThatTheRerunDiscards() throws Exception {
    ClientClassicEncoder classic = ClientClassicEncoder.from(fs);
    // Killed after writing every parity file, before PARITY_WRITTEN is recorded.
    StripeEncoder wroteAll = crashing(stripe -> {
      classic.encode(stripe);
      throw new Crash("after the parity of stripe " + stripe.stripeId() + " was written");
    });
    // Killed with one parity file half written (still open).
    FSDataOutputStream[] open = {null};
    StripeEncoder wroteHalf = crashing(stripe -> {
      fs.mkdirs(new Path(stripe.parityFilePath()));
      open[0] = fs.create(ArchiveLayout.parityUnit(stripe.parityFilePath(), 6), (short) 1);
      open[0].write(new byte[1000]);
      open[0].hflush();
      throw new Crash("with parity unit 6 of stripe " + stripe.stripeId() + " half written");
    });
    for (StripeEncoder crashing : List.of(wroteAll, wroteHalf)) {
      Path path = new Path("/encoder-crash/" + (crashing == wroteAll ? "all" : "half"));
      checks.write(path.toString(), LENGTH);
      assertThrows(Crash.class, () -> archiver(crashing, Archiver.Hook.NONE).archive(path, CODE, PlacementKind.CL));
      StripeManifest crashed = store.find(store.inodeOf(path));
      assertEquals(List.of(StripeState.ENCODING, StripeState.PLANNED), ArchiveChecks.states(crashed));
      assertTrue(fs.exists(ArchiveLayout.parityUnit(crashed.stripe(0).parityFilePath(), 6)), "partial parity is there");

      Archiver.Result r = resumeAndCheck(path);
      assertEquals(1, r.rolledBack());
      assertEquals(LENGTH, r.dataBytesRead());
    }
    org.apache.hadoop.io.IOUtils.closeStream(open[0]); // its file was deleted by the rerun, as a dead writer's would be
  }

  @Test
  void anArchiverWhoseLockWasRecoveredStopsAtItsNextManifestWriteAndChangesNothing() throws Exception {
    Path path = new Path("/fenced/f");
    checks.write(path.toString(), LENGTH);
    long inode = store.inodeOf(path);
    // The second run: its own client (its own lease holder), as a retried map attempt in another JVM would be.
    DistributedFileSystem fs2 = (DistributedFileSystem) FileSystem.newInstance(conf);
    ManifestStore store2 = new ManifestStore(fs2, store.layout()).holder("second run");
    java.io.Closeable[] held2 = {null};
    byte[][] recorded = {null};
    Archiver.Hook takeOver = (manifest, stripe) -> {
      if (stripe == null) { // the first run recorded its plan and is alive: the second takes it for dead
        assertTrue(store2.releaseDeadHolder(inode, 60_000), "the first run's lease was recovered");
        held2[0] = store2.lock(inode);
        recorded[0] = readManifestBytes(inode);
      }
    };
    try {
      LostArchiveLockException lost = assertThrows(LostArchiveLockException.class,
          () -> archiver(ClientClassicEncoder.from(fs), takeOver).archive(path, CODE, PlacementKind.CL));
      Path lock = store.lockPath(inode);
      assertEquals(lock, lost.lock());
      assertTrue(lost.getMessage().contains("lost the archive lock " + lock), lost.getMessage());
      assertTrue(lost.getMessage().contains("stopped before writing the manifest"), lost.getMessage());
      // Nothing changed: the manifest as the plan recorded it, no parity, no stray temp file, the second run's lock.
      org.junit.jupiter.api.Assertions.assertArrayEquals(recorded[0], readManifestBytes(inode));
      assertEquals(List.of(StripeState.PLANNED, StripeState.PLANNED), ArchiveChecks.states(store.find(inode)));
      assertTrue(!fs.exists(store.layout().parityRoot(inode)), "no parity was written");
      for (org.apache.hadoop.fs.FileStatus f : fs.listStatus(store.layout().manifestDir())) {
        assertTrue(!f.getPath().getName().endsWith(".tmp"), f.getPath().toString());
      }
      assertEquals("second run", store2.lockHolder(inode), "the lost lock was not deleted by its old holder");
      held2[0].close();
      held2[0] = null;
      // The second run finishes the archive.
      Archiver.Result r = new Archiver(fs2, store2, ClientClassicEncoder.from(fs2), Archiver.Hook.NONE,
          Archiver.Listener.NONE).archive(path, CODE, PlacementKind.CL);
      assertEquals(List.of(StripeState.COMMITTED, StripeState.COMMITTED), ArchiveChecks.states(r.manifest()));
      checks.everyStripeMatchesIndependentEncode(r.manifest());
      checks.everyByteReadsBack();
    } finally {
      if (held2[0] != null) {
        held2[0].close();
      }
      fs2.close();
    }
  }

  private byte[] readManifestBytes(long inode) throws IOException {
    try (java.io.InputStream in = fs.open(store.layout().manifest(inode))) {
      return in.readAllBytes();
    }
  }
}
