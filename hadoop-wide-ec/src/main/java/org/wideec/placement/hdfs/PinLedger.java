package org.wideec.placement.hdfs;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * The archived replicas the placement keeper has confirmed pinned, kept for one pass at a time: an entry survives a
 * pass only if that pass saw the replica on plan again, so a deleted, unarchived or moved block leaves the ledger
 * within one pass and the NameNode's heap holds at most what the manifests hold. Per DataNode a sorted {@code long[]}
 * of block ids (8 bytes a replica), plus one bit a replica while a pass runs.
 *
 * <p>Each pass pins at most {@code maxPinsPerPass} replicas (after a NameNode start nothing is confirmed, and one pass
 * must not ask for every archived replica at once); the others are offered again, and pinned, on later passes.
 * Single-threaded: the keeper's pass thread only.
 */
final class PinLedger {
  private final int maxPinsPerPass;
  /** Confirmed pinned as of the last pass, per DataNode transfer address: sorted block ids. */
  private Map<String, long[]> confirmed = new HashMap<>();
  /** This pass: which confirmed entries were seen again (bit i for confirmed[node][i]). */
  private final Map<String, java.util.BitSet> seen = new HashMap<>();
  /** This pass: replicas newly confirmed pinned. */
  private final Map<String, long[]> fresh = new HashMap<>();
  private final Map<String, Integer> freshCount = new HashMap<>();
  private int offeredThisPass;
  private int deferred;

  PinLedger(int maxPinsPerPass) {
    if (maxPinsPerPass < 1) {
      throw new IllegalArgumentException("at most " + maxPinsPerPass + " pins a pass: must be positive");
    }
    this.maxPinsPerPass = maxPinsPerPass;
  }

  void beginPass() {
    seen.clear();
    fresh.clear();
    freshCount.clear();
    offeredThisPass = 0;
    deferred = 0;
  }

  /**
   * The pass found this replica on its planned node. True when it is to be pinned now: not confirmed pinned yet, and
   * this pass's cap not reached (else it counts as deferred, offered again next pass).
   */
  boolean offer(String node, long blockId) {
    long[] ids = confirmed.get(node);
    int at = ids == null ? -1 : Arrays.binarySearch(ids, blockId);
    if (at >= 0) {
      seen.computeIfAbsent(node, n -> new java.util.BitSet(ids.length)).set(at);
      return false;
    }
    if (offeredThisPass >= maxPinsPerPass) {
      deferred++;
      return false;
    }
    offeredThisPass++;
    return true;
  }

  /** The DataNode confirmed the pin (PINNED or ALREADY_PINNED) of a replica offered in this pass. */
  void confirm(String node, long blockId) {
    int n = freshCount.getOrDefault(node, 0);
    long[] ids = fresh.get(node);
    if (ids == null || ids.length == n) {
      ids = Arrays.copyOf(ids == null ? new long[0] : ids, Math.max(8, n * 2));
      fresh.put(node, ids);
    }
    ids[n] = blockId;
    freshCount.put(node, n + 1);
  }

  /** Keeps what this pass saw or confirmed; forgets every other entry. */
  void endPass() {
    Map<String, long[]> next = new HashMap<>();
    java.util.Set<String> nodes = new java.util.HashSet<>(seen.keySet());
    nodes.addAll(fresh.keySet());
    for (String node : nodes) {
      long[] old = confirmed.get(node);
      java.util.BitSet kept = seen.get(node);
      int newCount = freshCount.getOrDefault(node, 0);
      long[] ids = new long[(kept == null ? 0 : kept.cardinality()) + newCount];
      int n = 0;
      if (kept != null) {
        for (int i = kept.nextSetBit(0); i >= 0; i = kept.nextSetBit(i + 1)) {
          ids[n++] = old[i];
        }
      }
      if (newCount > 0) {
        System.arraycopy(fresh.get(node), 0, ids, n, newCount);
        n += newCount;
      }
      Arrays.sort(ids, 0, n);
      int distinct = 0;
      for (int i = 0; i < n; i++) {
        if (distinct == 0 || ids[distinct - 1] != ids[i]) {
          ids[distinct++] = ids[i];
        }
      }
      next.put(node, distinct == ids.length ? ids : Arrays.copyOf(ids, distinct));
    }
    confirmed = next;
    seen.clear();
    fresh.clear();
    freshCount.clear();
  }

  boolean isConfirmed(String node, long blockId) {
    long[] ids = confirmed.get(node);
    return ids != null && Arrays.binarySearch(ids, blockId) >= 0;
  }

  /** Replicas confirmed pinned, as of the last pass. */
  long size() {
    return confirmed.values().stream().mapToLong(a -> a.length).sum();
  }

  /** Replicas the last pass found unpinned but left for later passes (over the cap). */
  int deferred() {
    return deferred;
  }
}
