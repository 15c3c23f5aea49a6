package org.wideec.engine;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ExecutorCompletionService;
import org.wideec.protocol.EncodeTreeRequest;
import org.wideec.protocol.UpdateRoleRequest;
import org.wideec.repair.BlockRef;
import org.wideec.topology.Endpoint;
import org.wideec.transport.Frame;
import org.wideec.transport.PeerFailure;
import org.wideec.transport.PeerStream;
import org.wideec.update.Place;
import org.wideec.update.UpdateRoles;

/**
 * The updater's side of a stripe's parity update on the DataNodes: turns the plan's {@link UpdateRoles} into one
 * {@link UpdateRoleRequest} per place (the node that plays it, the blocks it reads with their READ tokens, the new
 * parity block with its WRITE token, a relay's READ token of a block of the stripe), orders every role at once, and waits for each to report. Every role's stream is
 * read on a thread of its own: roles feed each other, so none may wait for the updater to read another's.
 */
public final class UpdateCoordinator {
  /** Opens a stream to a node's slice port carrying a request. */
  @FunctionalInterface
  public interface Dialer {
    PeerStream open(Endpoint node, byte[] request) throws IOException;
  }

  /**
   * What the roles read and write.
   *
   * @param oldBlocks every changed data unit's block and every rewritten parity's block, by unit
   * @param newData each replaced data unit's replacement block, on the same node, by unit
   * @param newParities each rewritten parity's allocated block and target, by unit
   * @param zeros units whose old content is zeros held in no block (a fill's virtual slots and the parities it brings
   *     on): their roles are told so, and take no old block
   */
  public record Blocks(Map<Integer, BlockRef> oldBlocks, Map<Integer, BlockRef> newData,
      Map<Integer, EncodeTreeRequest.ParityOutput> newParities, int checksumType, int bytesPerChecksum,
      Set<Integer> zeros) {
    public Blocks {
      zeros = Set.copyOf(zeros);
    }

    /** Every old unit a block. */
    public Blocks(Map<Integer, BlockRef> oldBlocks, Map<Integer, BlockRef> newData,
        Map<Integer, EncodeTreeRequest.ParityOutput> newParities, int checksumType, int bytesPerChecksum) {
      this(oldBlocks, newData, newParities, checksumType, bytesPerChecksum, Set.of());
    }

    /** The old block of a unit, null when its old content is zeros. */
    BlockRef old(int unit, String update) {
      return zeros.contains(unit) ? null : block(oldBlocks, unit, update);
    }
  }

  private static final java.security.SecureRandom KEYS = new java.security.SecureRandom();

  private UpdateCoordinator() {}

  /**
   * One request per place of the roles, and one per parity given a new block that the plan does not renew: when the
   * stripe's unit length changes every stored parity is rewritten, and one the changed units do not touch is carried
   * over (its old block read on its node and written at the new length, zero-padded or cut: past the longest
   * remaining data unit every unit is zero).
   *
   * @param nodes the node that plays each place (a unit's holder; a relay's node in its rack)
   * @param length bytes of every delta (the unit length after the update)
   * @throws IllegalArgumentException naming a place without a node or a unit without a block
   */
  public static Map<Place, UpdateRoleRequest> requests(UpdateRoles roles, long key, String update, int sliceBytes,
      long length, Map<Place, Endpoint> nodes, Blocks blocks) {
    Map<Integer, Long> transferKeys = transferKeys(roles);
    Map<Place, UpdateRoleRequest> out = new LinkedHashMap<>();
    for (UpdateRoles.Role r : roles.roles()) {
      List<UpdateRoleRequest.Input> inputs = new ArrayList<>();
      for (UpdateRoles.Input in : r.inputs()) {
        inputs.add(new UpdateRoleRequest.Input(in.transfer(), in.rows(), node(nodes, in.from(), update),
            transferKeys.get(in.transfer())));
      }
      List<UpdateRoleRequest.Output> outputs = new ArrayList<>();
      for (UpdateRoles.Output o : r.outputs()) {
        outputs.add(new UpdateRoleRequest.Output(o.transfer(), o.rows(), node(nodes, o.to(), update).site().node(),
            transferKeys.get(o.transfer())));
      }
      int parity = r.parity();
      boolean dataZero = r.ownDelta() >= 0 && blocks.zeros().contains(r.ownDelta());
      boolean parityZero = parity >= 0 && blocks.zeros().contains(parity);
      BlockRef oldData = r.ownDelta() < 0 ? null : blocks.old(r.ownDelta(), update);
      BlockRef newData = r.ownDelta() < 0 ? null : blocks.newData().get(r.ownDelta());
      if (dataZero && newData == null) {
        throw new IllegalArgumentException(update + ": no new block for unit " + r.ownDelta() + ", a slot that was"
            + " zeros");
      }
      BlockRef oldParity = parity < 0 ? null : blocks.old(parity, update);
      // A relay (or a parity coming on that only others feed) reads nothing of its own: it proves its asker may read
      // the stripe with one block's token.
      BlockRef relayToken = oldData == null && newData == null && oldParity == null ? blocks.oldBlocks().entrySet()
          .stream().filter(e -> !blocks.zeros().contains(e.getKey())).min(Map.Entry.comparingByKey())
          .map(Map.Entry::getValue)
          .orElseThrow(() -> new IllegalArgumentException(update + ": no block of the stripe for its relays")) : null;
      out.put(r.place(), new UpdateRoleRequest(key, update, roles.nameOf(r.place()), sliceBytes, length, oldData, newData,
          inputs, outputs, r.parityDelta(), oldParity, parity < 0 ? null : blocks.newParities().get(parity),
          blocks.checksumType(), blocks.bytesPerChecksum(), relayToken, dataZero, parityZero));
      if (parity >= 0 && blocks.newParities().get(parity) == null) {
        throw new IllegalArgumentException(update + ": no new block allocated for parity unit " + parity);
      }
    }
    carryOver(roles, key, update, sliceBytes, length, nodes, blocks, out);
    return out;
  }

