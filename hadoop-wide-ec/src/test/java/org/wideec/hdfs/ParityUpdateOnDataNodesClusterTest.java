package org.wideec.hdfs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.wideec.archive.StripeManifest;
import org.wideec.archive.StripeMember;
import org.wideec.archive.hdfs.ParityUpdater;
import org.wideec.datanode.RepairMetrics;
import org.wideec.minicluster.MiniClusters;
import org.wideec.transport.TransportFaultInjector;

/**
 * Every test of {@link ParityUpdateClusterTest} again with our DataNode plugin and block tokens on, so that the
 * DataNodes compute the new parity ({@code wide-ec.update.executor=datanode}, the default): the nodes of the changed
 * units compute their deltas from local reads, the plan's relays forward, each parity's node reads its old parity
 * locally and writes the new one. Besides: for each scheme the rows the DataNodes deliver across racks are exactly
 * the plan's cross-rack chunks times the unit length (RackCU fewer than the baseline), and a DataNode that fails
 * mid-update leaves the old version readable while {@code rm --finish} completes the update.
 */
class ParityUpdateOnDataNodesClusterTest extends ParityUpdateClusterTest {
  @Override
  Configuration baseConf() {
    return onDataNodes();
  }

  /** Our DataNode plugin with block tokens on, so the DataNodes compute new parity (the executor's default). */
  static Configuration onDataNodes() {
    Configuration c = MiniClusters.withWideEcRepair(MiniClusters.withQuickDataNodeHeartbeats(new Configuration()));
    c.setBoolean(DFSConfigKeys.DFS_BLOCK_ACCESS_TOKEN_ENABLE_KEY, true);
    c.setLong("wide-ec.transport.stall.timeout.ms", 10_000);
    // The beds' patterns and the models they are checked against are the plan's layout: every chain reads the planned
    // nodes, so every data block is on its planned node once archived (a chain reading a core rack's replicas would
    // leave the plan's moves to a trim these --no-trim archives never make).
    c.set(org.wideec.archive.encode.ChainReads.KEY, "planned");
    // The chain encoder these beds archive with first moves blocks onto plan, each move waiting for HDFS to delete the
    // source's excess replica: the NameNode hands that out every quarter second, to every DataNode each time.
    c.set(DFSConfigKeys.DFS_NAMENODE_REDUNDANCY_INTERVAL_SECONDS_KEY, "250ms");
    c.setFloat(DFSConfigKeys.DFS_NAMENODE_INVALIDATE_WORK_PCT_PER_ITERATION, 1.0f);
    return c;
  }

  @Override
  String executor() {
    return "datanode";
  }

  @AfterEach
  void noFaults() {
    TransportFaultInjector.set(null);
  }

  // Not run again here: each ends before any executor is chosen (a refusal, or a dry run's plan), so the DataNodes take
  // no part and ParityUpdateClusterTest's run is the proof. Overridden without @Test, JUnit does not run them.

  @Override
  void anotherUserCannotRemoveAFileTheyCannotWrite() {}

  @Override
  void aFileASnapshotHoldsIsNotRemoved() {}

  @Override
  void aStripeWithAChangedMemberTakesNoUpdate() {}

  @Override
  void dryRunPrintsTheUpdateAndChangesNothing() {}

  @Test
  void eachSchemesPlanRunsOnTheDataNodesCrossingRacksExactlyItsChunks() throws Exception {
    Map<String, Long> crossRack = new HashMap<>();
    for (String scheme : List.of("baseline", "cau", "rackcu")) {
      String dir = "/scheme-" + scheme;
      List<String> files = archiveDirOnPlan(dir);
      RmOnDataNodes rm = rmOnDataNodes(scheme, files.get(0), files.get(2));
      everythingChecksOut(manifestOf(dir));
      crossRack.put(scheme, rm.crossRackBytes());
    }
    // Two files of one rack's units, parities in other racks: RackCU sends the deltas across once per parity rack.
    assertTrue(crossRack.get("rackcu") < crossRack.get("baseline"), crossRack.toString());
  }

