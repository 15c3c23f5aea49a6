package org.wideec.archive;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.wideec.code.UnitRole;
import org.wideec.repair.BlockRef;
import org.wideec.repair.RepairScheme;
import org.wideec.repair.UnitLocation;
import org.wideec.topology.Site;

class ArchivedReadRepairTest {
  static final String LRC = "azure-lrc:k=4,l=2,g=1";
  static final byte[] TOKEN = {7, 7, 7};

  /** A committed azure-lrc 4+1+2 stripe of three files' blocks; block ids 100 + unit. */
  private static ArchivedStripe stripe(StripeState state) {
    List<StripeMember> m = new ArrayList<>();
    long[] inodes = {16386, 16386, 16387, 16388};
    for (int u = 0; u < 4; u++) {
      m.add(StripeMember.data(inodes[u], 100 + u, 1001 + u, u == 3 ? 1000 : 4096, "dn" + u + ":9866", "/rack" + u / 2)
          .withCrc(0x1000 + u));
    }
    m.add(new StripeMember(UnitRole.GLOBAL_PARITY, false, 16390, 104, 1100, 4096, 1, "dn4:9866", "/rack2"));
    m.add(new StripeMember(UnitRole.LOCAL_PARITY, false, 16391, 105, 1100, 4096, 2, "dn5:9866", "/rack0"));
    m.add(new StripeMember(UnitRole.LOCAL_PARITY, false, 16392, 106, 1100, 4096, 3, "dn6:9866", "/rack1"));
    return new ArchivedStripe(3, LRC, 1, state, "/.wideec/parity/16385/3", 16389, m);
  }

  /** Every stored member as the manifest records it, on its planned node. */
  private static Map<Integer, ArchivedReadRepair.Current> asArchived(ArchivedStripe s) {
    Map<Integer, ArchivedReadRepair.Current> now = new HashMap<>();
    for (int u = 0; u < s.members().size(); u++) {
      StripeMember m = s.member(u);
      now.put(u, new ArchivedReadRepair.Current(m.blockId(), m.generationStamp(), m.length(), m.plannedNode(),
          m.plannedRack()));
    }
    return now;
  }

  private static BlockRef asked(long id, long genStamp, long length) {
    return new BlockRef("bp", id, genStamp, length, TOKEN);
  }

  private static ArchivedReadRepair.Plan plan(ArchivedStripe s, BlockRef lost,
      Map<Integer, ArchivedReadRepair.Current> now) throws IOException {
    return ArchivedReadRepair.plan("test", s, lost, now, id -> new BlockRef("bp", id, 0, 0, TOKEN),
        RepairScheme.RACK_AGGREGATED);
  }

  @Test
  void aLostDataBlockIsRebuiltFromEveryOtherMemberWithTheManifestsStampsAndTheMintedTokens() throws Exception {
    ArchivedStripe s = stripe(StripeState.TRIMMED);
    Map<Integer, ArchivedReadRepair.Current> now = asArchived(s);
    now.put(1, new ArchivedReadRepair.Current(101, 1002, 4096, null, null)); // its only replica is gone
    ArchivedReadRepair.Plan p = plan(s, asked(101, 1002, 4096), now);
    assertEquals(1, p.lostUnit());
    assertArrayEquals(new int[] {1}, p.repair().lost());
    assertArrayEquals(new long[] {4096}, p.repair().lostLengths());
    assertEquals(Set.of(0, 2, 3, 4, 5, 6), p.repair().survivors().keySet());
    assertEquals(new UnitLocation(4, new Site("dn4:9866", "/rack2")), p.repair().survivors().get(4));
    assertEquals(new BlockRef("bp", 103, 1004, 1000, TOKEN), p.repair().blocks().get(3));
    assertEquals(Map.of(), p.leftOut());
  }

  @Test
  void aMemberAppendedSinceArchivalIsNeverAHelper() throws Exception {
    ArchivedStripe s = stripe(StripeState.COMMITTED);
    Map<Integer, ArchivedReadRepair.Current> now = asArchived(s);
    now.put(1, new ArchivedReadRepair.Current(101, 1002, 4096, null, null));
    now.put(0, new ArchivedReadRepair.Current(100, 2001, 4096 + 10, "dn0:9866", "/rack0")); // appended
    now.remove(6); // the other local group's parity file was deleted
    ArchivedReadRepair.Plan p = plan(s, asked(101, 1002, 4096), now);
    assertEquals(Set.of(2, 3, 4, 5), p.repair().survivors().keySet());
    assertEquals(Set.of(0, 6), p.leftOut().keySet());
    assertTrue(p.leftOut().get(6).contains("no longer listed"), p.leftOut().get(6));
    assertTrue(p.leftOut().get(0).contains("not what the parity covers"), p.leftOut().get(0));
    assertTrue(ArchivedReadRepair.describe(p.leftOut()).startsWith("unit 0: block 100 is now blk_100_2001"),
        ArchivedReadRepair.describe(p.leftOut()));
  }

  @Test
  void aLostBlockThatChangedSinceArchivalIsNotReadThrough() {
    ArchivedStripe s = stripe(StripeState.TRIMMED);
    IOException e = assertThrows(IOException.class, () -> plan(s, asked(101, 1999, 4096), asArchived(s)));
    assertTrue(e.getMessage().contains("appended or rewritten"), e.getMessage());
  }

  @Test
  void onlyStripesWhoseParityProtectsThemAreReadThrough() throws Exception {
    ArchivedStripe verified = stripe(StripeState.VERIFIED);
    IOException e = assertThrows(IOException.class, () -> plan(verified, asked(101, 1002, 4096), asArchived(verified)));
    assertTrue(e.getMessage().contains("is VERIFIED"), e.getMessage());
    // A stripe gone stale after its parity was verified still protects its unchanged members.
    ArchivedStripe stale = stripe(StripeState.STALE);
    Map<Integer, ArchivedReadRepair.Current> now = asArchived(stale);
    now.put(1, new ArchivedReadRepair.Current(101, 1002, 4096, null, null));
    assertEquals(1, plan(stale, asked(101, 1002, 4096), now).lostUnit());
  }

  @Test
  void aLostBlockTheMembersLeftCannotDecodeIsNamedNotGuessed() {
    ArchivedStripe s = stripe(StripeState.TRIMMED);
    Map<Integer, ArchivedReadRepair.Current> now = asArchived(s);
    for (int u : new int[] {0, 2, 3, 4}) {
      now.remove(u);
    }
    IOException e = assertThrows(IOException.class, () -> plan(s, asked(101, 1002, 4096), now));
    assertTrue(e.getMessage().contains("cannot be decoded from the members left"), e.getMessage());
  }

  @Test
  void aBlockThatIsNoDataMemberIsRefused() {
    ArchivedStripe s = stripe(StripeState.TRIMMED);
    IOException other = assertThrows(IOException.class, () -> plan(s, asked(999, 1, 10), asArchived(s)));
    assertTrue(other.getMessage().contains("is not a data block of stripe 3"), other.getMessage());
    IOException parity = assertThrows(IOException.class, () -> plan(s, asked(104, 1100, 4096), asArchived(s)));
    assertTrue(parity.getMessage().contains("is not a data block"), parity.getMessage());
  }
}
