package org.wideec.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.wideec.code.Codes;
import org.wideec.code.LinearCode;
import org.wideec.placement.CombinedLocalityPlanner;
import org.wideec.placement.PlacementPlan;
import org.wideec.protocol.EncodeTreeRequest;
import org.wideec.protocol.UpdateRoleRequest;
import org.wideec.repair.BlockRef;
import org.wideec.repair.MemoryUnitStore;
import org.wideec.repair.ReplicaAccess;
import org.wideec.repair.SliceSink;
import org.wideec.topology.Endpoint;
import org.wideec.topology.Site;
import org.wideec.transport.SliceTransport;
import org.wideec.transport.TrafficShaper;
import org.wideec.transport.TransportFaultInjector;
import org.wideec.transport.TransportConf;
import org.wideec.update.Place;
import org.wideec.update.RackSeparatedPlacement;
import org.wideec.update.UpdateExecution;
import org.wideec.update.UpdatePattern;
import org.wideec.update.UpdatePlan;
import org.wideec.update.UpdateRoles;
import org.wideec.update.UpdateScheme;

/**
 * Update roles on real slice transports (one node per unit, racks per the placement): the new parities equal the
 * reference executor's, and the rows delivered across racks are exactly the plan's cross-rack chunks.
 */
class UpdateRoleServiceTest {
  private static final byte[] SECRET = "a cluster secret for tests".getBytes(StandardCharsets.UTF_8);
  private static final String POOL = "BP-test";
  private static final int SLICE = 1024;
  private static final long REPLACEMENT = 1000;
  /** The memory sinks ignore where a parity block was allocated. */
  private static final EncodeTreeRequest.TargetNode TARGET = new EncodeTreeRequest.TargetNode("127.0.0.1", "localhost",
      "uuid", 1, 2, 3, 4, "DISK", "storage");

  private final Map<String, SliceTransport> transports = new HashMap<>();
  private final Map<String, AtomicLong[]> sent = new ConcurrentHashMap<>(); // node -> {in rack, cross rack}
  private final Map<Long, byte[]> written = new ConcurrentHashMap<>(); // new parity block id -> bytes
  private final ExecutorService workers = Executors.newCachedThreadPool();
  private SliceTransport updater;
  /** What the nodes started next get: the DataNodes they may dial, their update memory. */
  private UpdateRoleService.Peers peers = named -> {};
  private long memory = UpdateRoleService.MEMORY_DEFAULT;
  /** How long a parity's new block takes to open for writing on the nodes started next. */
  private long parityOpenDelayMs;

  @AfterEach
  void tearDown() {
    TransportFaultInjector.set(null);
    transports.values().forEach(SliceTransport::close);
    if (updater != null) {
      updater.close();
    }
    workers.shutdownNow();
  }

  @Test
  void rs12_4RackCuOnTheDataNodesRenewsEveryParityAndCrossesRacksExactlyThePlansChunks() throws Exception {
    PlacementPlan placement = RackSeparatedPlacement.plan(Codes.pinnedFromSpec("rs:k=12,m=4"), 2);
    UpdatePattern p = UpdatePattern.of(placement, 0, 1, 2, 5, 9);
    long rackcu = runAndCheck(p, "rackcu", 5000, 21L);
    tearDownNodes();
    long baseline = runAndCheck(p, "baseline", 5000, 21L);
    assertTrue(rackcu < baseline, rackcu + " cross-rack bytes for rackcu, " + baseline + " for the baseline");
  }

  @Test
  void azureLrcOnCombinedLocalityRenewsGlobalAndLocalParitiesForEveryStreamedScheme() throws Exception {
    PlacementPlan placement = new CombinedLocalityPlanner().plan(Codes.pinnedFromSpec("azure-lrc:k=12,l=2,g=2"));
    for (String scheme : new String[] {"rackcu", "baseline", "cau"}) {
      runAndCheck(UpdatePattern.of(placement, 0, 3, 7, 11), scheme, 3 * SLICE + 17, 22L);
      tearDownNodes();
    }
  }

  @Test
  void aFillComputesEachSlotsDeltaFromItsNewBlockAloneAndAParityComingOnFromItsDeltaAlone() throws Exception {
    PlacementPlan placement = new CombinedLocalityPlanner().plan(Codes.pinnedFromSpec("azure-lrc:k=12,l=2,g=2"));
    // Units 3 and 7 and parity 14 were virtual: their old content is zeros held in no block, which no node holds
    // (a role that read one would fail); unit 0 is an ordinary replacement beside them.
    for (String scheme : new String[] {"rackcu", "baseline", "cau"}) {
      runAndCheck(UpdatePattern.of(placement, 0, 3, 7), scheme, 2 * SLICE + 5, 27L, Set.of(3, 7, 14));
      tearDownNodes();
    }
  }

