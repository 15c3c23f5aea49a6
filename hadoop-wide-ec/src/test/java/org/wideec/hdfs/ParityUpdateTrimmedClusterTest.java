package org.wideec.hdfs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.junit.jupiter.api.Test;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.StripeManifest;
import org.wideec.archive.StripeState;
import org.wideec.archive.hdfs.ArchiveLayout;
import org.wideec.archive.hdfs.ParityUpdater;

/**
 * {@code wide-ec rm} on a trimmed stripe (one replica per data unit) with the NameNode plugin's trimmer, reprotection
 * and repair monitor running: after the update committed and freed the old parity, the losses the code claims are
 * rebuilt from the new parity under the same block ids, and every remaining byte reads back.
 */
class ParityUpdateTrimmedClusterTest extends ChangedMemberTestBed {
  static final String DIR = "/trimmed";

  /** Who computes the new parity: block tokens are off here, so the updater's own process does. */
  String executor() {
    return "client";
  }

  @Test
  void afterARemovalTheCodesLossesAreRebuiltFromTheNewParity() throws Exception {
    String[] names = {"a", "b", "c", "d", "e", "f"};
    ArchivedStripe s = archiveSmallFiles(DIR, names);
    assertEquals(StripeState.TRIMMED, s.state());
    Map<String, Integer> unitOf = unitsOf(s, DIR, names);

    Configuration noGrace = new Configuration(conf);
    noGrace.setLong(ParityUpdater.GRACE_KEY, 0);
    ToolRun r = ToolRun.of(noGrace, "rm", DIR + "/b", "--json");
    assertEquals(0, r.exit(), r.out() + r.err());
    assertEquals(executor(), r.json().get("executor").asText(), r.out());
    checks.removed(DIR + "/b");
    StripeManifest m = manifestOf(DIR);
    assertEquals(1, m.version());
    ArchivedStripe after = m.stripe(s.stripeId());
    assertEquals(StripeState.TRIMMED, after.state());
    assertTrue(after.member(unitOf.get("b")).padding());
    int rewritten = 0;
    for (int u = s.code().k(); u < s.code().n(); u++) {
      boolean changed = after.member(u).blockId() != s.member(u).blockId();
      rewritten += changed ? 1 : 0;
      assertEquals(!changed, fs.exists(ArchiveLayout.parityUnit(s.parityFilePath(), u)),
          "old parity " + u + (changed ? " freed" : " still the stripe's"));
    }
    assertEquals(3, rewritten, "the two globals and b's group's local parity");

    // As many DataNodes as the code tolerates, those holding the trimmed replicas of a, e and f.
    for (String n : List.of("a", "e", "f")) {
      lose(s.member(unitOf.get(n)).plannedNode());
    }
    for (String n : List.of("a", "e", "f")) {
      var member = after.member(unitOf.get(n));
      await(DIR + "/" + n + " rebuilt under block " + member.blockId(), () -> located(member).getLocations().length > 0);
      assertEquals(member.generationStamp(), located(member).getBlock().getGenerationStamp());
    }
    checks.everyByteReadsBack();
    assertFalse(fs.exists(new Path(DIR + "/b")));
  }
}
