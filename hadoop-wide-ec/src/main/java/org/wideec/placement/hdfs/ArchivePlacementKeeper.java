package org.wideec.placement.hdfs;

import java.io.IOException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.StorageType;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.security.token.block.BlockTokenIdentifier;
import org.apache.hadoop.hdfs.security.token.block.BlockTokenSecretManager;
import org.apache.hadoop.hdfs.security.token.block.DataEncryptionKey;
import org.apache.hadoop.hdfs.server.blockmanagement.WideEcArchivedBlocks;
import org.apache.hadoop.hdfs.server.namenode.FSNamesystem;
import org.apache.hadoop.hdfs.server.namenode.NameNode;
import org.apache.hadoop.security.token.Token;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.wideec.config.ConfigValues;
import org.wideec.archive.ArchivedStripe;
import org.wideec.topology.Site;
import org.wideec.archive.PlanKeeping;
import org.wideec.archive.StripeMember;
import org.wideec.archive.StripeState;
import org.wideec.archive.hdfs.ArchiveLayout;
import org.wideec.archive.hdfs.BlockMover;
import org.wideec.repair.BlockRef;
import org.wideec.protocol.PinRequest;
import org.wideec.time.FailureBackoff;
import org.wideec.topology.hdfs.DataNodeSites;
import org.wideec.transport.Frame;
import org.wideec.transport.PeerStream;
import org.wideec.transport.hdfs.TokenBytes;

/**
 * Keeps archived replicas where their stripes' plans put them (DESIGN.md §3.2), in a thread of its
 * own on the active NameNode (never a NameNode handler; nothing escapes it). Every {@link #INTERVAL_KEY} ms it reads
 * the manifests ({@link ManifestReader}), looks each placed member up in the blocks map ({@link WideEcArchivedBlocks})
 * and does what {@link PlanKeeping} says:
 * <ul>
 *   <li><b>pins</b> each replica on its planned node that it has not confirmed pinned since this NameNode started
 *       (at most {@link #MAX_PINS_KEY} a pass, the rest on later passes; a replica no pass finds on plan any more is
 *       forgotten, so what the keeper holds is bounded by what the manifests hold, 8 bytes a replica):
 *       one {@link PinRequest} per DataNode (a batch) over the slice port, as a peer that proved the cluster secret,
 *       each block with a REPLACE token of this NameNode. A DataNode without {@code dfs.datanode.block-pinning.enabled}
 *       answers that pins are off there: one warning per DataNode, asked again after ten minutes;</li>
 *   <li><b>moves back</b> a block whose one replica is off plan, the Balancer's way ({@link BlockMover}: REPLACE_BLOCK
 *       to the target, the holder as proxy and delete hint, tokens minted here). The NameNode drops the hinted replica
 *       only once the new one is reported, and our replica policy keeps the moved one ({@code
 *       WideEcReplicaPlacementPolicy#keepMoved}), so the block never has fewer replicas than before. At most
 *       {@link #MAX_MOVES_KEY} at once; a failed move waits {@link #BACKOFF_KEY} ms, doubled on each further failure
 *       (an hour at most).</li>
 * </ul>
 * A moved-back replica is pinned on the next pass. Each move and each failure is one log line naming file, block,
 * stripe and manifest.
 */
final class ArchivePlacementKeeper extends ArchivePass {
  static final String ENABLED_KEY = "wide-ec.archive.keeper.enabled";
  static final String INTERVAL_KEY = "wide-ec.archive.keeper.interval.ms";
  static final long INTERVAL_DEFAULT = 60_000;
  static final String MAX_MOVES_KEY = "wide-ec.archive.keeper.max-concurrent-moves";
  static final int MAX_MOVES_DEFAULT = 2;
  static final String BACKOFF_KEY = "wide-ec.archive.keeper.backoff.ms";
  static final long BACKOFF_DEFAULT = 60_000;
  static final String MAX_PINS_KEY = "wide-ec.archive.keeper.max-pins-per-pass";
  static final int MAX_PINS_DEFAULT = 10_000;
  private static final long MAX_BACKOFF_MS = 3_600_000;
  private static final long PINNING_OFF_RECHECK_MS = 10 * 60_000L;
  private static final Logger LOG = LoggerFactory.getLogger(ArchivePlacementKeeper.class);

