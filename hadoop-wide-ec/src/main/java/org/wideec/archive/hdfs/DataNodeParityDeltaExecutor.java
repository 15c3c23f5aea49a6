package org.wideec.archive.hdfs;

import java.io.IOException;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.fs.Options.ChecksumOpt;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.StripeMember;
import org.wideec.archive.StripeUpdate;
import org.wideec.archive.UpdateChoice;
import org.wideec.archive.encode.EncodePlan;
import org.wideec.engine.UpdateCoordinator;
import org.wideec.engine.UpdateRoleBudget;
import org.wideec.protocol.EncodeTreeRequest;
import org.wideec.protocol.UpdateRoleRequest;
import org.wideec.repair.BlockRef;
import org.wideec.topology.Endpoint;
import org.wideec.transport.hdfs.TokenBytes;
import org.wideec.update.Place;
import org.wideec.update.UpdatePattern;
import org.wideec.update.UpdatePlan;
import org.wideec.update.UpdateRoles;
import org.wideec.update.UpdateScheme;

/**
 * The new parity of a stripe update computed by the DataNodes, as the chosen scheme's plan says (RackCU §III-A,
 * Algorithm 1; baseline and CAU alike): the node of each changed data unit reads its old block and its replacement
 * locally and computes the delta, the plan's relays sum and forward, and each rewritten parity's node reads its old
 * parity locally and writes the new parity into a new block allocated for it (a finalized replica is never
 * rewritten). No data byte passes through the updater: it allocates the blocks, orders every role
 * ({@link UpdateCoordinator}) with the READ and WRITE tokens the NameNode gave it, completes the parity files and
 * checks what each parity's node reads back against the CRC32C its role computed.
 *
 * <p>A fill runs here too: a virtual slot's old content is zeros held in no block, so its role is told so and takes
 * its delta from the new block alone, and a parity the fill brings on is its delta alone, written into its new block.
 *
 * <p>So do CAU's relays that feed each other (racks holding both changed data and parities: each sends a transfer
 * once the rows it combines arrived), and a unit length that changes (every unit is zero past its end, so the roles
 * read zero-padded blocks at the new length, and a parity the changed units do not touch is carried over to it on its
 * own node).
 *
 * <p>A stripe {@link UpdateChoice} re-encodes (a member deleted behind wide-ec's back, whose old bytes are gone; or
 * re-encoding crossing racks less than the plan) is re-encoded on the DataNodes by the archival chain
 * ({@link ChainReEncoder}) into the same new parity blocks, the removed units as zeros.
 *
 * <p>A stripe whose update the plan cannot carry falls back to the client executor for that stripe, saying why:
 * parities the plan does not reach, or a replacement not beside the block it replaces. A failure of a role or of a
 * chain's tree fails the update with an IOException naming the node; the lifecycle rolls back before the commit.
 */
final class DataNodeParityDeltaExecutor implements ParityDeltaExecutor {
  private static final Logger LOG = LoggerFactory.getLogger(DataNodeParityDeltaExecutor.class);
  private final DistributedFileSystem dfs;
  private final UpdateScheme scheme;
  private final SlicePortClient ports;
  private final ParityFiles files;
  private final UpdatedParities parities;
  private final ParityDeltaWriter fallback;
  private final EncodePlan.Shape shape;
  private final boolean reEncodeWhenCheaper;
  private ChainReEncoder reEncoder;
  private final SecureRandom keys = new SecureRandom();
  private boolean ranOnDataNodes;
  private long read;
  private long written;
  private boolean fellBack;
  private BlockMover mover;

  DataNodeParityDeltaExecutor(DistributedFileSystem dfs, UpdateScheme scheme, SlicePortClient ports,
      ParityDeltaWriter fallback, boolean reEncodeWhenCheaper) {
    this.dfs = dfs;
    this.scheme = scheme;
    this.ports = ports;
    this.files = new ParityFiles(dfs);
    this.parities = new UpdatedParities(dfs, files, ports);
    this.fallback = fallback;
    this.shape = ChainEncoder.shapeOf(dfs.getConf());
    this.reEncodeWhenCheaper = reEncodeWhenCheaper;
  }

