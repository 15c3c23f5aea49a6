package org.wideec.demo;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import org.wideec.gf.RegionKernels;
import org.wideec.topology.Site;
import org.wideec.update.Place;
import org.wideec.update.Transfer;
import org.wideec.update.UpdateExecution;
import org.wideec.update.UpdatePattern;
import org.wideec.update.UpdatePlan;

/**
 * Carries out one stripe's update plan on the testbed's nodes with {@link UpdateExecution}'s semantics: each changed
 * unit's node computes its data delta (new - old), every transfer moves real chunks over the slice transport (data
 * deltas, parity deltas summed at the sender, or Parix's old and new data), each parity's node accumulates gamma
 * times what it receives and finally writes old parity + delta. Transfers that depend on nothing still pending run
 * at once (a phase's messages leave together, RackCU §IV); one whose sender is still collecting waits for it.
 */
final class PlanOverTransport {
  private final UpdateTestbed bed;
  private final ExecutorService senders;

  /** Parix's logs on the parity nodes: the last content each saw of each data unit, per stripe (RackCU §V-A). */
  private final Map<Long, byte[]> parixLogs = new ConcurrentHashMap<>();

  PlanOverTransport(UpdateTestbed bed, ExecutorService senders) {
    this.bed = bed;
    this.senders = senders;
  }

  /** Forgets Parix's logs (a fresh replay). */
  void resetLogs() {
    parixLogs.clear();
  }

  /** Applies the plan to the stripe: the changed units take {@code newData[u]}, the parities their new content. */
  void apply(long stripe, UpdatePlan plan, byte[][] newData) throws IOException, InterruptedException {
    if (plan.reEncode()) {
      throw new IllegalArgumentException(plan.scheme() + ": the testbed runs delta updates, not re-encoding");
    }
    Run run = new Run(stripe, plan, newData);
    List<List<Transfer>> waves = waves(plan.transfers());
    for (List<Transfer> wave : waves) {
      List<Future<?>> sent = new ArrayList<>();
      for (Transfer t : wave) {
        sent.add(senders.submit(() -> {
          run.carry(t);
          return null;
        }));
      }
      for (Future<?> f : sent) {
        try {
          f.get();
        } catch (ExecutionException e) {
          throw new IOException(plan.scheme() + " update of stripe " + stripe + ": " + e.getCause().getMessage(), e.getCause());
        }
      }
    }
    run.commit();
  }

  /** Transfers grouped so that each waits only for those that deliver to its sender (plan order otherwise). */
  static List<List<Transfer>> waves(List<Transfer> transfers) {
    Map<Place, Integer> readyAfter = new HashMap<>();
    List<List<Transfer>> waves = new ArrayList<>();
    for (Transfer t : transfers) {
      int w = readyAfter.getOrDefault(t.from(), 0);
      while (waves.size() <= w) {
        waves.add(new ArrayList<>());
      }
      waves.get(w).add(t);
      readyAfter.merge(t.to(), w + 1, Math::max);
    }
    return waves;
  }

  /** One stripe update in progress: what each place holds and each parity has accumulated. */
  private final class Run {
    private final long stripe;
    private final UpdatePattern pattern;
    private final int k;
    private final String scheme;
    private final byte[][] oldUnits;
    private final byte[][] newData;
    private final Map<Place, Map<Integer, byte[]>> held = new ConcurrentHashMap<>();
    private final byte[][] parityDelta;

    Run(long stripe, UpdatePlan plan, byte[][] newData) {
      this.stripe = stripe;
      this.pattern = plan.pattern();
      this.k = pattern.code().k();
      this.scheme = plan.scheme();
      this.oldUnits = bed.stripe(stripe);
      this.newData = newData;
      this.parityDelta = new byte[pattern.code().n()][];
      for (int p = k; p < parityDelta.length; p++) {
        parityDelta[p] = new byte[bed.chunkBytes()];
      }
      for (int d : pattern.changed()) {
        byte[] delta = newData[d].clone();
        RegionKernels.xor(oldUnits[d], 0, delta, 0, delta.length); // computed on d's node from its local read
        held.computeIfAbsent(Place.unit(d, pattern.rackOf(d)), x -> new ConcurrentHashMap<>()).put(d, delta);
      }
    }

    private Site node(Place p) {
      return p.isRelay() ? bed.relayOf(p.rack()) : bed.siteOf(p.unit());
    }