  private final WideEcNameNodeMetrics metrics;
  private final int maxMoves;
  private final int maxPins;
  private final long interval;
  /** Replicas confirmed pinned that the last pass still found on plan; at most {@link #MAX_PINS_KEY} new a pass. */
  private final PinLedger pinned;
  /** DataNodes that said pins are off there: when to ask again (nanoTime). */
  private final Map<String, Long> pinningOff = new HashMap<>();
  /** Blocks that cannot be moved back, reported once each while it stays so. */
  private final Set<Long> stuckReported = new HashSet<>();
  private final Set<Long> inFlight = ConcurrentHashMap.newKeySet();
  /** Blocks whose last move failed, and when to try each again. */
  private final FailureBackoff<Long> backingOff;
  private volatile BlockMover mover;

  /** One replica to pin, and what to name in a log line. */
  private record ToPin(StripeMember member, String where) {}

  /** @throws IOException when the slice transport's settings are wrong (no cluster secret, say) */
  ArchivePlacementKeeper(NameNode nn, FSNamesystem fsn, Configuration conf, WideEcNameNodeMetrics metrics,
      long interval) throws IOException {
    super(nn, fsn, conf, interval, checkedMoves(conf), "archive placement keeper", LOG, true);
    this.metrics = metrics;
    this.interval = interval;
    this.maxMoves = maxMoves(conf);
    this.backingOff = new FailureBackoff<>(ConfigValues.positiveMillis(conf, BACKOFF_KEY, BACKOFF_DEFAULT),
        MAX_BACKOFF_MS);
    this.maxPins = maxPins(conf);
    this.pinned = new PinLedger(maxPins);
  }

  /**
   * The settings checked before anything starts; the number of moves at once.
   *
   * @throws IllegalArgumentException naming the key whose value is not positive
   */
  private static int checkedMoves(Configuration conf) {
    ConfigValues.positiveMillis(conf, BACKOFF_KEY, BACKOFF_DEFAULT);
    maxPins(conf);
    return maxMoves(conf);
  }

  private static int maxMoves(Configuration conf) {
    return ConfigValues.intIn(conf, MAX_MOVES_KEY, MAX_MOVES_DEFAULT, 1, Integer.MAX_VALUE);
  }

  private static int maxPins(Configuration conf) {
    return ConfigValues.intIn(conf, MAX_PINS_KEY, MAX_PINS_DEFAULT, 1, Integer.MAX_VALUE);
  }

  void start() {
    start("wide-ec archive placement keeper: archived replicas on plan are pinned, and blocks off plan moved back ("
        + maxMoves + " at once), every " + interval + " ms");
  }

  @Override
  void stop() {
    super.stop();
    BlockMover m = mover;
    if (m != null) {
      m.close();
    }
  }

  /** This pass: live DataNodes as move targets, pins to send per DataNode, blocks found stuck. */
  private List<Site> targets;
  private Map<String, List<ToPin>> pins;
  private Set<Long> stuckNow;

  @Override
  void beginPass(Map<String, WideEcArchivedBlocks.Target> live) throws IOException {
    if (mover == null) {
      mover = new BlockMover(manifests.fs(), new NameNodeKeys(fsn));
    }
    targets = live.values().stream().map(t -> DataNodeSites.of(t.node()))
        .toList();
    pins = new HashMap<>();
    stuckNow = new HashSet<>();
    pinned.beginPass();
    long now = System.nanoTime();
    pinningOff.values().removeIf(until -> now - until > 0);
  }

  /** Pins what is on plan, starts moves of what is off it. */
  @Override
  void visit(ArchivedStripe s, String manifest, Map<String, WideEcArchivedBlocks.Target> live) {
    if (s.state() == StripeState.COMMITTED || s.state() == StripeState.TRIMMED) {
      examine(s, manifest, live, targets, pins, stuckNow);
    }
  }

  @Override
  void endPass(Map<String, WideEcArchivedBlocks.Target> live) {
    stuckReported.retainAll(stuckNow);
    for (Map.Entry<String, List<ToPin>> e : pins.entrySet()) {
      WideEcArchivedBlocks.Target t = live.get(e.getKey());
      if (t == null || pinningOff.containsKey(e.getKey())) {
        continue;
      }
      List<ToPin> all = e.getValue();
      for (int i = 0; i < all.size(); i += PinRequest.MAX_BLOCKS) {
        if (!pin(t.node(), all.subList(i, Math.min(all.size(), i + PinRequest.MAX_BLOCKS)))) {
          break;
        }
      }
    }
    pinned.endPass(); // forgets replicas this pass did not find on plan: deleted, unarchived or moved
    if (pinned.deferred() > 0) {
      LOG.info("wide-ec archive placement keeper: {} archived replicas left to pin on later passes ({} = {} a pass)",
          pinned.deferred(), MAX_PINS_KEY, maxPins);
    }
  }