  @Test
  void removingAWholeLocalGroupRunsOnTheDataNodesAndFreesItsLocalParityUnwritten() throws Exception {
    for (String scheme : List.of("baseline", "cau", "rackcu")) {
      String dir = "/group-" + scheme;
      List<String> files = archiveDirOnPlan(dir);
      StripeManifest before = manifestOf(dir);
      // f0 and f1 are the whole of stripe 0's first local group (units 0-2), whose local parity is unit 8 (p2).
      assertEquals(List.of("0:0", "0:1"), unitsOf(before, store.inodeOf(new Path(files.get(0)))));
      assertEquals(List.of("0:2"), unitsOf(before, store.inodeOf(new Path(files.get(1)))));
      RmOnDataNodes rm = rmOnDataNodes(scheme, files.get(0), files.get(1));
      JsonNode stripe0 = rm.plan().json().get("archives").get(0).get("stripes").get(0);
      for (JsonNode t : stripe0.get("plan").get("transfers")) {
        assertTrue(!t.get("parities").toString().contains("\"p2\"") && !t.get("to").toString().contains("\"p2\""),
            scheme + ": the dropped local parity takes no transfer: " + t);
      }
      assertEquals(2, rm.run().json().get("archives").get(0).get("parityBlocksWritten").asInt(),
          scheme + ": the two global parities only: " + rm.run().out());
      StripeManifest after = manifestOf(dir);
      assertTrue(after.stripe(0).member(8).padding(), scheme + ": the emptied group's local parity is virtual");
      everythingChecksOut(after);
    }
  }

  @Test
  void aChangedUnitWhoseReplicasAllLeftItsPlannedRackIsPlannedFromWhereItIsReadAndCountedExactly() throws Exception {
    List<String> files = archiveDirOnPlan("/off-rack");
    StripeManifest before = manifestOf("/off-rack");
    assertEquals(List.of("0:0", "0:1"), unitsOf(before, store.inodeOf(new Path(files.get(0)))));
    StripeMember d0 = before.stripe(0).member(0);
    Set<String> racksNow = everyReplicaOutOfItsPlannedRack(d0, before.stripe(0));
    // The dry run plans unit 0's delta from a rack it is read in now; planned from the manifest, the DataNodes would
    // send it across racks the plan does not count (rmOnDataNodes asserts the count exactly).
    RmOnDataNodes rm = rmOnDataNodes("rackcu", files.get(0));
    JsonNode plan = rm.plan().json().get("archives").get(0).get("stripes").get(0).get("plan");
    boolean fromWhereItIs = false;
    for (JsonNode t : plan.get("transfers")) {
      fromWhereItIs |= racksNow.contains(t.get("from").get("rack").asText());
    }
    assertTrue(fromWhereItIs, "a transfer from " + racksNow + ": " + plan);
    everythingChecksOut(manifestOf("/off-rack"));
  }

  /**
   * Moves each replica of the member's block that is in its planned rack to a DataNode of another rack holding no
   * replica of it (so the NameNode drops the moved one as the excess, the number of racks kept), one free of the
   * stripe where there is one, and returns the racks it is in then.
   */
  private Set<String> everyReplicaOutOfItsPlannedRack(StripeMember m, org.wideec.archive.ArchivedStripe stripe)
      throws Exception {
    Set<String> stripeRacks = new HashSet<>();
    for (int u = 0; u < stripe.code().n(); u++) {
      stripeRacks.add(stripe.member(u).plannedRack());
    }
    String file = org.wideec.archive.hdfs.ArchiveLayout.inodePath(m.inodeId()).toString();
    try (org.wideec.archive.hdfs.BlockMover mover = new org.wideec.archive.hdfs.BlockMover(fs)) {
      for (DatanodeInfo holder : located(m).getLocations()) {
        if (!holder.getNetworkLocation().equals(m.plannedRack())) {
          continue;
        }
        Set<String> racksHolding = racksOf(located(m));
        DatanodeInfo target = Arrays.stream(fs.getDataNodeStats())
            .filter(d -> !d.getNetworkLocation().equals(m.plannedRack()) && !racksHolding.contains(d.getNetworkLocation()))
            .min(java.util.Comparator.comparing((DatanodeInfo d) -> stripeRacks.contains(d.getNetworkLocation())))
            .orElseThrow(() -> new AssertionError("no rack free of blk_" + m.blockId() + " besides its planned one"));
        mover.move(org.wideec.archive.hdfs.BlockMover.candidates(file, located(m), target, holder.getXferAddr())
            .get(0));
      }
    }
    await("no replica of blk_" + m.blockId() + " left in its planned rack " + m.plannedRack(),
        () -> !racksOf(located(m)).contains(m.plannedRack()));
    return racksOf(located(m));
  }

  private static Set<String> racksOf(org.apache.hadoop.hdfs.protocol.LocatedBlock lb) {
    Set<String> out = new HashSet<>();
    for (DatanodeInfo d : lb.getLocations()) {
      out.add(d.getNetworkLocation());
    }
    return out;
  }