    void carry(Transfer t) throws IOException, InterruptedException {
      List<byte[]> received = bed.move(node(t.from()), node(t.to()), rows(t));
      int[] units = t.units();
      if (t.kind() == Transfer.Kind.DATA_DELTA && t.to().isRelay()) {
        Map<Integer, byte[]> at = held.computeIfAbsent(t.to(), x -> new ConcurrentHashMap<>());
        for (int i = 0; i < units.length; i++) {
          at.put(units[i], received.get(i));
        }
        return;
      }
      int p = t.to().unit();
      if (t.to().isRelay() || p < k || t.parities().length != 1 || t.parities()[0] != p) {
        throw new IllegalStateException(scheme + ": " + t + " must end at the node of the single parity it serves");
      }
      synchronized (parityDelta[p]) {
        switch (t.kind()) {
          case DATA_DELTA -> {
            for (int i = 0; i < units.length; i++) {
              RegionKernels.mulAdd(pattern.coefficient(p, units[i]), received.get(i), 0, parityDelta[p], 0, bed.chunkBytes());
            }
          }
          case PARITY_DELTA -> RegionKernels.xor(received.get(0), 0, parityDelta[p], 0, bed.chunkBytes());
          case OLD_AND_NEW_DATA, NEW_DATA -> {
            int d = units[0];
            byte[] fresh = received.get(received.size() - 1);
            byte[] before = t.kind() == Transfer.Kind.OLD_AND_NEW_DATA ? received.get(0) : parixLogs.get(logKey(p, d));
            if (before == null) {
              throw new IllegalStateException(scheme + ": " + t + ": the node of " + pattern.unitName(p)
                  + " logged no content of " + pattern.unitName(d) + " in stripe " + stripe);
            }
            int gamma = pattern.coefficient(p, d);
            RegionKernels.mulAdd(gamma, before, 0, parityDelta[p], 0, bed.chunkBytes());
            RegionKernels.mulAdd(gamma, fresh, 0, parityDelta[p], 0, bed.chunkBytes());
            parixLogs.put(logKey(p, d), fresh);
          }
          default -> throw new IllegalStateException("unknown transfer kind " + t.kind());
        }
      }
    }

    /** What the sender puts on the wire, computed where it is held. */
    private List<byte[]> rows(Transfer t) {
      List<byte[]> rows = new ArrayList<>();
      switch (t.kind()) {
        case DATA_DELTA -> {
          for (int s : t.units()) {
            rows.add(delta(t.from(), s, t));
          }
        }
        case PARITY_DELTA -> {
          for (int p : t.parities()) {
            byte[] sum = new byte[bed.chunkBytes()];
            for (int s : t.units()) {
              RegionKernels.mulAdd(pattern.coefficient(p, s), delta(t.from(), s, t), 0, sum, 0, sum.length);
            }
            rows.add(sum);
          }
        }
        case OLD_AND_NEW_DATA -> {
          rows.add(oldUnits[t.units()[0]]);
          rows.add(newData[t.units()[0]]);
        }
        case NEW_DATA -> rows.add(newData[t.units()[0]]);
        default -> throw new IllegalStateException("unknown transfer kind " + t.kind());
      }
      return rows;
    }

    private byte[] delta(Place at, int unit, Transfer t) {
      if (unit >= k && at.unit() == unit) { // a parity's own node sends its delta as accumulated (UniLRC groups)
        synchronized (parityDelta[unit]) {
          return parityDelta[unit].clone();
        }
      }
      byte[] d = held.getOrDefault(at, Map.of()).get(unit);
      if (d == null) {
        throw new IllegalStateException(scheme + ": " + t + ": the sender holds no delta of " + pattern.unitName(unit));
      }
      return d;
    }

    /** The new data and new parities take their slots (each written by its own node). */
    void commit() {
      for (int d : pattern.changed()) {
        bed.put(bed.siteOf(d), UpdateTestbed.unitId(stripe, d), newData[d].clone());
      }
      for (int p = k; p < parityDelta.length; p++) {
        byte[] renewed = oldUnits[p].clone();
        RegionKernels.xor(parityDelta[p], 0, renewed, 0, renewed.length);
        bed.put(bed.siteOf(p), UpdateTestbed.unitId(stripe, p), renewed);
      }
    }

    private long logKey(int parity, int unit) {
      return (stripe * 256 + parity) * 256 + unit;
    }
  }
}
