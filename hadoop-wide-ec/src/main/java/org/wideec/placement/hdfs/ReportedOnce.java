package org.wideec.placement.hdfs;

import java.util.HashSet;
import java.util.Set;

/**
 * Conditions a pass reports once while they last (a stale stripe, an unrecoverable block), so a pass every few
 * seconds does not flood the log. A condition a pass no longer finds is forgotten at its end: the set never holds
 * more than the last pass found, and a condition that comes back is reported again. Single-threaded.
 */
final class ReportedOnce<K> {
  private Set<K> reported = new HashSet<>();
  private Set<K> now = new HashSet<>();

  /** This pass found {@code key}; true the first time it is found since it was last absent from a whole pass. */
  boolean first(K key) {
    now.add(key);
    return !reported.contains(key);
  }

  /** Takes back this pass's {@link #first} of {@code key} (handling it failed): the next pass finds it first again. */
  void retry(K key) {
    if (!reported.contains(key)) {
      now.remove(key);
    }
  }

  /** A pass starts (one that stopped part way leaves nothing behind). */
  void beginPass() {
    now.clear();
  }

  /** Forgets what this pass did not find. */
  void endPass() {
    reported = now;
    now = new HashSet<>();
  }

  int size() {
    return reported.size();
  }
}