  private void examine(ArchivedStripe s, String manifest, Map<String, WideEcArchivedBlocks.Target> live,
      List<Site> targets, Map<String, List<ToPin>> pins, Set<Long> stuckNow) {
    int[] stored = s.storedUnits();
    long[] ids = new long[stored.length];
    for (int i = 0; i < stored.length; i++) {
      ids[i] = s.member(stored[i]).blockId();
    }
    Map<Long, WideEcArchivedBlocks.BlockView> views = WideEcArchivedBlocks.view(fsn, ids);
    Map<Integer, PlanKeeping.Observed> now = new HashMap<>();
    for (int u : stored) {
      WideEcArchivedBlocks.BlockView v = views.get(s.member(u).blockId());
      if (v != null && s.member(u).blockId() != 0) {
        now.put(u, new PlanKeeping.Observed(v.complete() ? v.generationStamp() : -1, v.length(),
            v.live(), v.holders()));
      }
    }
    PlanKeeping.Actions a = PlanKeeping.of(s, now, targets);
    String where = "stripe " + s.stripeId() + " of manifest " + manifest;
    for (PlanKeeping.Pin p : a.pins()) {
      if (!pinningOff.containsKey(p.node()) && pinned.offer(p.node(), p.member().blockId())) {
        pins.computeIfAbsent(p.node(), n -> new ArrayList<>()).add(new ToPin(p.member(), where));
      }
    }
    for (PlanKeeping.Stuck st : a.stuck()) {
      long block = st.member().blockId();
      stuckNow.add(block);
      if (stuckReported.add(block)) {
        LOG.warn("archived block blk_{} of {} ({}, unit {}) is off plan on {} and stays there for now: {}", block,
            fileOf(st.member()), where, st.unit(), st.at(), st.why());
      }
    }
    for (PlanKeeping.MoveBack mv : a.moves()) {
      dispatch(mv, where, live);
    }
  }

  private void dispatch(PlanKeeping.MoveBack mv, String where, Map<String, WideEcArchivedBlocks.Target> live) {
    StripeMember m = mv.member();
    long block = m.blockId();
    if (inFlight.contains(block) || backingOff.waiting(block) || inFlight.size() >= maxMoves) {
      return;
    }
    DatanodeInfo source = WideEcArchivedBlocks.liveNodes(fsn).get(mv.from().node());
    WideEcArchivedBlocks.Target to = live.get(mv.to().node());
    if (source == null || to == null) {
      return; // gone since the look-up; the next pass sees the cluster as it is
    }
    String what = "archived block blk_" + block + " of " + fileOf(m) + " (" + where + ", unit " + mv.unit() + ")";
    BlockMover.Move move = new BlockMover.Move(ArchiveLayout.inodePath(m.inodeId()).toString(),
        new ExtendedBlock(fsn.getBlockPoolId(), block, m.length(), m.generationStamp()), source, to.storageType(),
        to.node());
    inFlight.add(block);
    try {
      workers.execute(() -> moveBack(move, mv, what));
    } catch (RejectedExecutionException e) {
      inFlight.remove(block); // stopping
    }
  }

  /**
   * On a mover thread: the Balancer's move, waited for until the NameNode lists the block on the target and has
   * dropped the source's replica, or has no excess replica to drop (BlockMover#move).
   */
  private void moveBack(BlockMover.Move move, PlanKeeping.MoveBack mv, String what) {
    long block = mv.member().blockId();
    try {
      mover.move(move);
      backingOff.succeeded(block);
      metrics.archivedBlocksMovedBack.incr();
      LOG.info("{} moved back onto plan: from {} ({}) to {} ({}), planned on {} in {}", what, mv.from().node(),
          mv.from().rack(), mv.to().node(), mv.to().rack(), mv.member().plannedNode(), mv.member().plannedRack());
    } catch (IOException | RuntimeException | LinkageError e) {
      metrics.archivedMoveBackFailures.incr();
      long next = backingOff.failed(block);
      LOG.warn("{} was not moved back onto plan (from {} to {}): {}; next attempt in {} ms", what, mv.from().node(),
          mv.to().node(), e.getMessage(), next);
    } finally {
      inFlight.remove(block);
    }
  }

