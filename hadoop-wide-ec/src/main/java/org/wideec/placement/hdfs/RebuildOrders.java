package org.wideec.placement.hdfs;

import java.io.IOException;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.fs.StorageType;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.security.token.block.BlockTokenIdentifier;
import org.apache.hadoop.hdfs.security.token.block.BlockTokenSecretManager;
import org.apache.hadoop.hdfs.server.blockmanagement.WideEcArchivedBlocks;
import org.apache.hadoop.hdfs.server.namenode.FSNamesystem;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.RebuildJobs;
import org.wideec.archive.StripeMember;
import org.wideec.code.UnitRole;
import org.wideec.engine.SliceDial;
import org.wideec.datanode.JmxEndpointResolver;
import org.wideec.repair.BlockRef;
import org.wideec.repair.EndpointResolver;
import org.wideec.protocol.RebuildRequest;
import org.wideec.repair.StripeRepair;
import org.wideec.repair.UnitLocation;
import org.wideec.time.Backoff;
import org.wideec.topology.Endpoint;
import org.wideec.topology.hdfs.DataNodeSites;
import org.wideec.transport.Frame;
import org.wideec.transport.PeerStream;
import org.wideec.transport.SliceTransport;
import org.wideec.transport.hdfs.TokenBytes;

/**
 * Carries out the archive repair monitor's rebuild orders, on its rebuild threads: a {@link RebuildRequest} to the
 * requestor's slice port with a WRITE token per target (minted by this NameNode's block token secret manager when
 * block tokens are on), its progress followed to the end, then each unit confirmed live at this NameNode on its own
 * target, or failed on its own. The monitor decides what to order ({@link ArchiveRepairMonitor}); this class only
 * executes. Its lines keep the repair monitor's logger.
 */
final class RebuildOrders {
  private static final Logger LOG = LoggerFactory.getLogger(ArchiveRepairMonitor.class);

  private final FSNamesystem fsn;
  private final SliceTransport transport;
  private final JmxEndpointResolver endpoints;
  private final RebuildState state;
  private final long confirmTimeout;

  RebuildOrders(FSNamesystem fsn, SliceTransport transport, JmxEndpointResolver endpoints, RebuildState state,
      long confirmTimeout) {
    this.fsn = fsn;
    this.transport = transport;
    this.endpoints = endpoints;
    this.state = state;
    this.confirmTimeout = confirmTimeout;
  }

