package org.wideec.placement.hdfs;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import org.wideec.code.LinearCode;
import org.wideec.repair.RepairUrgency;

/**
 * The damaged stripes a repair pass meets, kept to be ordered at the pass's end with the least margin first (a stripe
 * one loss from data loss before one that can lose two more: {@link RepairUrgency}), equals in the order the pass met
 * them. Only as many are kept as orders may run (the least urgent kept at the head, dropped when a more urgent one
 * comes), so a rack loss damaging 100,000 stripes costs bounded memory; the rest are met again by the next passes.
 * Not thread-safe: the monitor's thread.
 *
 * @param <T> what a stripe's order is made from
 */
final class MostUrgentStripes<T> {
  private record Kept<T>(T stripe, RepairUrgency urgency) {}

  private final int keep;
  private final PriorityQueue<Kept<T>> kept = new PriorityQueue<>(
      Comparator.comparing((Kept<T> k) -> k.urgency(), RepairUrgency.MOST_URGENT_FIRST).reversed());
  /** Stripes met so far in this pass: the order among equals. */
  private long met;

  /** @param keep the most stripes kept (the orders that may run at once) */
  MostUrgentStripes(int keep) {
    if (keep < 1) {
      throw new IllegalArgumentException("keeping the most urgent stripes needs room for one, not " + keep);
    }
    this.keep = keep;
  }

  /** A new pass: nothing met yet. */
  void clear() {
    kept.clear();
    met = 0;
  }

  /**
   * A stripe of this code with {@code unitsDown} units lost, unrecoverable or stale (what its margin is counted
   * from).
   */
  void add(T stripe, LinearCode code, int unitsDown) {
    kept.add(new Kept<>(stripe, RepairUrgency.guaranteed(code, unitsDown, met++)));
    if (kept.size() > keep) {
      kept.poll(); // the least urgent: a later pass meets it again
    }
  }

  /** The stripes kept, most urgent first; none kept after. */
  List<T> takeMostUrgentFirst() {
    List<Kept<T>> all = new ArrayList<>(kept);
    kept.clear();
    all.sort(Comparator.comparing((Kept<T> k) -> k.urgency(), RepairUrgency.MOST_URGENT_FIRST));
    return all.stream().map(Kept::stripe).toList();
  }
}