  @Test
  void removingTheLongestUnitsOfAStripeRunsOnTheDataNodesCuttingEveryParityToTheNewLength() throws Exception {
    List<String> files = archiveDirOnPlan("/shorter");
    StripeManifest before = manifestOf("/shorter");
    // f5 (two blocks, the first a whole one) is the short stripe's longest; f4 (a third of a block) is left longest.
    assertEquals(List.of("1:1", "1:2"), unitsOf(before, store.inodeOf(new Path(files.get(5)))));
    assertEquals(BLOCK, before.stripe(1).unitLength());
    RmOnDataNodes rm = rmOnDataNodes("rackcu", files.get(5));
    // Both globals and the group's local parity take deltas; the other group's local parity is cut on its own node.
    assertEquals(4, rm.run().json().get("archives").get(0).get("parityBlocksWritten").asInt(), rm.run().out());
    StripeManifest after = manifestOf("/shorter");
    assertEquals(BLOCK / 3, after.stripe(1).unitLength());
    everythingChecksOut(after);
  }

  @Test
  void aReplaceRunsOnTheDataNodesForEachSchemeWithOldXorNewComputedBesideTheOldBlock() throws Exception {
    for (String scheme : List.of("baseline", "cau", "rackcu")) {
      String dir = "/dn-rep-" + scheme;
      String src = "/incoming/dn-" + scheme;
      List<String> files = archiveDirOnPlan(dir);
      checks.write(src, BLOCK / 2 + 99);
      ToolRun plan = tool("replace", files.get(1), src, "--dry-run", "--json", "--scheme", scheme);
      assertEquals(0, plan.exit(), plan.out() + plan.err());
      long expected = plannedCrossRackBytes(plan.json(), scheme);
      long before = sumOverDataNodes(RepairMetrics::updateRowBytesSentCrossRack);
      ToolRun r = toolNoGrace("replace", files.get(1), src, "--scheme", scheme, "--json");
      assertEquals(0, r.exit(), r.out() + r.err());
      checks.moved(src, files.get(1));
      assertEquals("datanode", r.json().get("executor").asText(), scheme + ": " + r.out());
      assertEquals(expected, sumOverDataNodes(RepairMetrics::updateRowBytesSentCrossRack) - before,
          scheme + ": " + plan.out());
      everythingChecksOut(manifestOf(dir));
    }
  }

  @Test
  void cauOnRacksHoldingDataAndGlobalParitiesRunsOnTheDataNodesThoughItsRelaysFeedEachOther() throws Exception {
    // UniLRC(alpha 1, z 2) by group per rack: rack A holds d0, its global p0 and local p2, rack B d1, p1 and p3. A file
    // of two blocks is the whole stripe; replacing it changes d0 and d1, and CAU's relay in each rack renews the
    // other rack's global parity: the two relays send to each other.
    String dir = "/cau-feeding";
    checks.write(dir + "/f", 2 * BLOCK - 100);
    ToolRun a = tool("archive", dir, "--code", "unilrc:alpha=1,z=2", "--placement", "unilrc", "--no-trim",
        "--encoder", "chain");
    assertEquals(0, a.exit(), a.out() + a.err());
    String src = "/incoming/cau-feeding";
    checks.write(src, 2 * BLOCK - 50);
    ToolRun plan = tool("replace", dir + "/f", src, "--dry-run", "--json", "--scheme", "cau");
    assertEquals(0, plan.exit(), plan.out() + plan.err());
    java.util.Set<String> relayHops = new java.util.HashSet<>();
    for (JsonNode t : plan.json().get("archives").get(0).get("stripes").get(0).get("plan").get("transfers")) {
      if (!t.get("from").has("unit") && !t.get("to").has("unit")) {
        relayHops.add(t.get("from").get("rack").asText() + ">" + t.get("to").get("rack").asText());
      }
    }
    assertTrue(relayHops.size() == 2 && relayHops.stream().allMatch(h -> relayHops.contains(
        h.substring(h.indexOf('>') + 1) + ">" + h.substring(0, h.indexOf('>')))), "relays feed each other: "
        + relayHops + " in " + plan.out());
    long expected = plannedCrossRackBytes(plan.json(), "cau");
    long before = sumOverDataNodes(RepairMetrics::updateRowBytesSentCrossRack);
    ToolRun r = toolNoGrace("replace", dir + "/f", src, "--scheme", "cau", "--json");
    assertEquals(0, r.exit(), r.out() + r.err());
    checks.moved(src, dir + "/f");
    assertEquals("datanode", r.json().get("executor").asText(), r.out());
    assertEquals(expected, sumOverDataNodes(RepairMetrics::updateRowBytesSentCrossRack) - before, plan.out());
    everythingChecksOut(manifestOf(dir));
  }

