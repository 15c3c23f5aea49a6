package org.wideec.placement.hdfs;

import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.wideec.repair.EndpointResolver;
import org.wideec.repair.UnusableHelpers;
import org.wideec.time.FailureBackoff;
import org.wideec.topology.Endpoint;
import org.wideec.topology.Site;

/**
 * What the archive repair monitor remembers between passes and orders: the blocks being rebuilt (never ordered
 * twice), the orders running (an order may rebuild several blocks), the blocks whose last rebuild failed (each waits
 * its back-off) and the DataNodes found unusable lately as helpers or targets (unreachable, worker off, refusing).
 * Shared by the pass thread and the rebuild threads. Its lines keep the repair monitor's logger.
 */
final class RebuildState {
  private static final Logger LOG = LoggerFactory.getLogger(ArchiveRepairMonitor.class);

  private final WideEcNameNodeMetrics metrics;
  private final Set<Long> inFlight = ConcurrentHashMap.newKeySet();
  private final AtomicInteger orders = new AtomicInteger();
  private final FailureBackoff<Long> backingOff;
  private final UnusableHelpers unusable;

  private final EndpointResolver current;

  /** @param current where each live DataNode listens now: a node left out is asked again once it names another */
  RebuildState(WideEcNameNodeMetrics metrics, long backoff, long maxBackoff, long avoidMs, EndpointResolver current) {
    this.metrics = metrics;
    this.backingOff = new FailureBackoff<>(backoff, maxBackoff);
    this.unusable = new UnusableHelpers(avoidMs);
    this.current = current;
  }

  /** Whether the block is being rebuilt or waits out the back-off of its last failure. */
  boolean busy(long block) {
    return inFlight.contains(block) || backingOff.waiting(block);
  }

  int ordersRunning() {
    return orders.get();
  }

  int blocksInFlight() {
    return inFlight.size();
  }

  /** An order for these blocks is about to be sent. */
  void started(long[] blocks) {
    for (long b : blocks) {
      inFlight.add(b);
    }
    metrics.archivedBlocksRebuilding.set(inFlight.size());
    orders.incrementAndGet();
  }

  /** The order for these blocks has ended, or was never sent (the monitor stopping). */
  void ended(long[] blocks) {
    for (long b : blocks) {
      inFlight.remove(b);
    }
    orders.decrementAndGet();
    metrics.archivedBlocksRebuilding.set(inFlight.size());
  }

  /** Told of every archived block repaired or failed (a decommission counts those its leaving nodes held). */
  interface Outcomes {
    void repaired(long block);

    /** Its next attempt waits {@code backoffMs}. */
    void failed(long block, long backoffMs);
  }

  private final java.util.List<Outcomes> outcomes = new java.util.concurrent.CopyOnWriteArrayList<>();

  void tell(Outcomes o) {
    outcomes.add(o);
  }

  /** The block is live again: its next loss is ordered at once. */
  void repaired(long block) {
    backingOff.succeeded(block);
    metrics.archivedBlocksRepaired.incr();
    outcomes.forEach(o -> o.repaired(block));
  }

  /** A block group's unit is live on its new node: its next attempt, if ever, is ordered at once. */
  void succeeded(long block) {
    backingOff.succeeded(block);
  }

  /**
   * An order for a block group's unit (leaving or lost) is about to be sent: the unit is in flight, but the order is
   * {@link LostUnitRebuilds}' to count, so archive repairs keep their own concurrency.
   */
  void startedUnit(long block) {
    inFlight.add(block);
  }

  /** The order for the block group's unit has ended. */
  void endedUnit(long block) {
    inFlight.remove(block);
  }

  /** One WARN line naming the block; its next attempt waits the back-off, doubled on every further failure. */
  void failure(long block, String what, String why) {
    metrics.archivedRepairFailures.incr();
    failed(block, what, why);
  }

  /**
   * A rebuild of a block group's unit (leaving or lost) failed: counted in {@code failures}, one WARN line naming it;
   * the unit goes back to HDFS for the back-off.
   */
  long unitFailure(long block, String what, String why,
      org.apache.hadoop.metrics2.lib.MutableCounterLong failures) {
    failures.incr();
    return failed(block, what, why);
  }

  private long failed(long block, String what, String why) {
    long next = backingOff.failed(block);
    LOG.warn("{} was not repaired: {}; next attempt in {} ms", what, why, next);
    outcomes.forEach(o -> o.failed(block, next));
    return next;
  }

  /**
   * Leaves a DataNode out of rebuilds for a while, or until it names another slice port than {@code at} (any, when
   * {@code at} is null: none was found); one WARN line when it was not left out already.
   */
  void unusable(Site node, String why, Endpoint at) {
    if (unusable.avoid(node, why, at)) {
      metrics.archiveNodesFoundUnusable.incr();
      LOG.warn("wide-ec archive repair leaves DataNode {} out of rebuild orders for {} ms, or until it names another"
          + " slice port: {}", node.node(), unusable.avoidMs(), why);
    }
  }

  /** {@code nodes} and the nodes left out now. */
  Set<String> withUnusable(Set<String> nodes) {
    Set<String> all = new HashSet<>(nodes);
    all.addAll(unusableNow(unusable.now()));
    return all;
  }

  /** Those of {@code nodes} left out now. */
  Set<String> unusableAmong(Set<String> nodes) {
    return unusableNow(unusable.among(nodes));
  }

  /** Those of the nodes left out that do not name another slice port by now. */
  private Set<String> unusableNow(Set<String> left) {
    for (String node : unusable.liftMoved(left, current)) {
      LOG.info("wide-ec archive repair asks DataNode {} again: it names another slice port now", node);
    }
    return unusable.among(left);
  }
}