  /** On a rebuild thread: order the rebuild, wait for its end, confirm each unit at the NameNode. */
  void run(StripeRepair repair, ArchivedStripe s, RebuildJobs.Job job, Map<Integer, WideEcArchivedBlocks.Target> chosen,
      String manifest) {
    int[] units = job.units();
    DatanodeInfo requestor = chosen.get(job.requestorUnit()).node();
    OrderRefusal refusal = OrderRefusal.NONE;
    StripeRepair sent = repair;
    try {
      try {
        sent = send(repair, s, job, chosen);
      } catch (TargetUnusable e) {
        // Nothing was asked of anyone: the next pass orders these units again, from targets other than this one.
        LOG.info("wide-ec: {} of manifest {} goes to other targets at the next pass: {}", repair.name(), manifest,
            e.getMessage());
        return;
      } catch (IOException | RuntimeException | LinkageError e) {
        forget(requestor, repair, java.util.Arrays.stream(units).mapToObj(u -> chosen.get(u).node()).toList());
        refusal = OrderRefusal.of(e, java.util.Arrays.stream(units).mapToObj(u -> s.member(u).blockId())
            .collect(java.util.stream.Collectors.toSet()));
      }
      // Each unit on its own: a joint order may store some units and refuse others.
      for (int u : units) {
        StripeMember m = s.member(u);
        DatanodeInfo target = chosen.get(u).node();
        String what = what(fsn, s, u, manifest);
        if (refusal.refuses(m.blockId())) {
          state.failure(m.blockId(), what, refusal.failure(requestor));
          continue;
        }
        if (!confirmed(m, target)) {
          state.failure(m.blockId(), what, refusal.unconfirmed(target, confirmTimeout));
          continue;
        }
        state.repaired(m.blockId());
        LOG.info("{} rebuilt under its original id on {} ({}{}){} from helpers {}, confirmed live at the NameNode", what,
            target.getXferAddr(), target.getNetworkLocation(), target.getNetworkLocation().equals(m.plannedRack()) ? ""
                : ", outside its planned rack " + m.plannedRack(), units.length == 1 ? ""
                : " by one decode of units " + java.util.Arrays.toString(units) + " on " + requestor.getXferAddr(),
            new java.util.TreeSet<>(helperNodes(sent)));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      state.ended(blocks(s, units));
    }
  }

  /** The CRC32C a rebuilt block-group unit must have, asked of whoever knows it when its order is sent. */
  interface ExpectedCrc {
    /** @return the CRC32C, or {@link RebuildRequest#NO_CRC} when nobody holds one */
    long get() throws IOException, InterruptedException;
  }

  /** A unit lost with its DataNode: nobody holds its CRC32C; the worker's second decode checks it. */
  static final ExpectedCrc UNKNOWN_CRC = () -> RebuildRequest.NO_CRC;

  /**
   * A unit leaving with its DataNode: the CRC32C of its replica there, which the leaving node computes from its disk,
   * so an 8-byte digest crosses its NIC, never the unit.
   */
  ExpectedCrc ofLeavingReplica(DatanodeInfo leaving, BlockRef replica) {
    return () -> {
      try {
        UnitLocation me = new UnitLocation(-1, new org.wideec.topology.Site("namenode", "/"));
        return SliceDial.following(slicePort(leaving), current(fsn, endpoints), from -> org.wideec.engine.DigestRequest
            .crcOf(transport, from, me, replica, transport.conf().sliceBytes()));
      } catch (IOException | RuntimeException e) {
        endpoints.forget(leaving.getXferAddr());
        throw e;
      }
    };
  }

  /**
   * On a rebuild thread: a block group's unit (leaving with its DataNode, or lost) rebuilt by its target from the
   * other units, or copied by it from the leaving replica ({@link StripeRepair#copy}), and stored there under its own
   * id; or several lost units of the group rebuilt by one decode at the first one's target, which stores the first
   * and sends each other on to its own target. Each unit is then confirmed live on its target at this NameNode, or
   * failed on its own (counted in {@code failures}, one WARN line; its next attempt waits the back-off).
   *
   * @param units the units in the repair's order; the first one's target is the requestor
   * @param expected per unit, the CRC32C its rebuilt bytes must have
   * @param live per unit, whether the NameNode lists it live on its target
   * @return per unit, whether it is confirmed live on its target
   */
  boolean[] runUnits(StripeRepair repair, List<UnitTarget> units, List<ExpectedCrc> expected,
      List<java.util.function.BooleanSupplier> live, List<String> what,
      org.apache.hadoop.metrics2.lib.MutableCounterLong failures) {
    boolean[] stored = new boolean[units.size()];
    DatanodeInfo requestor = units.get(0).to().node();
    try {
      OrderRefusal refusal = OrderRefusal.NONE;
      try {
        List<UnitTarget> withCrc = new java.util.ArrayList<>();
        for (int i = 0; i < units.size(); i++) {
          UnitTarget u = units.get(i);
          withCrc.add(new UnitTarget(u.unit(), u.block(), u.to(), expected.get(i).get()));
        }
        send(repair, requestor, withCrc);
      } catch (IOException | RuntimeException | LinkageError e) {
        forget(requestor, repair, units.stream().map(u -> u.to().node()).toList());
        refusal = OrderRefusal.of(e, units.stream().map(u -> u.block().getBlockId())
            .collect(java.util.stream.Collectors.toSet()));
      }
      // A joint order may store some units and refuse others; an order of one unit is refused whole.
      for (int i = 0; i < units.size(); i++) {
        UnitTarget u = units.get(i);
        long block = u.block().getBlockId();
        DatanodeInfo target = u.to().node();
        if ((refusal.refused() && units.size() == 1) || refusal.refuses(block)) {
          state.unitFailure(block, what.get(i), refusal.failure(requestor), failures);
          continue;
        }
        if (!confirmed(live.get(i))) {
          state.unitFailure(block, what.get(i), refusal.unconfirmed(target, confirmTimeout), failures);
          continue;
        }
        state.succeeded(block);
        stored[i] = true;
        if (repair.copies()) {
          LOG.info("{} copied to {} ({}) from its leaving replica through our worker, confirmed live at the NameNode",
              what.get(i), target.getXferAddr(), target.getNetworkLocation());
        } else {
          LOG.info("{} rebuilt on {} ({}){} from helpers {}{}, confirmed live at the NameNode", what.get(i),
              target.getXferAddr(), target.getNetworkLocation(), units.size() == 1 ? ""
                  : " by one decode on " + requestor.getXferAddr(), new java.util.TreeSet<>(helperNodes(repair)),
              repair.rackChain().isEmpty() ? "" : " along racks " + repair.rackChain());
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      units.forEach(u -> state.endedUnit(u.block().getBlockId()));
    }
    return stored;
  }

  /** A restarted DataNode listens on a new slice port: every node of a failed order is looked up afresh next time. */
  private void forget(DatanodeInfo requestor, StripeRepair repair, List<DatanodeInfo> targets) {
    endpoints.forget(requestor.getXferAddr());
    repair.survivors().values().forEach(h -> endpoints.forget(h.node()));
    targets.forEach(t -> endpoints.forget(t.getXferAddr()));
  }

  /**
   * Sends the order to the requestor and follows its progress reports until it ends (or fails, with the reason); the
   * repair as sent, without the helpers found unusable on the way.
   */
  private StripeRepair send(StripeRepair repair, ArchivedStripe s, RebuildJobs.Job job,
      Map<Integer, WideEcArchivedBlocks.Target> chosen) throws IOException, InterruptedException {
    // The requestor decodes with the order's code and nothing else: it must be the manifest's, matrix and all.
    org.wideec.code.WrongCodeException.requireStripeCode(s.code(), repair.code(), "stripe " + s.stripeId());
    List<UnitTarget> units = new java.util.ArrayList<>();
    for (int u : job.units()) {
      StripeMember m = s.member(u);
      units.add(new UnitTarget(u, new ExtendedBlock(fsn.getBlockPoolId(), m.blockId(), m.length(),
          m.generationStamp()), chosen.get(u), m.crc32c()));
    }
    return send(repair, chosen.get(job.requestorUnit()).node(), units);
  }

  /**
   * One unit of an order: the block to store under its own id (an archived block, or a block group's internal
   * block), the node and storage to store it on, and the CRC32C its rebuilt bytes must have.
   */
  record UnitTarget(int unit, ExtendedBlock block, WideEcArchivedBlocks.Target to, long crc) {}

  /**
   * Sends a rebuild order to the requestor (which stores the units whose target it is itself and writes the others to
   * theirs) and follows its progress reports until it ends, or fails with the reason; the repair as sent, without
   * the helpers found unusable on the way.
   */
  private StripeRepair send(StripeRepair repair, DatanodeInfo requestor, List<UnitTarget> units)
      throws IOException, InterruptedException {
    Map<String, DatanodeInfo> nodes = WideEcArchivedBlocks.liveNodes(fsn);
    // Every slice port the order names, looked up at once: one after the other, a cold cache's reads held a node-loss
    // recovery's first orders back by 0.7 s. Then each is taken from what was found.
    List<DatanodeInfo> named = new java.util.ArrayList<>();
    repair.survivors().values().forEach(h -> {
      if (nodes.get(h.node()) != null) {
        named.add(nodes.get(h.node()));
      }
    });
    named.add(requestor);
    units.forEach(u -> named.add(u.to().node()));
    Map<String, IOException> unfound = endpoints.prefetch(named);
    Map<String, Endpoint> eps = new HashMap<>();
    repair = reachableHelpers(repair, nodes, unfound, eps);
    Endpoint at = slicePort(requestor, unfound);
    List<RebuildRequest.Target> targetList = new java.util.ArrayList<>();
    for (UnitTarget u : units) {
      WideEcArchivedBlocks.Target to = u.to();
      ExtendedBlock b = u.block();
      byte[] write = token(fsn.getBlockManager().getBlockTokenSecretManager(), b, BlockTokenIdentifier.AccessMode.WRITE,
          new StorageType[] {to.storageType()}, new String[] {to.storageId()});
      RebuildRequest.RemoteNode remote = null;
      if (!to.node().getXferAddr().equals(requestor.getXferAddr())) {
        DatanodeInfo d = to.node();
        Endpoint slice = slicePort(d, unfound);
        remote = new RebuildRequest.RemoteNode(d.getIpAddr(), d.getHostName(), d.getDatanodeUuid(), d.getXferPort(),
            d.getInfoPort(), d.getInfoSecurePort(), d.getIpcPort(), slice);
      }
      targetList.add(new RebuildRequest.Target(u.unit(), new BlockRef(b.getBlockPoolId(), b.getBlockId(),
          b.getGenerationStamp(), b.getNumBytes(), write), to.storageType().name(), to.storageId(), u.crc(), remote));
    }
    RebuildRequest req = new RebuildRequest(repair, eps, targetList);
    long id = java.util.concurrent.ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE;
    PeerStream opened;
    Endpoint[] tried = {at};
    try {
      opened = SliceDial.following(at, current(fsn, endpoints), e -> {
        tried[0] = e;
        return transport.open(e, "namenode", "", id, req.toBytes());
      });
    } catch (org.wideec.transport.PeerFailure e) {
      if (at.node().equals(e.culprit())) {
        // Unreachable where it says it listens, or refused this NameNode (a wrong secret).
        state.unusable(at.site(), e.getMessage(), tried[0]);
      }
      throw e;
    }
    try (PeerStream stream = opened) {
      for (int i = 0; ; i++) { // progress reports until the DataNode stored and read back every unit
        Frame f = stream.nextOrEnd(i);
        if (f == null) {
          break;
        }
        f.release();
        stream.credit();
      }
    }
    return repair;
  }

  /**
   * The repair without the helpers whose slice port cannot be found (or whose worker is off: each is left out of the
   * next orders for a while); fills {@code eps} with the slice port of every helper it keeps.
   *
   * @param nodes the live DataNodes by transfer address
   * @param unfound why the slice port of each node the order's lookup did not find was not
   */
  private StripeRepair reachableHelpers(StripeRepair repair, Map<String, DatanodeInfo> nodes,
      Map<String, IOException> unfound, Map<String, Endpoint> eps) {
    Set<String> dropped = new HashSet<>();
    for (UnitLocation h : repair.survivors().values()) {
      if (eps.containsKey(h.node()) || dropped.contains(h.node())) {
        continue;
      }
      try {
        eps.put(h.node(), resolve(h, nodes.get(h.node()), unfound));
      } catch (IOException e) { // not found, or its worker is off: this order is planned again without it
        dropped.add(h.node());
        state.unusable(h.site(), e.getMessage(), null);
      }
    }
    if (dropped.isEmpty()) {
      return repair;
    }
    StripeRepair kept = repair.without(dropped);
    eps.keySet().retainAll(helperNodes(kept));
    return kept;
  }

  /** Where each live DataNode listens now, by its transfer address, as this NameNode's resolver finds it. */
  static EndpointResolver current(FSNamesystem fsn, JmxEndpointResolver endpoints) {
    return endpoints.over(node -> WideEcArchivedBlocks.liveNodes(fsn).get(node));
  }

  /** The node's slice port, unless the order's lookup found none (then why). */
  private Endpoint resolve(UnitLocation loc, DatanodeInfo d, Map<String, IOException> unfound) throws IOException {
    IOException why = unfound.get(loc.node());
    if (why != null) {
      throw why;
    }
    return endpoints.resolve(loc, d);
  }

  /** A requestor's or target's slice port; one that cannot be found is left out of the next orders for a while. */
  private Endpoint slicePort(DatanodeInfo d) throws TargetUnusable {
    return slicePort(d, Map.of());
  }

  /** The same, unless the order's lookup found none ({@code unfound}: why, by node). */
  private Endpoint slicePort(DatanodeInfo d, Map<String, IOException> unfound) throws TargetUnusable {
    UnitLocation at = new UnitLocation(-1, DataNodeSites.of(d));
    try {
      return resolve(at, d, unfound);
    } catch (IOException e) {
      state.unusable(at.site(), e.getMessage(), null);
      throw new TargetUnusable(e);
    }
  }

  /** A target of an order cannot take part (its slice port not found, its worker off); nothing was sent yet. */
  private static final class TargetUnusable extends IOException {
    TargetUnusable(IOException cause) {
      super(cause.getMessage(), cause);
    }
  }

  /** Waits until the NameNode lists a live replica of the member on the target. */
  private boolean confirmed(StripeMember m, DatanodeInfo target) throws InterruptedException {
    return confirmed(() -> WideEcArchivedBlocks.liveOn(fsn, m.blockId(), m.generationStamp(), m.length(),
        target.getXferAddr()));
  }

  /** Waits until {@code live} holds, at most the confirm timeout. */
  private boolean confirmed(java.util.function.BooleanSupplier live) throws InterruptedException {
    Backoff wait = Backoff.doubling(100, 100, confirmTimeout);
    while (!live.getAsBoolean()) {
      if (wait.expired()) {
        return false;
      }
      wait.pause();
    }
    return true;
  }

  /** The blocks of the stripe's units. */
  static long[] blocks(ArchivedStripe s, int[] units) {
    long[] b = new long[units.length];
    for (int i = 0; i < units.length; i++) {
      b[i] = s.member(units[i]).blockId();
    }
    return b;
  }

  static Set<String> helperNodes(StripeRepair r) {
    Set<String> nodes = new HashSet<>();
    r.survivors().values().forEach(h -> nodes.add(h.node()));
    return nodes;
  }

  static byte[] token(BlockTokenSecretManager secrets, ExtendedBlock b, BlockTokenIdentifier.AccessMode mode,
      StorageType[] types, String[] storages) {
    if (secrets == null) {
      return new byte[0]; // block tokens are off
    }
    try {
      return TokenBytes.of(secrets.generateToken(b, EnumSet.of(mode), types, storages));
    } catch (IOException e) {
      throw new IllegalStateException("cannot mint a " + mode + " token for " + b + ": " + e.getMessage(), e);
    }
  }

  /** How a log line names a member: its file, or its parity or codeword file. */
  static String fileOf(FSNamesystem fsn, ArchivedStripe s, StripeMember m) {
    String path = WideEcArchivedBlocks.pathOf(fsn, m.inodeId());
    String file = path == null ? "inode " + m.inodeId() + " (deleted)" : path;
    return m.role() == UnitRole.DATA ? file : (s.sealed() ? "codeword file " : "parity file ") + file;
  }

  /** How a log line names a unit of a stripe: block, file, stripe, unit and manifest. */
  static String what(FSNamesystem fsn, ArchivedStripe s, int unit, String manifest) {
    StripeMember m = s.member(unit);
    return "archived block blk_" + m.blockId() + " of " + fileOf(fsn, s, m) + " (stripe " + s.stripeId() + ", unit "
        + unit + ", manifest " + manifest + ")";
  }
}
