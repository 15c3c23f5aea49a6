package org.wideec.datanode;

import java.util.ArrayDeque;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.metrics2.MetricsCollector;
import org.apache.hadoop.metrics2.MetricsRecordBuilder;
import org.apache.hadoop.metrics2.MetricsSource;
import org.apache.hadoop.metrics2.lib.DefaultMetricsSystem;
import org.apache.hadoop.metrics2.lib.Interns;
import org.apache.hadoop.metrics2.lib.MetricsRegistry;
import org.apache.hadoop.metrics2.lib.MutableCounterLong;
import org.apache.hadoop.metrics2.lib.MutableRate;
import org.wideec.engine.RepairCounters;
import org.wideec.repair.RepairScheme;

/**
 * The repair worker's per-DataNode counters, published through Hadoop metrics2 (JMX bean
 * {@code Hadoop:service=DataNode,name=WideEcRepair-<transfer port>} and any configured sink) with the background
 * gauges ({@link BackgroundGauges}) in the same record, the bytes sent to each other rack ({@link RackLinkBytes}),
 * and the outcomes of its recent reconstruction tasks: which path finished each one.
 */
public final class RepairMetrics implements RepairCounters, MetricsSource {
  private final String name;
  private final MetricsRegistry registry;
  private final Map<RepairScheme, MutableCounterLong> byScheme = new EnumMap<>(RepairScheme.class);
  private static final int OUTCOMES_KEPT = 1024;
  private final ArrayDeque<ReconstructionOutcome> outcomes = new ArrayDeque<>();
  final MutableCounterLong tasksTakenOver;
  final MutableCounterLong tasksCompleted;
  final MutableCounterLong tasksHandedToStock;
  final MutableCounterLong tasksAbandoned;
  final MutableCounterLong unexpectedErrors;
  final MutableCounterLong corruptSourcesReported;
  final MutableCounterLong summariesServed;
  final MutableCounterLong digestsComposed;
  final MutableCounterLong repairsSucceeded;
  final MutableCounterLong repairsFailed;
  final MutableCounterLong retries;
  final MutableCounterLong validations;
  final MutableCounterLong validationFailures;
  final MutableCounterLong bytesReadLocally;
  final MutableCounterLong bytesSentInRack;
  final MutableCounterLong bytesSentCrossRack;
  private final RackLinkBytes rackLinks = new RackLinkBytes();
  final MutableCounterLong slicesSent;
  final MutableCounterLong backgroundBytesSent;
  final MutableCounterLong foregroundBytesSent;
  private final BackgroundGauges background = new BackgroundGauges();
  final MutableRate repairTime;
  /** The step service's started-ahead counts, read when a record is taken; none until the worker runs. */
  private volatile java.util.function.Supplier<long[]> startedAhead = () -> new long[2];
  private final HandshakeRefusals handshakes;
  final MutableCounterLong encodeTrees;
  final MutableCounterLong encodeTreesFailed;
  final MutableCounterLong encodeParityBytes;
  final MutableCounterLong encodeParityBytesCrossRack;
  final MutableCounterLong updateRowBytes;
  final MutableCounterLong updateRowBytesCrossRack;

