package org.wideec.datanode;

import java.util.function.IntSupplier;
import org.apache.hadoop.metrics2.MetricsRecordBuilder;
import org.apache.hadoop.metrics2.lib.Interns;
import org.wideec.transport.CappedBackground;

/**
 * The gauges of background traffic as the worker's metrics record shows them: the caps in force now, the back-off's
 * share, what the caps let through and held back, and the worker's queue. They are read when the record is taken,
 * from the caps and the queue themselves, so they are never stale.
 *
 * <p>Written into the repair worker's record ({@link RepairMetrics}), not a record or source of their own: metrics2
 * gives a second source its own JMX bean and a second record of one source suffixed attribute names, and operators'
 * dashboards read {@code BackgroundNodeCapNow} and the rest on {@code WideEcRepair-<transfer port>}.
 */
final class BackgroundGauges {
  /** The caps and the queue behind the gauges; null until the worker runs. */
  private volatile BackgroundTraffic background;
  private volatile IntSupplier backlog = () -> 0;

  /** The caps and the worker's queue the gauges show. */
  void watch(BackgroundTraffic caps, IntSupplier queued) {
    background = caps;
    backlog = queued;
  }

  /** Reconstruction tasks queued for the worker now. */
  int backlog() {
    return backlog.getAsInt();
  }

  /** Adds the gauges to {@code rb}: the queue always, the caps once the worker runs. */
  void snapshot(MetricsRecordBuilder rb) {
    BackgroundTraffic b = background;
    rb.addGauge(Interns.info("RepairBacklog", "reconstruction tasks queued for the worker"), backlog());
    if (b == null) {
      return;
    }
    CappedBackground t = b.throttle();
    rb.addGauge(Interns.info("BackgroundNodeCapNow", "bytes/s background work may send from this node now (0: none)"),
            t.node().bytesPerSecond())
        .addGauge(Interns.info("BackgroundRackShareNow",
            "bytes/s of its rack's uplink cap this node's background work may use now (0: none)"),
            t.rackShare().bytesPerSecond())
        .addGauge(Interns.info("BackgroundBackoffPercent", "share of the node cap the foreground back-off allows"),
            (int) Math.round(b.backoffFactor() * 100))
        .addCounter(Interns.info("BackgroundBytesUnderCap", "background bytes the caps let through"), t.bytes())
        .addCounter(Interns.info("BackgroundThrottleWaits", "background slices that waited for a cap"), t.waits())
        .addCounter(Interns.info("BackgroundThrottleWaitMs", "time background slices waited for a cap (ms)"),
            t.waitNanos() / 1_000_000)
        .addCounter(Interns.info("BackgroundThrottleOverruns", "background slices sent beyond a cap because they"
            + " had waited half the stall timeout"), t.overruns());
  }
}