  @Test
  void aDataNodeFailingMidUpdateLeavesTheOldVersionAndRmFinishCompletesIt() throws Exception {
    List<String> files = archiveDir("/dn-fail");
    long archive = store.inodeOf(new Path("/dn-fail"));
    StripeManifest before = manifestOf("/dn-fail");
    long inode = store.inodeOf(new Path(files.get(3)));
    AtomicBoolean failed = new AtomicBoolean();
    TransportFaultInjector.set(new TransportFaultInjector() {
      @Override
      public void beforeSend(String node, String to, long repairId, int slice, io.netty.buffer.ByteBuf payload)
          throws java.io.IOException {
        // The first slice of a role's rows to another role (the replies to the updater are a few bytes at most).
        if (slice == 0 && payload.readableBytes() >= 1024 && !failed.getAndSet(true)) {
          throw new java.io.IOException("injected: " + node + " dies sending to " + to);
        }
      }
    });
    ToolRun r = toolNoGrace("rm", files.get(3), "--json");
    assertNotEquals(0, r.exit(), r.out());
    assertTrue(failed.get(), "the fault was injected");
    assertTrue(r.err().contains("127.0.0.1:"), "the error names a DataNode: " + r.err());
    TransportFaultInjector.set(null);
    assertEquals(before, store.find(archive), "the old version stays current");
    checks.removed(files.get(3)); // set aside at once, as for any rm
    everythingChecksOut(before);

    ToolRun finish = toolNoGrace("rm", "--finish", "--json");
    assertEquals(0, finish.exit(), finish.out() + finish.err());
    StripeManifest after = store.find(archive);
    assertEquals(1, after.version());
    assertEquals(List.of(), unitsOf(after, inode));
    JsonNode finished = java.util.stream.StreamSupport.stream(finish.json().get("archives").spliterator(), false)
        .filter(a -> a.get("archive").asText().equals("/dn-fail")).findFirst().orElseThrow();
    assertEquals(before.stripesOf(inode).length, finished.get("rolledBack").asInt(),
        "the failed update's version directory of each stripe: " + finish.out());
    assertEquals("datanode", finished.get("executor").asText(), finish.out());
    everythingChecksOut(after);
  }

  @Test
  void aDataNodeThatKnowsOnlyTheFirstVersionOfARoleLeavesTheUpdateToTheClientExecutor() throws Exception {
    List<String> files = archiveDir("/dn-older");
    long inode = store.inodeOf(new Path(files.get(3)));
    java.util.concurrent.atomic.AtomicInteger refused = new java.util.concurrent.atomic.AtomicInteger();
    TransportFaultInjector.set(new TransportFaultInjector() {
      @Override
      public void beforeScreen(String node, byte[] body) throws java.io.IOException {
        // What a DataNode that knows only version 1 of an update role does with a newer one: its parser refuses it.
        if (body.length > 1 && (body[0] & 0xff) == org.wideec.protocol.UpdateRoleRequest.KIND && body[1] > 1) {
          refused.incrementAndGet();
          org.wideec.protocol.WireCodec.requireKind(new java.io.DataInputStream(new java.io.ByteArrayInputStream(
              body)), org.wideec.protocol.MessageKind.UPDATE_ROLE, 1, 1, "an update role");
        }
      }
    });
    ToolRun r = toolNoGrace("rm", files.get(3), "--json");
    assertEquals(0, r.exit(), r.out() + r.err());
    assertTrue(refused.get() > 0, "the DataNodes were asked, and refused");
    checks.removed(files.get(3));
    JsonNode archive = java.util.stream.StreamSupport.stream(r.json().get("archives").spliterator(), false)
        .filter(a -> a.get("archive").asText().equals("/dn-older")).findFirst().orElseThrow();
    assertEquals("client", archive.get("executor").asText(), r.out());
    StripeManifest after = manifestOf("/dn-older");
    assertEquals(1, after.version());
    assertEquals(List.of(), unitsOf(after, inode));
    everythingChecksOut(after);
  }