  RepairMetrics(String name) {
    this.name = name;
    this.registry = new MetricsRegistry(name).setContext("dfs");
    for (RepairScheme s : RepairScheme.values()) {
      byScheme.put(s, registry.newCounter("Repairs" + camel(s.name()), "repairs started with the " + s + " scheme", 0L));
    }
    tasksTakenOver = registry.newCounter("TasksTakenOver", "NameNode reconstruction tasks run by wide-ec", 0L);
    tasksCompleted = registry.newCounter("TasksCompleted",
        "tasks whose units our worker stored and the targets confirmed", 0L);
    tasksHandedToStock = registry.newCounter("TasksHandedToStock",
        "tasks our worker gave up on and handed to HDFS's reconstructor", 0L);
    tasksAbandoned = registry.newCounter("TasksAbandoned",
        "tasks left unfinished (DataNode shutting down, or fallback off); the NameNode retargets them", 0L);
    unexpectedErrors = registry.newCounter("UnexpectedErrors",
        "exceptions of wide-ec caught where it meets the DataNode (a bug: see the log)", 0L);
    corruptSourcesReported = registry.newCounter("CorruptSourcesReported",
        "source replicas found corrupt during a repair and reported to the NameNode", 0L);
    summariesServed = registry.newCounter("ScrubSummariesServed",
        "scrub summaries of local replicas folded and sent (wide-ec verify)", 0L);
    digestsComposed = registry.newCounter("DigestsComposed",
        "CRC32Cs of local replicas composed from their stored chunk checksums (an encode's data units), not read", 0L);
    repairsSucceeded = registry.newCounter("RepairsSucceeded", "repairs whose units are stored and confirmed", 0L);
    repairsFailed = registry.newCounter("RepairsFailed", "repairs that gave up", 0L);
    retries = registry.newCounter("Retries", "repair attempts restarted after a helper failed", 0L);
    validations = registry.newCounter("Validations", "rebuilt units whose sample a second decode confirmed", 0L);
    validationFailures = registry.newCounter("ValidationFailures",
        "repairs aborted because a second decode disagreed with the first (nothing stored)", 0L);
    bytesReadLocally = registry.newCounter("BytesReadLocally", "bytes of local replicas read for repairs", 0L);
    bytesSentInRack = registry.newCounter("BytesSentInRack", "slice bytes sent to nodes in the same rack", 0L);
    bytesSentCrossRack = registry.newCounter("BytesSentCrossRack", "slice bytes sent to other racks", 0L);
    slicesSent = registry.newCounter("SlicesSent", "slices sent", 0L);
    backgroundBytesSent = registry.newCounter("BackgroundBytesSent",
        "slice bytes of background work (repairs, rebuild orders, archival encodes) sent under the background caps",
        0L);
    foregroundBytesSent = registry.newCounter("ForegroundBytesSent",
        "slice bytes of users' streams (degraded reads) sent, outside the background caps", 0L);
    handshakes = new HandshakeRefusals(registry);
    repairTime = registry.newRate("RepairTime", "time of successful repairs (ms)", false);
    encodeTrees = registry.newCounter("EncodeTreesCollected",
        "trees of archival chain encodes this DataNode collected, their parity blocks written", 0L);
    encodeTreesFailed = registry.newCounter("EncodeTreesFailed",
        "trees of archival chain encodes this DataNode was asked to collect and did not (refused or failed)", 0L);
    encodeParityBytes = registry.newCounter("EncodeParityBytesWritten",
        "parity bytes this DataNode wrote to their targets as collector of chain encodes", 0L);
    encodeParityBytesCrossRack = registry.newCounter("EncodeParityBytesCrossRack",
        "of those, parity bytes written to targets in another rack (the chain's deliveries across racks)", 0L);
    updateRowBytes = registry.newCounter("UpdateRowBytesSent",
        "bytes of parity-update rows (data or parity deltas) this DataNode's update roles delivered", 0L);
    updateRowBytesCrossRack = registry.newCounter("UpdateRowBytesSentCrossRack",
        "of those, bytes delivered to a role in another rack (what an update plan's cross-rack chunks count)", 0L);
  }

  /** RACK_AGGREGATED as RackAggregated: an enum constant in a metric's name. */
  static String camel(String constant) {
    return java.util.Arrays.stream(constant.toLowerCase(java.util.Locale.ROOT).split("_"))
        .map(w -> Character.toUpperCase(w.charAt(0)) + w.substring(1)).reduce("", String::concat);
  }

  static RepairMetrics register(String name) {
    RepairMetrics m = new RepairMetrics(name);
    DefaultMetricsSystem.instance().register(name, "wide-ec repair worker", m);
    return m;
  }

  void unregister() {
    DefaultMetricsSystem.instance().unregisterSource(name);
  }

  @Override
  public void getMetrics(MetricsCollector collector, boolean all) {
    MetricsRecordBuilder rb = collector.addRecord(registry.info()).setContext("dfs")
        .tag(Interns.info("Worker", "wide-ec repair worker"), name);
    registry.snapshot(rb, all);
    background.snapshot(rb);
    long[] ahead = startedAhead.get();
    rb.addCounter(Interns.info("StreamsStartedAhead",
        "upstream streams this DataNode asked for when told its step of a chain ahead of the request"), ahead[0]);
    rb.addCounter(Interns.info("StreamsStartedAheadTaken",
        "streams started ahead that the step's request then took (the rest came too late or aged out)"), ahead[1]);
  }

  /** Where the started-ahead counts come from: the step service's {started, taken} ({@code StepService}). */
  void startedAhead(java.util.function.Supplier<long[]> counts) {
    startedAhead = counts;
  }

  /** The caps and the worker's queue the gauges show. */
  void background(BackgroundTraffic caps, java.util.function.IntSupplier queued) {
    background.watch(caps, queued);
  }

  /** Reconstruction tasks queued for the worker now. */
  public int backlog() {
    return background.backlog();
  }

  /** Slice bytes of background work this node sent, as its transport counted them. */
  public long backgroundBytesSent() {
    return backgroundBytesSent.value();
  }

  /** Slice bytes this node sent for users (degraded reads): every slice sent that was not background work. */
  public long foregroundBytesSent() {
    return foregroundBytesSent.value();
  }

  /** Counts a task's outcome and keeps it among the recent ones. */
  void record(ReconstructionOutcome o) {
    switch (o.route()) {
      case OUR_WORKER -> tasksCompleted.incr();
      case HANDED_TO_STOCK -> tasksHandedToStock.incr();
      case ABANDONED -> tasksAbandoned.incr();
    }
    synchronized (outcomes) {
      if (outcomes.size() == OUTCOMES_KEPT) {
        outcomes.removeFirst();
      }
      outcomes.addLast(o);
    }
  }

  void unexpectedError() {
    unexpectedErrors.incr();
  }

  /** The outcomes of this worker's last tasks (up to 1024), oldest first. */
  public List<ReconstructionOutcome> recentOutcomes() {
    synchronized (outcomes) {
      return List.copyOf(outcomes);
    }
  }

