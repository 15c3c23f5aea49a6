package org.wideec.hdfs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.hadoop.fs.Path;
import org.junit.jupiter.api.Test;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.StripeManifest;
import org.wideec.archive.StripeMember;
import org.wideec.archive.StripeState;
import org.wideec.archive.hdfs.FillUpdate;
import org.wideec.archive.hdfs.ParityUpdater;

/**
 * {@code wide-ec archive --fill} into a trimmed stripe with the NameNode plugin's trimmer, reprotection and repair
 * monitor running: the new file keeps every replica until the update that protects it has committed, then the
 * archival trim lowers it to its slot's planned replica and the stripe is TRIMMED again; its loss is then rebuilt from
 * the new parity under its block id.
 */
class FillTrimmedClusterTest extends ChangedMemberTestBed {
  @Test
  void aFilledFileKeepsEveryReplicaUntilTheCommitThenIsTrimmedAndRebuiltFromTheNewParity() throws Exception {
    String dir = "/filled";
    ArchivedStripe s = archiveSmallFiles(dir, "a", "b", "c", "d");
    assertEquals(StripeState.TRIMMED, s.state());
    assertTrue(s.member(4).padding() && s.member(5).padding());
    checks.write(dir + "/g", BLOCK / 3 + 17);
    byte[] g = read(dir + "/g");
    Path gp = new Path(dir + "/g");

    List<String> seen = new ArrayList<>();
    ParityUpdater.Hook watch = step -> {
      short replication = fs.getFileStatus(gp).getReplication();
      seen.add(step + ":" + replication);
    };
    FillUpdate.Result r = new FillUpdate(fs, store, new ParityUpdater(fs, store, 0, 16 * 1024, new Random(3), watch))
        .fill(new Path(dir), true);
    assertEquals(List.of("locked:3", "planned:3", "parity-written:3", "verified:3", "committed:3", "freed:3"), seen,
        "the new file keeps its replication through every step of the update");
    assertEquals(List.of(dir + "/g"), r.filled());
    assertEquals(1, r.trimmed().trimmed(), r.trimmed().toString());
    assertTrue(r.trimmed().clean(), r.trimmed().toString());

    StripeManifest m = manifestOf(dir);
    ArchivedStripe after = m.stripe(s.stripeId());
    assertEquals(StripeState.TRIMMED, after.state());
    StripeMember slot = after.member(4);
    assertEquals(store.inodeOf(gp), slot.inodeId());
    assertEquals(1, fs.getFileStatus(gp).getReplication());
    await(dir + "/g on its planned node only", () -> java.util.Arrays.stream(located(slot).getLocations())
        .map(d -> d.getXferAddr()).toList().equals(List.of(slot.plannedNode())));
    new UpdatedStripeChecks(fs, checks).everythingChecksOut(m);

    lose(slot.plannedNode());
    await(dir + "/g rebuilt under block " + slot.blockId(), () -> located(slot).getLocations().length > 0);
    assertEquals(slot.generationStamp(), located(slot).getBlock().getGenerationStamp());
    assertArrayEquals(g, read(dir + "/g"));
    checks.everyByteReadsBack();
  }
}