  /** The stock-deleted member's old bytes are gone: its stripe is re-encoded on the DataNodes, nothing decoded. */
  @Test
  void aMemberDeletedByAStockRmIsReEncodedOutOfItsStripeOnTheDataNodesWithoutADecode() throws Exception {
    List<String> files = archiveDirOnPlan("/dn-stock");
    ReEncodings planned = reEncodings(manifestOf("/dn-stock"), inodeOf(files.get(1)), true);
    long[] counters = chainCounters();
    stockRmReconciled("/dn-stock", files); // "executor":"datanode": no stripe fell back to the client's decode
    assertEquals(planned.crossRackBytes(), chainCrossRackSince(counters, planned.replyBytes()),
        "the chain's streams and deliveries across racks against the plan: " + planned.described());
  }

  @Test
  void manyRemovedUnitsOfAStripeAreReEncodedOnTheDataNodesWhenThatCrossesRacksLess() throws Exception {
    List<String> files = archiveDirOnPlan("/dn-many");
    StripeManifest before = manifestOf("/dn-many");
    // f0, f1 and f2 are units 0-3 of stripe 0: two of its six data units stay.
    List<String> removed = List.of(files.get(0), files.get(1), files.get(2));
    for (String f : removed) {
      assertTrue(unitsOf(before, store.inodeOf(new Path(f))).stream().allMatch(u -> u.startsWith("0:")), f);
    }
    ToolRun plan = tool("rm", removed.get(0), removed.get(1), removed.get(2), "--scheme", "baseline", "--dry-run",
        "--json");
    assertEquals(0, plan.exit(), plan.out() + plan.err());
    JsonNode stripe0 = plan.json().get("archives").get(0).get("stripes").get(0);
    assertTrue(stripe0.get("plan").get("reEncode").asBoolean(), "the dry run re-encodes: " + plan.out());
    assertEquals("chain", stripe0.get("plan").get("encoder").asText(), plan.out());
    ReEncodings planned = reEncodings(before, removed.stream().map(f -> inodeOf(f)).toList(), false);
    assertEquals(planned.crossRackBytes(), stripe0.get("crossRackBytes").asLong(), "the dry run prints what runs");
    long[] counters = chainCounters();
    long rows = sumOverDataNodes(RepairMetrics::updateRowBytesSent);
    ToolRun r = toolNoGrace("rm", removed.get(0), removed.get(1), removed.get(2), "--scheme", "baseline", "--json");
    assertEquals(0, r.exit(), r.out() + r.err());
    removed.forEach(checks::removed);
    assertEquals("datanode", r.json().get("executor").asText(), r.out());
    assertEquals(rows, sumOverDataNodes(RepairMetrics::updateRowBytesSent), "no delta rows were sent");
    assertEquals(planned.crossRackBytes(), chainCrossRackSince(counters, planned.replyBytes()),
        "the chain's streams and deliveries across racks against the plan: " + planned.described());
    everythingChecksOut(manifestOf("/dn-many"));
  }