  @Override
  public void repairStarted(RepairScheme scheme) {
    byScheme.get(scheme).incr();
  }

  @Override
  public void repairSucceeded(long millis) {
    repairsSucceeded.incr();
    repairTime.add(millis);
  }

  @Override
  public void repairFailed() {
    repairsFailed.incr();
  }

  @Override
  public void retried() {
    retries.incr();
  }

  @Override
  public void readLocally(long bytes) {
    bytesReadLocally.incr(bytes);
  }

  @Override
  public void summaryServed() {
    summariesServed.incr();
  }

  @Override
  public void digestComposed() {
    digestsComposed.incr();
  }

  public long digestsComposed() {
    return digestsComposed.value();
  }

  public long summariesServed() {
    return summariesServed.value();
  }

  @Override
  public void sliceSent(int bytes, boolean crossRack) {
    (crossRack ? bytesSentCrossRack : bytesSentInRack).incr(bytes);
    slicesSent.incr();
  }

  @Override
  public void backgroundSliceSent(int bytes, boolean crossRack) {
    backgroundBytesSent.incr(bytes);
  }

  @Override
  public void foregroundSliceSent(int bytes, boolean crossRack) {
    foregroundBytesSent.incr(bytes);
  }

  @Override
  public void sliceSentBetween(int bytes, String fromRack, String toRack) {
    rackLinks.sent(bytes, fromRack, toRack);
  }

  /** Slice bytes this DataNode sent to each other rack (its own rack is the link's other end). */
  public Map<String, Long> crossRackBytesByDestination() {
    return rackLinks.byDestination();
  }

  @Override
  public void handshakeRefused(org.wideec.transport.RefusalReason why) {
    handshakes.refused(why);
  }

  @Override
  public void ownHandshakeRefused(org.wideec.transport.RefusalReason why) {
    handshakes.ownRefused();
  }

  /** Handshakes this DataNode's slice port refused for that reason since start. */
  public long handshakesRefused(org.wideec.transport.RefusalReason why) {
    return handshakes.refusedCount(why);
  }

  /** Handshakes of this DataNode that peers refused since start. */
  public long ownHandshakesRefused() {
    return handshakes.ownRefusedCount();
  }

  public long repairs(RepairScheme s) {
    return byScheme.get(s).value();
  }

  public long corruptSourcesReported() {
    return corruptSourcesReported.value();
  }

  public long tasksTakenOver() {
    return tasksTakenOver.value();
  }

  /** Tasks taken over whose outcome is not recorded yet (running, or queued for a reconstruction thread). */
  public long tasksInProgress() {
    return tasksTakenOver.value() - tasksCompleted.value() - tasksHandedToStock.value() - tasksAbandoned.value();
  }

  public long tasksCompleted() {
    return tasksCompleted.value();
  }

  public long tasksHandedToStock() {
    return tasksHandedToStock.value();
  }

  public long tasksAbandoned() {
    return tasksAbandoned.value();
  }

  public long unexpectedErrors() {
    return unexpectedErrors.value();
  }

  public long succeeded() {
    return repairsSucceeded.value();
  }

  public long failed() {
    return repairsFailed.value();
  }

  @Override
  public void validated() {
    validations.incr();
  }

  @Override
  public void validationFailed() {
    validationFailures.incr();
  }

  public long validations() {
    return validations.value();
  }

  public long validationFailures() {
    return validationFailures.value();
  }

  public long retries() {
    return retries.value();
  }

  public long bytesSentInRack() {
    return bytesSentInRack.value();
  }

  public long bytesSentCrossRack() {
    return bytesSentCrossRack.value();
  }

  public long bytesReadLocally() {
    return bytesReadLocally.value();
  }

  /** A chain encode's tree collected here, its parities written ({@code parityBytes} in all). */
  void encodeTreeCollected(long parityBytes, long crossRackBytes) {
    encodeTrees.incr();
    encodeParityBytes.incr(parityBytes);
    encodeParityBytesCrossRack.incr(crossRackBytes);
  }

  @Override
  public void updateRowsSent(long bytes, boolean crossRack) {
    updateRowBytes.incr(bytes);
    if (crossRack) {
      updateRowBytesCrossRack.incr(bytes);
    }
  }

  void encodeTreeFailed() {
    encodeTreesFailed.incr();
  }

  /** Bytes of parity-update rows this DataNode's roles delivered to roles in other racks. */
  public long updateRowBytesSentCrossRack() {
    return updateRowBytesCrossRack.value();
  }

  public long updateRowBytesSent() {
    return updateRowBytes.value();
  }

  public long encodeTreesCollected() {
    return encodeTrees.value();
  }

  public long encodeTreesFailed() {
    return encodeTreesFailed.value();
  }

  public long encodeParityBytesWritten() {
    return encodeParityBytes.value();
  }

  /** Parity bytes written as a chain's collector to targets in another rack (not counted by the slice port). */
  public long encodeParityBytesCrossRack() {
    return encodeParityBytesCrossRack.value();
  }
}