  @Test
  void aRoleWaitingOnASlowFirstHopKeepsTheUpdaterWaitingUntilItsRowsArrive() throws Exception {
    // Each parity's write pipeline opens slowly, then the first slice of every transfer between roles is held back:
    // a parity role hears nothing for two thirds of the stall timeout, twice over, while each of its own waits is
    // shorter than the timeout. Without keep-alives the updater gives it up as stalled.
    long hold = 2 * conf().stallTimeoutMs() / 3;
    parityOpenDelayMs = hold;
    TransportFaultInjector.set(new TransportFaultInjector() {
      @Override
      public void beforeSend(String node, String to, long repairId, int slice, io.netty.buffer.ByteBuf payload) {
        if (slice == 0 && payload.readableBytes() >= SLICE / 2 && !to.equals("updater")) {
          try {
            Thread.sleep(hold);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        }
      }
    });
    PlacementPlan placement = RackSeparatedPlacement.plan(Codes.pinnedFromSpec("rs:k=12,m=4"), 2);
    runAndCheck(UpdatePattern.of(placement, 0, 1, 2, 5, 9), "rackcu", 2 * SLICE, 29L);
  }

  @Test
  void cauOnRacksHoldingDataAndParityStreamsThoughItsRelaysFeedEachOther() throws Exception {
    // UniLRC's group per rack: each rack's relay renews the other racks' global parities and takes theirs in turn.
    PlacementPlan placement = new org.wideec.placement.GroupPerRackPlanner(1).plan(
        Codes.fromSpec("unilrc:alpha=1,z=3"));
    UpdatePattern p = UpdatePattern.of(placement, 0, 4);
    UpdateRoles roles = UpdateRoles.of(UpdateScheme.byName("cau").plan(p));
    assertTrue(roles.roles().stream().anyMatch(r -> r.outputs().stream().anyMatch(o -> roles.role(o.to()).outputs()
        .stream().anyMatch(back -> back.to().equals(r.place())))), "two relays send to each other");
    runAndCheck(p, "cau", 3 * SLICE + 11, 30L);
  }

  @Test
  void aDeadRelayFailsTheUpdateNamingANodeAndWritesNoParity() throws Exception {
    PlacementPlan placement = RackSeparatedPlacement.plan(Codes.pinnedFromSpec("rs:k=12,m=4"), 2);
    UpdatePattern p = UpdatePattern.of(placement, 0, 1, 2, 5, 9);
    UpdatePlan plan = UpdateScheme.byName("rackcu").plan(p);
    UpdateRoles roles = UpdateRoles.of(plan);
    Setup s = setup(p, 4 * SLICE, 23L);
    Place collector = Place.relay(plan.collectorRacks()[0]);
    String dead = s.nodes.get(collector).site().node();
    transports.remove(dead).close();
    Map<Place, UpdateRoleRequest> reqs = UpdateCoordinator.requests(roles, 7L, "stripe 1", SLICE, s.length, s.nodes,
        s.blocks);
    IOException e = assertThrows(IOException.class, () -> UpdateCoordinator.run(reqs, s.nodes, this::dial));
    assertTrue(e.getMessage().contains(dead), e.getMessage());
    // Every global parity needs the collector's rows: none was finished.
    assertEquals(Map.of(), written);
  }

  @Test
  void aRoleThatWouldDialANodeOutsideTheClusterIsRefusedAndNoParityIsWritten() throws Exception {
    peers = named -> {
      if (!named.isEmpty()) { // a role with inputs dials; a data unit's own delta dials nobody
        throw new IOException(named.get(0) + " is not one of the cluster's DataNodes");
      }
    };
    IOException e = assertThrows(IOException.class, () -> runRackCu(24L));
    assertTrue(e.getMessage().contains("is not one of the cluster's DataNodes"), e.getMessage());
    assertEquals(Map.of(), written);
  }

  @Test
  void aRoleOverItsNodesUpdateMemoryIsRefusedAsBusyNamingTheKey() throws Exception {
    memory = 4 * SLICE; // less than any role's held rows, working slices and windows
    IOException e = assertThrows(IOException.class, () -> runRackCu(25L));
    assertTrue(e.getMessage().contains("busy: role ") && e.getMessage().contains("of " + memory
        + " (wide-ec.update.datanode.memory.bytes)"), e.getMessage());
    assertEquals(Map.of(), written);
  }

  @Test
  void aRoleBufferingMoreThanItsBudgetOfFramesIsRefusedBeforeItAllocates() throws Exception {
    PlacementPlan placement = RackSeparatedPlacement.plan(Codes.pinnedFromSpec("rs:k=12,m=4"), 2);
    Setup s = setup(UpdatePattern.of(placement, 0), SLICE, 26L);
    // One own delta sent on 255 transfers in frames of a whole max-frame each: 1 MiB x (4 + 5 x 255), over 1 GiB.
    java.util.List<UpdateRoleRequest.Output> outs = new java.util.ArrayList<>();
    for (int t = 0; t < 255; t++) {
      outs.add(new UpdateRoleRequest.Output(t, new int[][] {{1}}));
    }
    UpdateRoleRequest hostile = new UpdateRoleRequest(9L, "stripe 1", "d0@/r0", 1 << 20, SLICE,
        s.blocks.oldBlocks().get(0), null, java.util.List.of(), outs, null, null, null, 2, 512, null);
    Endpoint node = s.nodes.get(Place.unit(0, placement.rackOf(0)));
    org.wideec.transport.PeerStream stream = dial(node, hostile.toBytes());
    try {
      org.wideec.transport.PeerFailure f = assertThrows(org.wideec.transport.PeerFailure.class,
          () -> stream.nextOrEnd(0));
      assertTrue(f.getMessage().contains("buffers 1341128704 bytes of slices; a role at most 33554432 (32 frames of"
          + " wide-ec.transport.max-frame.bytes)"), f.getMessage());
    } finally {
      stream.close();
    }
  }

  @Test
  void aFetchFromAConnectionThatDidNotProveTheClusterSecretIsRefusedBeforeItWaitsForAnOutbox() {
    UpdateRoleService service = new UpdateRoleService(null, null, ReplicaAccess.OPEN, null, RepairCounters.NONE,
        named -> {}, UpdateRoleService.MEMORY_DEFAULT);
    byte[] fetch = new org.wideec.protocol.UpdateFetchRequest(0x5eC7e7L, 3, 2, SLICE, 4 * SLICE).toBytes();
    IOException e = assertThrows(IOException.class, () -> service.screen(fetch, false));
    assertEquals("only a DataNode that proved the cluster secret (wide-ec.transport.secret) may fetch an update role's"
        + " rows", e.getMessage());
  }

  @Test
  void aFetchFromAnotherDataNodeWithAGuessedKeyIsRefusedAndTheRowsGoToTheirConsumer() throws Exception {
    int length = 2 * SLICE + 3;
    Random rnd = new Random(28);
    byte[] old = new byte[length];
    byte[] next = new byte[length];
    rnd.nextBytes(old);
    rnd.nextBytes(next);
    Endpoint node = start("n0", "/r0", new ConcurrentHashMap<>(Map.of(0L, old, REPLACEMENT, next)));
    long updateKey = 0x5eC7e7L;
    long transferKey = 0x7a11e7L;
    UpdateRoleRequest role = new UpdateRoleRequest(updateKey, "stripe 1", "d0@/r0", SLICE, length,
        new BlockRef(POOL, 0, 1, length, null), new BlockRef(POOL, REPLACEMENT, 1, length, null), java.util.List.of(),
        java.util.List.of(new UpdateRoleRequest.Output(0, new int[][] {{1}}, "n9", transferKey)), null, null, null, 2,
        512, null);
    org.wideec.transport.PeerStream ordered = dial(node, role.toBytes());
    try {
      // Another DataNode (it proved the cluster secret) that knows the update's key guesses the transfer's.
      start("n5", "/r1", new ConcurrentHashMap<>());
      SliceTransport other = transports.get("n5");
      byte[] guessed = new org.wideec.protocol.UpdateFetchRequest(updateKey, 0, 1, SLICE, length, 0x1234L).toBytes();
      try (org.wideec.transport.PeerStream intruder = other.open(node, "n5", "/r1", 1L, guessed)) {
        org.wideec.transport.PeerFailure f = assertThrows(org.wideec.transport.PeerFailure.class,
            () -> intruder.next(0));
        assertTrue(f.getMessage().contains("transfer 0 of an update at n0 refused to n5: the fetch does not prove the"
            + " key its consumer was given"), f.getMessage());
      }
      // Its consumer takes the rows: the delta, old XOR new.
      start("n9", "/r2", new ConcurrentHashMap<>());
      SliceTransport consumer = transports.get("n9");
      byte[] fetch = new org.wideec.protocol.UpdateFetchRequest(updateKey, 0, 1, SLICE, length, transferKey)
          .toBytes();
      byte[] got = new byte[length];
      try (org.wideec.transport.PeerStream rows = consumer.open(node, "n9", "/r2", 2L, fetch)) {
        for (int sl = 0; sl < 3; sl++) {
          int n = Math.min(SLICE, length - sl * SLICE);
          org.wideec.transport.Frame f = rows.next(sl, n);
          f.payload().getBytes(f.payload().readerIndex(), got, sl * SLICE, n);
          f.release();
          rows.credit();
        }
        rows.awaitEnd();
      }
      for (int b = 0; b < length; b++) {
        assertEquals((byte) (old[b] ^ next[b]), got[b], "byte " + b);
      }
      for (int i = 0; ; i++) { // the role's progress and result, then END: it finished
        org.wideec.transport.Frame f = ordered.nextOrEnd(i);
        if (f == null) {
          break;
        }
        f.release();
        ordered.credit();
      }
    } finally {
      ordered.close();
    }
  }

  private void runRackCu(long seed) throws Exception {
    PlacementPlan placement = RackSeparatedPlacement.plan(Codes.pinnedFromSpec("rs:k=12,m=4"), 2);
    UpdatePattern p = UpdatePattern.of(placement, 0, 1, 2, 5, 9);
    Setup s = setup(p, 4 * SLICE, seed);
    UpdateCoordinator.run(UpdateCoordinator.requests(UpdateRoles.of(UpdateScheme.byName("rackcu").plan(p)), seed,
        "stripe 1", SLICE, s.length, s.nodes, s.blocks), s.nodes, this::dial);
  }

  /** Runs one scheme's plan on the nodes; checks parities and exact cross-rack bytes; returns them. */
  private long runAndCheck(UpdatePattern p, String scheme, int length, long seed) throws Exception {
    return runAndCheck(p, scheme, length, seed, Set.of());
  }

  /** As {@link #runAndCheck(UpdatePattern, String, int, long)}, the {@code zeros} units' old content zeros. */
  private long runAndCheck(UpdatePattern p, String scheme, int length, long seed, Set<Integer> zeros)
      throws Exception {
    UpdatePlan plan = UpdateScheme.byName(scheme).plan(p);
    UpdateRoles roles = UpdateRoles.of(plan);
    Setup s = setup(p, length, seed, zeros);
    Map<Place, UpdateRoleRequest> reqs = UpdateCoordinator.requests(roles, new Random(seed).nextLong(),
        "stripe 1", SLICE, length, s.nodes, s.blocks);
    Map<Integer, EncodeTreeRequest.Stored> stored = UpdateCoordinator.run(reqs, s.nodes, this::dial);
    byte[][] expected = UpdateExecution.apply(plan, s.stripe, s.newData, new UpdateExecution.ParixLog());
    LinearCode code = p.code();
    assertArrayEquals(roles.rewrittenParities(), stored.keySet().stream().mapToInt(Integer::intValue).sorted()
        .toArray(), scheme);
    for (int u : roles.rewrittenParities()) {
      byte[] got = written.get(newParityBlock(u));
      assertArrayEquals(expected[u], got, scheme + " parity " + p.unitName(u));
      CRC32C crc = new CRC32C();
      crc.update(got);
      assertEquals(crc.getValue(), stored.get(u).crc32c(), scheme + " parity " + p.unitName(u));
      assertEquals(length, stored.get(u).length());
    }
    long cross = sent.values().stream().mapToLong(c -> c[1].get()).sum();
    assertEquals((long) plan.crossRackChunks() * length, cross, scheme + " on " + p);
    assertEquals(code.n(), expected.length);
    return cross;
  }

  private record Setup(byte[][] stripe, byte[][] newData, Map<Place, Endpoint> nodes,
      UpdateCoordinator.Blocks blocks, long length) {}

  /**
   * One node per unit ("n{u}" in its placement rack) holding its unit (block id = unit) and, for a changed unit, its
   * replacement (block id 1000 + unit); a rack's relay is the node of its first unit.
   */
  private Setup setup(UpdatePattern p, int length, long seed) throws IOException {
    return setup(p, length, seed, Set.of());
  }

  /** As {@link #setup(UpdatePattern, int, long)}; each unit of {@code zeros} is zeros and stored nowhere. */
  private Setup setup(UpdatePattern p, int length, long seed, Set<Integer> zeros) throws IOException {
    LinearCode code = p.code();
    Random rnd = new Random(seed);
    // Any old units will do: the reference executor, checked against fresh encodes in the model's tests, is the judge.
    byte[][] stripe = new byte[code.n()][length];
    for (int u = 0; u < code.n(); u++) {
      if (!zeros.contains(u)) {
        rnd.nextBytes(stripe[u]);
      }
    }
    byte[][] newData = new byte[code.k()][];
    Map<Integer, BlockRef> old = new HashMap<>();
    Map<Integer, BlockRef> next = new HashMap<>();
    Map<Integer, EncodeTreeRequest.ParityOutput> parities = new HashMap<>();
    Map<Place, Endpoint> nodes = new LinkedHashMap<>();
    for (int u = 0; u < code.n(); u++) {
      Map<Long, byte[]> blocks = new ConcurrentHashMap<>();
      if (!zeros.contains(u)) {
        blocks.put((long) u, stripe[u]);
        old.put(u, new BlockRef(POOL, u, 1, length, null));
      }
      if (u < code.k() && p.isChanged(u)) {
        newData[u] = new byte[length];
        rnd.nextBytes(newData[u]);
        blocks.put(REPLACEMENT + u, newData[u]);
        next.put(u, new BlockRef(POOL, REPLACEMENT + u, 1, length, null));
      }
      if (u >= code.k()) {
        parities.put(u, new EncodeTreeRequest.ParityOutput(u, new BlockRef(POOL, newParityBlock(u), 1, length, null),
            TARGET));
      }
      String node = "n" + u;
      String rack = "/r" + p.rackOf(u);
      Endpoint e = start(node, rack, blocks);
      nodes.put(Place.unit(u, p.rackOf(u)), e);
      nodes.putIfAbsent(Place.relay(p.rackOf(u)), e);
    }
    return new Setup(stripe, newData, nodes, new UpdateCoordinator.Blocks(old, next, parities, 2, 512, zeros), length);
  }

  private static long newParityBlock(int unit) {
    return 2000 + unit;
  }

  private Endpoint start(String node, String rack, Map<Long, byte[]> blocks) throws IOException {
    AtomicLong[] counts = {new AtomicLong(), new AtomicLong()};
    sent.put(node, counts);
    RepairCounters counters = new RepairCounters() {
      @Override
      public void updateRowsSent(long bytes, boolean crossRack) {
        counts[crossRack ? 1 : 0].addAndGet(bytes);
      }
    };
    SliceTransport t = new SliceTransport(conf(), node, counters, workers);
    long openDelay = parityOpenDelayMs;
    UpdateRoleService.ParityTargets targets = req -> {
      if (openDelay > 0) {
        try {
          Thread.sleep(openDelay);
        } catch (InterruptedException e) {
          throw new java.io.InterruptedIOException("opening the new parity block");
        }
      }
      return sink(req.newParity().block().blockId(), req.length());
    };
    t.start(new UpdateRoleService(t, new MemoryUnitStore(node, blocks), ReplicaAccess.OPEN, targets, counters,
        peers, memory));
    transports.put(node, t);
    return new Endpoint("127.0.0.1", t.port(), new Site(node, rack));
  }

  private SliceSink sink(long block, long length) {
    byte[] bytes = new byte[(int) length];
    return new SliceSink() {
      @Override
      public void write(long offset, byte[] data, int off, int len) {
        System.arraycopy(data, off, bytes, (int) offset, len);
      }

      @Override
      public void finish() {
        written.put(block, bytes);
      }

      @Override
      public void abort() {}
    };
  }

  private org.wideec.transport.PeerStream dial(Endpoint node, byte[] request) throws IOException {
    if (updater == null) {
      updater = new SliceTransport(conf(), "updater", RepairCounters.NONE, workers);
      updater.start((id, body, d) -> d.fail(null, "the updater serves nothing"));
    }
    return updater.open(node, "updater", "/client", new Random().nextLong(), request);
  }

  private void tearDownNodes() {
    transports.values().forEach(SliceTransport::close);
    transports.clear();
    sent.clear();
    written.clear();
  }

  private static TransportConf conf() {
    return new TransportConf("127.0.0.1", 0, SECRET, SLICE, 2, 1 << 20, 5000, 3000, TrafficShaper.OFF, null);
  }

}