  /**
   * The product sweep's crossover ({@code bench update --product --quick}: RS(6,3) placed with combined locality, data
   * 0-2 in one rack, 3-5 in another, the parities in a third), 4 of the stripe's 6 units removed under RackCU. Where
   * the 2 kept units share a rack the chain crosses once with 3 rows against RackCU's 4 deltas; where they are in two
   * racks it crosses twice (6). In both the updater (re-encoding when cheaper, the default) runs what the update
   * model decides on the stripe's pattern ({@link org.wideec.update.ReEncoding} against RackCU): the model used to
   * price both at 2 units (the kept units read into the parity rack) and say re-encode where the updater did not.
   */
  @Test
  void atTheProductSweepsCrossoverTheUpdaterReEncodesExactlyWhereTheModelDecidesTo() throws Exception {
    long[] sizes = {BLOCK, BLOCK, BLOCK, BLOCK, BLOCK, BLOCK};
    for (boolean oneRackKept : List.of(true, false)) {
      String dir = "/dn-crossover-" + (oneRackKept ? "one-rack" : "two-racks");
      // In file order, the sweep's patterns. Grouped by racks the planner may give the blocks data units in any order
      // (racks of [d0, d1, d5] and [d2, d3, d4]); the model and the updater's choice agree on every such split
      // (UpdateChoiceTest).
      List<String> files = archiveDirOnPlan(dir, sizes, "--code", "rs:k=6,m=3", "--placement", "cl", "--grouping",
          "files");
      StripeManifest before = manifestOf(dir);
      org.wideec.archive.ArchivedStripe s = before.stripe(0);
      // Combined locality puts the data in two racks of three (which units in which the archiver decides by where
      // the blocks were) and the parities in a third.
      Map<String, List<Integer>> dataRacks = new java.util.TreeMap<>();
      for (int u = 0; u < 6; u++) {
        dataRacks.computeIfAbsent(s.member(u).plannedRack(), r -> new java.util.ArrayList<>()).add(u);
      }
      List<List<Integer>> racks = List.copyOf(dataRacks.values());
      assertEquals(List.of(3, 3), racks.stream().map(List::size).toList(), "data racks: " + dataRacks);
      Set<String> parityRacks = new HashSet<>();
      for (int u = 6; u < 9; u++) {
        parityRacks.add(s.member(u).plannedRack());
      }
      assertEquals(1, parityRacks.size(), "one parity rack: " + parityRacks);
      assertTrue(!dataRacks.containsKey(parityRacks.iterator().next()), "the parity rack holds no data");
      // Kept: the second rack's last two units, or the last unit of each rack.
      List<Integer> units = oneRackKept ? List.of(racks.get(0).get(0), racks.get(0).get(1), racks.get(0).get(2),
          racks.get(1).get(0)) : List.of(racks.get(0).get(0), racks.get(0).get(1), racks.get(1).get(0),
          racks.get(1).get(1));
      Map<Long, String> byInode = new HashMap<>();
      files.forEach(f -> byInode.put(inodeOf(f), f));
      List<String> removed = units.stream().map(u -> byInode.get(s.member(u).inodeId())).toList();
      List<Long> inodes = removed.stream().map(this::inodeOf).toList();
      org.wideec.archive.StripeUpdate up = org.wideec.archive.StripeUpdate.removing(s, new HashSet<>(inodes));
      boolean model = new org.wideec.update.UpdateChooser(new org.wideec.update.RackCu()).choose(up.pattern())
          .scheme().equals("reencode");
      String[] rm = {"rm", removed.get(0), removed.get(1), removed.get(2), removed.get(3), "--scheme", "rackcu",
          "--json"};
      String[] dry = Arrays.copyOf(rm, rm.length + 1);
      dry[rm.length] = "--dry-run";
      ToolRun plan = tool(dry);
      assertEquals(0, plan.exit(), plan.out() + plan.err());
      JsonNode stripe0 = plan.json().get("archives").get(0).get("stripes").get(0);
      assertEquals(model, stripe0.get("plan").get("reEncode").asBoolean(), "the updater's choice is the model's on "
          + up.pattern() + ": " + plan.out());
      assertEquals(oneRackKept, model, "the model re-encodes exactly where the kept units share a rack: "
          + up.pattern());
      awaitUpdateRowsQuiet();
      long rows = sumOverDataNodes(RepairMetrics::updateRowBytesSentCrossRack);
      long[] counters = chainCounters();
      ReEncodings chain = reEncodings(before, inodes, false);
      ToolRun r = toolNoGrace(rm);
      assertEquals(0, r.exit(), r.out() + r.err());
      removed.forEach(checks::removed);
      assertEquals("datanode", r.json().get("executor").asText(), r.out());
      long rowsSent = sumOverDataNodes(RepairMetrics::updateRowBytesSentCrossRack) - rows;
      if (model) {
        assertEquals(0, rowsSent, "re-encoded: no delta row crossed racks");
        assertEquals(chain.crossRackBytes(), chainCrossRackSince(counters, chain.replyBytes()),
            "the chain's streams and deliveries across racks against the plan: " + chain.described());
      } else {
        assertEquals(plannedCrossRackBytes(plan.json(), "rackcu"), rowsSent, "RackCU's deltas ran: " + plan.out());
        assertEquals(4 * BLOCK, rowsSent, "4 deltas into the parity rack");
      }
      everythingChecksOut(manifestOf(dir));
    }
  }

  @Test
  void aCrashAfterEveryStepOfAReEncodingOnTheDataNodesIsRolledBackBeforeTheCommitAndForwardAfterIt()
      throws Exception {
    List<String> steps = List.of("locked", "planned", "parity-written", "verified", "committed", "freed");
    for (String step : steps) {
      String dir = "/dn-crash-" + step;
      List<String> files = archiveDirOnPlan(dir);
      long archive = store.inodeOf(new Path(dir));
      StripeManifest before = manifestOf(dir);
      long inode = store.inodeOf(new Path(files.get(1)));
      checks.delete(files.get(1)); // hdfs dfs -rm behind wide-ec's back
      boolean committed = crashesAfter(step, steps, archive, before,
          crash -> updater(0, crash).reconcile(List.of(new Path(dir))));
      ParityUpdater.Result r = updater(0, ParityUpdater.Hook.NONE).reconcile(List.of(new Path(dir))).get(0);
      boolean wroteParity = steps.indexOf(step) >= steps.indexOf("parity-written") && !committed;
      assertEquals(wroteParity ? 1 : 0, r.rolledBack(), step + ": the crashed run's version directory");
      if (!committed) {
        assertEquals("datanode", r.executor(), step);
      }
      recoveredAsVersion1(step, archive, inode);
    }
  }