  /**
   * The executor {@link ParityUpdater#EXECUTOR_KEY} names: the DataNodes' unless the updater cannot reach their slice
   * ports (then the client's, the reason logged).
   *
   * @throws IllegalArgumentException naming the key when its value is neither datanode nor client
   */
  static ParityDeltaExecutor choose(DistributedFileSystem dfs, UpdateScheme scheme, int chunkBytes,
      boolean reEncodeWhenCheaper) {
    ParityDeltaWriter client = new ParityDeltaWriter(dfs, chunkBytes);
    String v = dfs.getConf().getTrimmed(ParityUpdater.EXECUTOR_KEY, ParityUpdater.EXECUTOR_DEFAULT)
        .toLowerCase(java.util.Locale.ROOT);
    switch (v) {
      case "client" -> {
        return client;
      }
      case "datanode" -> {
        try {
          return new DataNodeParityDeltaExecutor(dfs, scheme, new SlicePortClient(dfs.getConf()), client,
              reEncodeWhenCheaper);
        } catch (IOException | IllegalArgumentException e) {
          LOG.warn("parity updates run in this process (client executor): the DataNodes' slice ports cannot be"
              + " used from here: {}", e.getMessage());
          return client;
        }
      }
      default -> throw new IllegalArgumentException(ParityUpdater.EXECUTOR_KEY + " must be datanode or client, got '"
          + v + "'");
    }
  }

  @Override
  public void close() {
    if (reEncoder != null) {
      reEncoder.close();
    }
    ports.close();
    if (mover != null) {
      mover.close();
    }
  }

  @Override
  public String name() {
    return !fellBack ? "datanode" : ranOnDataNodes ? "datanode+client" : "client";
  }

  @Override
  public long bytesRead() {
    return read + fallback.bytesRead();
  }

  @Override
  public long bytesWritten() {
    return written + fallback.bytesWritten();
  }

  @Override
  public Map<Integer, StripeMember> write(StripeUpdate up, long version, Set<Long> gone) throws IOException {
    ArchivedStripe s = up.before();
    String name = "stripe " + s.stripeId() + " update to version " + version;
    UpdateSources located = UpdateSources.located(dfs, up, gone);
    UpdateChoice choice = UpdateChoice.of(up, located.readRacks(), scheme, gone, shape, reEncodeWhenCheaper);
    if (choice.reEncodes()) {
      return reEncode(up, version, name, choice, gone);
    }
    UpdatePlan plan = choice.delta();
    String why = null;
    UpdateRoles roles = null;
    try {
      roles = UpdateRoles.of(plan);
    } catch (IllegalArgumentException e) {
      why = e.getMessage();
    }
    // The pattern drops the parities that vanish (a local group whose data all left), so the plan renews exactly
    // the parities the update rewrites, and when the unit length changes the others are carried over to it; a
    // disagreement would leave a parity stale or write one that is freed.
    if (why == null && !carried(roles, up)) {
      why = "its plan renews parities " + Arrays.toString(roles.rewrittenParities()) + ", the update rewrites "
          + Arrays.toString(up.rewrittenParities());
    }
    UpdateSources at = why == null ? located.placing(dfs, up, this::mover) : null;
    if (at != null && at.unplaced != null) {
      why = at.unplaced;
    }
    if (why == null) {
      why = noTokens(at.old.values().iterator().next(), name);
    }
    Map<Place, Endpoint> nodes = null;
    if (why == null) {
      try {
        nodes = nodes(plan.pattern(), roles, up, at);
      } catch (IOException e) {
        why = "the slice ports of the stripe's DataNodes cannot be found (is the wide-ec DataNode plugin running?): "
            + e.getMessage();
      }
    }
    if (why != null) {
      LOG.warn("{}: computed in the updater's process (client executor): {}", name, why);
      fellBack = true;
      return fallback.write(up, version, gone);
    }
    return run(up, version, name, plan, roles, at, nodes, gone);
  }

  /** Why the updater cannot prove anything to the DataNodes' slice ports (block tokens off), or null. */
  private String noTokens(LocatedBlock any, String name) {
    try {
      ports.requireToken(TokenBytes.of(any.getBlockToken()), name);
      return null;
    } catch (IOException e) {
      return "block tokens are off (dfs.block.access.token.enable): the updater has nothing to prove to the"
          + " DataNodes' slice ports";
    }
  }

