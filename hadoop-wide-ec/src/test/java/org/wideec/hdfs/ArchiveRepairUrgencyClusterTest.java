package org.wideec.hdfs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.protocol.HdfsConstants.SafeModeAction;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.StripeManifest;
import org.wideec.archive.StripeMember;

/**
 * The NameNode's archive repair monitor, with one rebuild order at a time, starts with the stripe that can lose
 * nothing more, though it met another with margin left first; every byte reads back after.
 */
class ArchiveRepairUrgencyClusterTest extends ArchiveTestBed {
  /** azure-lrc:k=6,l=2,g=2 survives any three losses. */
  private static final int TOLERATED = 3;

  @Override
  Configuration baseConf() {
    Configuration base = repairConf(300);
    base.setInt("wide-ec.archive.repair.max-concurrent", 1);
    return base;
  }

  @BeforeAll
  void awaitLease() {
    awaitTrimmerLease();
  }

  @Test
  void aStripeThatCanLoseNothingMoreIsRebuiltFirstThoughOneWithMarginLeftWasMetFirst() throws Exception {
    // Two stripes planned on the very same ten nodes leave no such losses, and two one-stripe files are planned so
    // about once in twenty (their kept replicas are HDFS's random choice). One archive puts each stripe's parities on
    // the nodes its earlier stripes left least loaded, so the two stripes of one file differ, and a stripe of the
    // other file differs from one of them at least.
    checks.write("/ru/a", STRIPES_PER_FILE * 6 * BLOCK);
    StripeManifest first = archived("/ru/a");
    checks.write("/ru/b", STRIPES_PER_FILE * 6 * BLOCK);
    StripeManifest second = archived("/ru/b");
    assertTrue(store.inodeOf(new org.apache.hadoop.fs.Path("/ru/a")) < store.inodeOf(
        new org.apache.hadoop.fs.Path("/ru/b")), "the monitor meets /ru/a's manifest first");
    List<ArchivedStripe> stripes = new ArrayList<>(first.stripes());
    stripes.addAll(second.stripes());
    Losses losses = losses(first.stripes(), second.stripes());
    assertNotNull(losses, "three nodes that take three units of a stripe of /ru/b and one or two of a stripe of /ru/a: "
        + stripes.stream().map(s -> s.stripeId() + "=" + plannedNodes(s)).toList());
    List<StripeMember> lostMargin = onNodes(losses.margin(), losses.victims());
    List<StripeMember> lostNone = onNodes(losses.none(), losses.victims());
    assertEquals(TOLERATED, lostNone.size());
    // Every loss at once, as the monitor sees it: it runs no pass while the NameNode is in an operator's safe mode.
    fs.setSafeMode(SafeModeAction.SAFEMODE_ENTER);
    for (String v : losses.victims()) {
      DataNode dn = datanode(v);
      cluster.stopDataNode(v);
      cluster.setDataNodeDead(dn.getDatanodeId());
    }
    fs.setSafeMode(SafeModeAction.SAFEMODE_LEAVE);
    Map<Long, Long> liveAt = new HashMap<>();
    List<StripeMember> all = new ArrayList<>();
    for (ArchivedStripe s : stripes) {
      all.addAll(onNodes(s, losses.victims()));
    }
    long deadline = System.nanoTime() + 120_000_000_000L;
    while (liveAt.size() < all.size() && System.nanoTime() < deadline) {
      for (StripeMember m : all) {
        if (!liveAt.containsKey(m.blockId()) && located(m).getLocations().length > 0) {
          liveAt.put(m.blockId(), System.nanoTime());
        }
      }
      Thread.sleep(20);
    }
    assertEquals(all.size(), liveAt.size(), "every lost block rebuilt: " + liveAt);
    // Once one order has rebuilt part of it, the second stripe has margin again and the two take turns by margin,
    // then by the order they were met in: what matters is who goes first. (Another stripe the victims left with no
    // margin may go before both; three losses leave every stripe decodable.)
    long firstOfNone = lostNone.stream().mapToLong(m -> liveAt.get(m.blockId())).min().getAsLong();
    long firstOfMargin = lostMargin.stream().mapToLong(m -> liveAt.get(m.blockId())).min().getAsLong();
    assertTrue(firstOfNone < firstOfMargin, "a block of the stripe with no margin left came back "
        + (firstOfMargin - firstOfNone) / 1_000_000 + " ms before the first of the one with margin");
    checks.everyByteReadsBack();
  }

  private static final int STRIPES_PER_FILE = 2;

  /**
   * The stripe met first that keeps a margin ({@code margin}, of the first file), the one met after that can lose
   * nothing more ({@code none}, of the second), and the nodes whose loss makes them so.
   */
  private record Losses(ArchivedStripe margin, ArchivedStripe none, List<String> victims) {}

  /**
   * Three nodes holding, together, exactly {@value #TOLERATED} units of a stripe of {@code second} and one or two of
   * a stripe of {@code first}; null if the placements allow none.
   */
  private static Losses losses(List<ArchivedStripe> first, List<ArchivedStripe> second) {
    for (ArchivedStripe none : second) {
      List<String> nodes = new ArrayList<>(new java.util.TreeSet<>(plannedNodes(none)));
      for (int i = 0; i < nodes.size(); i++) {
        for (int j = i + 1; j < nodes.size(); j++) {
          for (int k = j + 1; k < nodes.size(); k++) {
            List<String> pick = List.of(nodes.get(i), nodes.get(j), nodes.get(k));
            if (onNodes(none, pick).size() != TOLERATED) {
              continue;
            }
            for (ArchivedStripe margin : first) {
              int lost = onNodes(margin, pick).size();
              if (lost >= 1 && lost < TOLERATED) {
                return new Losses(margin, none, pick);
              }
            }
          }
        }
      }
    }
    return null;
  }

  private static List<String> plannedNodes(ArchivedStripe s) {
    List<String> out = new ArrayList<>();
    for (int u : s.storedUnits()) {
      out.add(s.member(u).plannedNode());
    }
    return out;
  }

  private static List<StripeMember> onNodes(ArchivedStripe s, List<String> nodes) {
    Set<String> set = new HashSet<>(nodes);
    List<StripeMember> out = new ArrayList<>();
    for (int u : s.storedUnits()) {
      if (set.contains(s.member(u).plannedNode())) {
        out.add(s.member(u));
      }
    }
    return out;
  }
}