  /** Sends one batch of pins to a DataNode; false when the node could not be asked (the rest waits a pass). */
  private boolean pin(DatanodeInfo node, List<ToPin> batch) {
    String addr = node.getXferAddr();
    BlockTokenSecretManager secrets = fsn.getBlockManager().getBlockTokenSecretManager();
    List<BlockRef> refs = new ArrayList<>(batch.size());
    List<PinRequest.Outcome> outcomes;
    try {
      for (ToPin p : batch) {
        StripeMember m = p.member();
        ExtendedBlock b = new ExtendedBlock(fsn.getBlockPoolId(), m.blockId(), m.length(), m.generationStamp());
        refs.add(new BlockRef(b.getBlockPoolId(), m.blockId(), m.generationStamp(), m.length(),
            secrets == null ? new byte[0] : TokenBytes.of(NameNodeKeys.token(secrets, b, StorageType.DEFAULT))));
      }
      PinRequest req = new PinRequest(refs);
      long id = java.util.concurrent.ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE;
      outcomes = endpoints.dial(node, new Site(addr, node.getNetworkLocation()), at -> {
        try (PeerStream stream = transport.open(at, "namenode", "", id, req.toBytes())) {
          Frame f = stream.next(0, refs.size());
          byte[] answer = new byte[refs.size()];
          try {
            f.payload().getBytes(f.payload().readerIndex(), answer);
          } finally {
            f.release();
            stream.credit();
          }
          stream.awaitEnd();
          return req.outcomes(answer);
        }
      });
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    } catch (IOException | RuntimeException e) {
      endpoints.forget(addr); // a restarted DataNode listens on a new slice port
      failed.warn("wide-ec could not pin {} archived replicas on {}: {}", batch.size(), addr, e.getMessage());
      return false;
    }
    for (int i = 0; i < outcomes.size(); i++) {
      ToPin p = batch.get(i);
      switch (outcomes.get(i)) {
        case PINNED, ALREADY_PINNED -> {
          pinned.confirm(addr, p.member().blockId());
          metrics.archivedBlocksPinned.incr();
        }
        case PINNING_OFF -> {
          pinningOff.put(addr, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(PINNING_OFF_RECHECK_MS));
          LOG.warn("DataNode {} holds archived replicas on plan but does not honour block pins"
              + " (dfs.datanode.block-pinning.enabled is false there): the Balancer or the Mover may move them off"
              + " plan; the NameNode moves them back, but set it to true on every DataNode", addr);
          return true;
        }
        case NOT_HELD -> { } // its block report is behind: asked again next pass
        case FAILED -> failed.warn("DataNode {} did not pin archived block blk_{} ({}); see its log", addr,
            p.member().blockId(), p.where());
      }
    }
    return true;
  }

  private String fileOf(StripeMember m) {
    String path = WideEcArchivedBlocks.pathOf(fsn, m.inodeId());
    String file = path == null ? "inode " + m.inodeId() + " (deleted)" : path;
    return m.isParity() ? "parity file " + file : file;
  }

  /** A move's authority minted by this NameNode, as its own Balancer KeyManager would be handed it. */
  private record NameNodeKeys(FSNamesystem fsn) implements BlockMover.Keys {
    static Token<BlockTokenIdentifier> token(BlockTokenSecretManager secrets, ExtendedBlock b, StorageType type)
        throws IOException {
      // REPLACE for the target, COPY for the proxy, which the target hands the same token.
      return secrets.generateToken(b, EnumSet.of(BlockTokenIdentifier.AccessMode.REPLACE,
          BlockTokenIdentifier.AccessMode.COPY), new StorageType[] {type}, new String[0]);
    }

    @Override
    public Token<BlockTokenIdentifier> replaceToken(ExtendedBlock block, StorageType targetType) throws IOException {
      BlockTokenSecretManager secrets = fsn.getBlockManager().getBlockTokenSecretManager();
      return secrets == null ? new Token<>() : token(secrets, block, targetType);
    }

    @Override
    public DataEncryptionKey newDataEncryptionKey() {
      return fsn.getBlockManager().generateDataEncryptionKey();
    }
  }
}