  /**
   * The update re-encoded on the DataNodes ({@link ChainReEncoder}): the rewritten parities' new blocks allocated,
   * the chain's trees run, the parity files completed and read back; the client executor's when block tokens are off.
   */
  private Map<Integer, StripeMember> reEncode(StripeUpdate up, long version, String name, UpdateChoice choice,
      Set<Long> gone) throws IOException {
    ChainReEncoder.Sources at = ChainReEncoder.Sources.of(dfs, up, gone);
    String why = noTokens(at.blocks().values().iterator().next(), name);
    if (why != null) {
      LOG.warn("{}: computed in the updater's process (client executor): {}", name, why);
      fellBack = true;
      return fallback.write(up, version, gone);
    }
    long length = up.nextUnitLength();
    Map<Integer, ParityFiles.Allocated> allocated = parities.allocate(up, version, at.blockSize());
    if (reEncoder == null) {
      reEncoder = new ChainReEncoder(ports, files, shape);
    }
    Map<Integer, EncodeTreeRequest.Stored> stored = reEncoder.run(up, at, allocated,
        dfs.getClient().getConf().getDefaultChecksumOpt());
    ranOnDataNodes = true;
    Map<Integer, StripeMember> out = parities.finish(up, name, allocated, stored, at.blocks(), at.holders());
    EncodePlan ran = reEncoder.plans().get(reEncoder.plans().size() - 1);
    for (EncodePlan.Tree t : ran.trees()) {
      for (EncodePlan.Step step : t.steps()) {
        read += ran.stripe().dataLength(step.unit());
      }
    }
    written += (long) allocated.size() * length;
    LOG.info("{}: re-encoded on the DataNodes by the chain ({}), {} bytes across racks planned", name, choice.reason(),
        ran.crossRackBytes());
    return out;
  }

  /**
   * Whether the update rewrites the parities the plan renews and, only when the unit length changes, others (each
   * carried over to the new length by {@link UpdateCoordinator#requests}).
   */
  private static boolean carried(UpdateRoles roles, StripeUpdate up) {
    java.util.Set<Integer> rewritten = new java.util.TreeSet<>();
    Arrays.stream(up.rewrittenParities()).forEach(rewritten::add);
    boolean covered = Arrays.stream(roles.rewrittenParities()).allMatch(rewritten::contains);
    return covered && (rewritten.size() == roles.rewrittenParities().length
        || up.nextUnitLength() != up.before().unitLength());
  }

  private BlockMover mover() {
    if (mover == null) {
      mover = new BlockMover(dfs);
    }
    return mover;
  }

  /** Allocates the new parity blocks, orders the roles, completes and confirms the parity files. */
  private Map<Integer, StripeMember> run(StripeUpdate up, long version, String name, UpdatePlan plan,
      UpdateRoles roles, UpdateSources at, Map<Place, Endpoint> nodes, Set<Long> gone) throws IOException {
    ArchivedStripe s = up.before();
    long length = up.nextUnitLength();
    byte[] token = TokenBytes.of(at.old.values().iterator().next().getBlockToken());
    Map<Integer, ParityFiles.Allocated> allocated = parities.allocate(up, version, at.blockSize);
    Map<Integer, EncodeTreeRequest.ParityOutput> outputs = new HashMap<>();
    allocated.forEach((u, a) -> outputs.put(u, a.output(u)));
    Map<Integer, BlockRef> old = new HashMap<>();
    at.old.forEach((u, lb) -> old.put(u, ref(lb)));
    Map<Integer, BlockRef> next = new HashMap<>();
    at.replacement.forEach((u, lb) -> next.put(u, ref(lb)));
    ChecksumOpt checksum = dfs.getClient().getConf().getDefaultChecksumOpt();
    int slice = sliceBytes(roles, checksum.getBytesPerChecksum());
    Set<Integer> zeros = new java.util.TreeSet<>(); // a fill's virtual slots and the parities it brings on
    for (int u : up.changedUnits()) {
      if (s.member(u).padding()) {
        zeros.add(u);
      }
    }
    for (int u : up.rewrittenParities()) {
      if (s.member(u).padding()) {
        zeros.add(u);
      }
    }
    Map<Place, UpdateRoleRequest> requests = UpdateCoordinator.requests(roles, keys.nextLong(), name, slice, length,
        nodes, new UpdateCoordinator.Blocks(old, next, outputs, checksum.getChecksumType().id,
            checksum.getBytesPerChecksum(), zeros));
    Map<Integer, EncodeTreeRequest.Stored> stored;
    try {
      stored = UpdateCoordinator.run(requests, nodes, (node, body) -> ports.open(node, body, token, name));
    } catch (IOException e) {
      if (!UpdateRoleRequest.refusedAsNewer(e)) {
        throw e;
      }
      // A DataNode older than this updater (a rolling upgrade) cannot read the request; nothing it was asked is
      // stored yet but the new parity files, which the client executor creates again.
      parities.discard(allocated);
      LOG.warn("{}: computed in the updater's process (client executor): a DataNode does not know this request's"
          + " version yet: {}", name, e.getMessage());
      fellBack = true;
      return fallback.write(up, version, gone);
    }
    ranOnDataNodes = true;
    Map<Integer, StripeMember> out = parities.finish(up, name, allocated, stored, at.replacement, at.holder);
    read += (long) (up.changedUnits().length + at.replacement.size() + allocated.size() - zeros.size()) * length;
    written += (long) allocated.size() * length;
    LOG.info("{}: {} on the DataNodes, {} cross-rack chunks of {} bytes planned", name, plan.scheme(),
        plan.crossRackChunks(), length);
    return out;
  }