  /** Each transfer's own key, given only to its producer and its consumer: no other role can take its rows. */
  private static Map<Integer, Long> transferKeys(UpdateRoles roles) {
    Map<Integer, Long> keys = new java.util.HashMap<>();
    for (int t = 0; t < roles.plan().transfers().size(); t++) {
      long k;
      do {
        k = KEYS.nextLong();
      } while (k == 0); // 0 marks an unbound transfer
      keys.put(t, k);
    }
    return keys;
  }

  /** A request for each parity given a new block that the plan does not renew: it holds no row, its old block only. */
  private static void carryOver(UpdateRoles roles, long key, String update, int sliceBytes, long length,
      Map<Place, Endpoint> nodes, Blocks blocks, Map<Place, UpdateRoleRequest> out) {
    Set<Integer> renewed = new java.util.HashSet<>();
    for (int p : roles.rewrittenParities()) {
      renewed.add(p);
    }
    for (int p : new java.util.TreeSet<>(blocks.newParities().keySet())) {
      if (!renewed.contains(p)) {
        Place place = Place.unit(p, roles.plan().pattern().rackOf(p));
        node(nodes, place, update);
        out.put(place, new UpdateRoleRequest(key, update, roles.nameOf(place), sliceBytes, length, null, null,
            List.of(), List.of(), new int[0], blocks.old(p, update), blocks.newParities().get(p),
            blocks.checksumType(), blocks.bytesPerChecksum(), null));
      }
    }
  }

  private static Endpoint node(Map<Place, Endpoint> nodes, Place p, String update) {
    Endpoint e = nodes.get(p);
    if (e == null) {
      throw new IllegalArgumentException(update + ": no node plays place " + p);
    }
    return e;
  }

  private static BlockRef block(Map<Integer, BlockRef> blocks, int unit, String update) {
    BlockRef b = blocks.get(unit);
    if (b == null) {
      throw new IllegalArgumentException(update + ": no block named for unit " + unit);
    }
    return b;
  }

  /**
   * Orders every role and waits for all: per rewritten parity, what its node stored (length and CRC32C of the new
   * parity it wrote).
   *
   * @throws IOException naming the role and the node to blame when any role fails; the others are stopped
   */
  public static Map<Integer, EncodeTreeRequest.Stored> run(Map<Place, UpdateRoleRequest> requests,
      Map<Place, Endpoint> nodes, Dialer dialer) throws IOException {
    ExecutorService threads = Executors.newFixedThreadPool(Math.max(1, requests.size()), r -> {
      Thread t = new Thread(r, "wide-ec-update-role");
      t.setDaemon(true);
      return t;
    });
    List<PeerStream> streams = new ArrayList<>();
    ExecutorCompletionService<Map.Entry<Place, List<EncodeTreeRequest.Stored>>> done =
        new ExecutorCompletionService<>(threads);
    try {
      for (Map.Entry<Place, UpdateRoleRequest> e : requests.entrySet()) {
        PeerStream s = dialer.open(nodes.get(e.getKey()), e.getValue().toBytes());
        streams.add(s);
        done.submit(() -> Map.entry(e.getKey(), report(s, e.getValue())));
      }
      Map<Integer, EncodeTreeRequest.Stored> out = new LinkedHashMap<>();
      for (int i = 0; i < streams.size(); i++) {
        Map.Entry<Place, List<EncodeTreeRequest.Stored>> r = done.take().get(); // the first failure ends the wait
        if (!r.getKey().isRelay() && !r.getValue().isEmpty()) {
          out.put(r.getKey().unit(), r.getValue().get(0));
        }
      }
      return out;
    } catch (ExecutionException e) {
      throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause().toString(), e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted waiting for the update's roles");
    } finally {
      streams.forEach(PeerStream::close); // a role still running loses its updater and stops
      threads.shutdownNow();
    }
  }

  /** A role's reply: empty frames while it runs, then its result, then END. */
  private static List<EncodeTreeRequest.Stored> report(PeerStream s, UpdateRoleRequest req)
      throws PeerFailure, InterruptedException, IOException {
    byte[] last = null;
    for (int i = 0; ; i++) {
      Frame f = s.nextOrEnd(i);
      if (f == null) {
        break;
      }
      try {
        if (f.payload().readableBytes() > 0) {
          last = f.payloadBytes();
        }
      } finally {
        f.release();
      }
      s.credit();
    }
    if (last == null) {
      throw new PeerFailure(s.peer().node(), req + " at " + s.peer() + " ended without a result");
    }
    return EncodeTreeRequest.parseResult(last);
  }
}