  private long inodeOf(String path) {
    try {
      return store.inodeOf(new Path(path));
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /**
   * The re-encodings removing these inodes from their stripes make, each on its stripe's planned nodes (where the
   * DataNodes run it: the files were archived on plan): what crosses racks, and the replies the updater gets over
   * the slice ports (one result frame per tree that stores a parity, one CRC32C digest per new parity read back).
   *
   * @param gone the inodes were deleted by a stock client (else set aside by wide-ec rm, baseline scheme)
   */
  ReEncodings reEncodings(StripeManifest m, long inode, boolean gone) {
    return reEncodings(m, List.of(inode), gone);
  }

  ReEncodings reEncodings(StripeManifest m, List<Long> inodes, boolean gone) {
    long bytes = 0;
    long replies = 0;
    StringBuilder text = new StringBuilder();
    java.util.Set<Long> removed = new java.util.HashSet<>(inodes);
    for (org.wideec.archive.ArchivedStripe s : m.stripes()) {
      if (s.members().stream().noneMatch(x -> !x.padding() && removed.contains(x.inodeId()))) {
        continue;
      }
      org.wideec.archive.StripeUpdate up = org.wideec.archive.StripeUpdate.removing(s, removed);
      org.wideec.archive.UpdateChoice choice = org.wideec.archive.UpdateChoice.of(up, gone
          ? new org.wideec.update.RackCu() : new org.wideec.update.BaselineUpdate(), gone ? removed : java.util.Set.of(),
          org.wideec.archive.encode.EncodePlan.Shape.CHAIN);
      assertTrue(choice.reEncodes(), "stripe " + s.stripeId() + " is re-encoded");
      org.wideec.archive.encode.EncodePlan p = choice.reEncode();
      java.util.Set<Integer> rewritten = new java.util.HashSet<>();
      java.util.Arrays.stream(up.rewrittenParities()).forEach(rewritten::add);
      bytes += p.crossRackBytes();
      for (org.wideec.archive.encode.EncodePlan.Tree t : p.trees()) {
        replies += org.wideec.protocol.EncodeTreeRequest.resultLength(
            (int) java.util.Arrays.stream(t.rows()).filter(rewritten::contains).count());
      }
      replies += 8L * rewritten.size();
      text.append(p.describe());
    }
    return new ReEncodings(bytes, replies, text.toString());
  }

  /** What re-encodings cross racks, the updater's replies over the slice ports, and the plans as text. */
  record ReEncodings(long crossRackBytes, long replyBytes, String described) {}

  /** The DataNodes' cross-rack counters a chain moves: slice bytes sent, parities delivered. */
  long[] chainCounters() {
    return new long[] {sumOverDataNodes(RepairMetrics::bytesSentCrossRack),
        sumOverDataNodes(RepairMetrics::encodeParityBytesCrossRack)};
  }

  /**
   * The chain's bytes across racks since {@code before}: the slice bytes the DataNodes sent to other racks less the
   * replies to the updater (in no rack), plus the parities their collectors delivered to other racks.
   */
  long chainCrossRackSince(long[] before, long replyBytes) {
    long[] now = chainCounters();
    return now[0] - before[0] - replyBytes + now[1] - before[1];
  }

  /**
   * As {@link #archiveDir}, by the chain encoder, which first moves every data block onto its planned node: the
   * holders are the plan's, so the plan an update prints is the one whose traffic the DataNodes count.
   */
  List<String> archiveDirOnPlan(String dir) throws Exception {
    return archiveDirOnPlan(dir, SIZES, "--code", CODE);
  }

  /** As {@link #archiveDirOnPlan(String)}, files of these sizes archived with these options. */
  List<String> archiveDirOnPlan(String dir, long[] sizes, String... options) throws Exception {
    List<String> files = new java.util.ArrayList<>();
    for (int i = 0; i < sizes.length; i++) {
      files.add(dir + "/f" + i);
      checks.write(dir + "/f" + i, sizes[i]);
    }
    List<String> args = new java.util.ArrayList<>(List.of("archive", dir));
    args.addAll(List.of(options));
    args.addAll(List.of("--no-trim", "--encoder", "chain"));
    ToolRun r = tool(args.toArray(new String[0]));
    assertEquals(0, r.exit(), r.out() + r.err());
    // The chain's moves onto plan each leave an excess replica for the NameNode to delete: a dry run and its run made
    // while that settles may read a unit in different racks (seen: the dry run found unit 1 only off its rack, the
    // run on it, one chunk fewer across racks than planned).
    org.apache.hadoop.hdfs.server.blockmanagement.BlockManager bm = cluster.getNamesystem().getBlockManager();
    await("the archive's moves in " + dir + " settled", () -> bm.getPendingDeletionBlocksCount() == 0
        && bm.getExcessBlocksCount() == 0 && bm.getPendingReconstructionBlocksCount() == 0);
    return files;
  }

  /** An {@code rm} run on the DataNodes: its dry run, the run, and the row bytes the DataNodes sent across racks. */
  record RmOnDataNodes(ToolRun plan, ToolRun run, long crossRackBytes) {}

  /**
   * {@code rm} of the files (set aside in {@code checks}) under the scheme's delta plan (re-encoding when cheaper off,
   * so the scheme's own plan runs), after its dry run: it runs on the DataNodes and they deliver across racks exactly
   * the dry run's cross-rack chunks times the unit length.
   */
  RmOnDataNodes rmOnDataNodes(String scheme, String... files) throws Exception {
    List<String> args = new java.util.ArrayList<>(List.of("rm"));
    args.addAll(List.of(files));
    args.addAll(List.of("--scheme", scheme, "--json"));
    List<String> dry = new java.util.ArrayList<>(args);
    dry.add("--dry-run");
    // A copy of the tool's configuration: a -D option would change the class's own for every later test.
    Configuration deltaOnly = new Configuration(conf);
    deltaOnly.setBoolean(ParityUpdater.REENCODE_KEY, false);
    ToolRun plan = ToolRun.of(deltaOnly, dry.toArray(new String[0]));
    assertEquals(0, plan.exit(), plan.out() + plan.err());
    long expected = plannedCrossRackBytes(plan.json(), scheme);
    awaitUpdateRowsQuiet();
    long before = sumOverDataNodes(RepairMetrics::updateRowBytesSentCrossRack);
    deltaOnly.setLong(ParityUpdater.GRACE_KEY, 0);
    ToolRun r = ToolRun.of(deltaOnly, args.toArray(new String[0]));
    assertEquals(0, r.exit(), r.out() + r.err());
    for (String f : files) {
      checks.removed(f);
    }
    assertEquals("datanode", r.json().get("executor").asText(), scheme + ": " + r.out() + r.err());
    long sent = sumOverDataNodes(RepairMetrics::updateRowBytesSentCrossRack) - before;
    assertEquals(expected, sent, scheme + ": rows delivered across racks against the plan: " + plan.out()
        + "\nthe run: " + r.out());
    return new RmOnDataNodes(plan, r, sent);
  }

  /**
   * Waits until no DataNode has sent an update row for a second: the roles of an earlier test's update whose updater
   * was killed at a step run on to their end on the DataNodes, and their rows would be counted as this run's.
   */
  void awaitUpdateRowsQuiet() throws InterruptedException {
    long last = sumOverDataNodes(RepairMetrics::updateRowBytesSent);
    long deadline = System.nanoTime() + 60_000_000_000L;
    for (int quiet = 0; quiet < 4; ) {
      assertTrue(System.nanoTime() < deadline, "DataNodes still sending update rows after 60 s");
      Thread.sleep(250);
      long now = sumOverDataNodes(RepairMetrics::updateRowBytesSent);
      quiet = now == last ? quiet + 1 : 0;
      last = now;
    }
  }

  /** The dry run's cross-rack chunks times each stripe's unit length, summed over the stripes updated. */
  static long plannedCrossRackBytes(JsonNode dryRun, String scheme) {
    long bytes = 0;
    for (JsonNode a : dryRun.get("archives")) {
      for (JsonNode s : a.get("stripes")) {
        if (!s.get("dropped").asBoolean()) {
          assertEquals(scheme, s.get("plan").get("scheme").asText());
          bytes += s.get("plan").get("crossRackChunks").asLong() * s.get("unitLength").asLong();
        }
      }
    }
    return bytes;
  }

}