  /**
   * The node playing each place: a unit's holder (a parity carried over to a new length: its old block's); a rack's
   * relay on a node that plays a unit's role there.
   */
  private Map<Place, Endpoint> nodes(UpdatePattern pattern, UpdateRoles roles, StripeUpdate up, UpdateSources at)
      throws IOException {
    Map<Place, Endpoint> out = new LinkedHashMap<>();
    Map<Integer, DatanodeInfo> relayOf = new HashMap<>();
    for (UpdateRoles.Role r : roles.roles()) {
      if (!r.place().isRelay()) {
        DatanodeInfo dn = at.holder.get(r.place().unit());
        relayOf.putIfAbsent(r.place().rack(), dn);
        out.put(r.place(), endpoint(dn));
      }
    }
    for (int p : up.rewrittenParities()) {
      Place place = Place.unit(p, pattern.rackOf(p));
      if (!out.containsKey(place)) {
        out.put(place, endpoint(at.holder.get(p)));
      }
    }
    for (UpdateRoles.Role r : roles.roles()) {
      if (r.place().isRelay()) {
        DatanodeInfo dn = relayOf.get(r.place().rack());
        if (dn == null) { // a rack with no unit of the update: any member's holder there
          dn = at.holder.values().stream().filter(h -> h.getNetworkLocation().equals(pattern.rackName(
              r.place().rack()))).findFirst().orElseThrow(() -> new IOException("no DataNode of the stripe in rack "
                  + pattern.rackName(r.place().rack()) + " to relay its deltas"));
        }
        out.put(r.place(), endpoint(dn));
      }
    }
    return out;
  }

  private Endpoint endpoint(DatanodeInfo dn) throws IOException {
    return ports.endpoint(dn.getXferAddr(), dn.getNetworkLocation(), dn);
  }

  /**
   * Slices no larger than configured, small enough that the widest transfer's rows fit one frame and every role's
   * buffers fit a role's budget on its DataNode, in whole checksum chunks: the new parity is written slice by slice,
   * and a slice that ended mid-chunk would start the next one mid-chunk.
   */
  private int sliceBytes(UpdateRoles roles, int chunk) {
    int rows = 1;
    long buffered = 1;
    for (UpdateRoles.Role r : roles.roles()) {
      int in = r.inputs().stream().mapToInt(UpdateRoles.Input::rows).sum();
      int out = r.outputs().stream().mapToInt(o -> o.rows().length).sum();
      int widest = r.outputs().stream().mapToInt(o -> o.rows().length).max().orElse(0);
      rows = Math.max(rows, widest);
      buffered = Math.max(buffered, UpdateRoleBudget.bufferedSlices((r.ownDelta() < 0 ? 0 : 1) + in,
          r.parity() >= 0, widest, out, in, ports.conf().window()));
    }
    return sliceBytes(ports.conf().sliceBytes(), ports.conf().maxFrameBytes(), rows, buffered, chunk);
  }

  /** The largest whole number of checksum chunks within every bound (at least one chunk). */
  static int sliceBytes(int configured, int maxFrameBytes, int widestRows, long bufferedSlices, int chunk) {
    long most = Math.min(configured, Math.min(maxFrameBytes / widestRows,
        UpdateRoleBudget.roleBudget(maxFrameBytes) / bufferedSlices));
    return (int) Math.max(chunk, most / chunk * chunk);
  }

  private static BlockRef ref(LocatedBlock lb) {
    ExtendedBlock b = lb.getBlock();
    return new BlockRef(b.getBlockPoolId(), b.getBlockId(), b.getGenerationStamp(), b.getNumBytes(),
        TokenBytes.of(lb.getBlockToken()));
  }
}
