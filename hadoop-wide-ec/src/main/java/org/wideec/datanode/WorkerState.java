package org.wideec.datanode;

import java.util.List;
import org.wideec.Version;
import org.wideec.coder.Kernels;
import org.wideec.transport.RefusedHandshakes;
import org.wideec.transport.SliceTransport;

/**
 * The {@link SliceEndpointMXBean} of one DataNode's plugin: reads the plugin's current state on every call, so one
 * bean, registered for the plugin's whole life, shows a running worker and a disabled one alike.
 */
final class WorkerState implements SliceEndpointMXBean {
  private final WideEcDataNodePlugin plugin;

  WorkerState(WideEcDataNodePlugin plugin) {
    this.plugin = plugin;
  }

  @Override
  public int getSlicePort() {
    return plugin.transport() == null ? 0 : plugin.transport().port();
  }

  @Override
  public String getAuthentication() {
    return plugin.transport() == null ? "" : plugin.transport().conf().handshake().authenticates() ? "hmac" : "none";
  }

  @Override
  public boolean isShaping() {
    return plugin.transport() != null && plugin.transport().conf().shaper().enabled();
  }

  @Override
  public boolean isTls() {
    return plugin.transport() != null && plugin.transport().conf().tls() != null;
  }

  @Override
  public boolean isBlockTokens() {
    return plugin.blockTokens();
  }

  @Override
  public boolean isBlockPinning() {
    return plugin.blockPinning();
  }

  @Override
  public String getVersion() {
    return Version.of();
  }

  @Override
  public String getCoder() {
    return Kernels.describe();
  }

  @Override
  public String getDisabledReason() {
    return plugin.disabledReason() == null ? "" : plugin.disabledReason();
  }

  @Override
  public String getLastError() {
    RepairMetrics m = plugin.metrics();
    if (m == null) {
      return "";
    }
    List<ReconstructionOutcome> all = m.recentOutcomes();
    for (int i = all.size() - 1; i >= 0; i--) {
      ReconstructionOutcome o = all.get(i);
      if (o.route() != ReconstructionOutcome.Route.OUR_WORKER) {
        return o.route().name().toLowerCase(java.util.Locale.ROOT) + ": block group " + o.blockGroupId() + " units "
            + o.units() + ": " + o.detail();
      }
    }
    return "";
  }

  @Override
  public List<RefusedHandshakes.Refusal> getRefusedHandshakes() {
    SliceTransport t = plugin.transport();
    return t == null ? List.of() : t.refusals().refused(System.currentTimeMillis() - RefusedHandshakes.RECENT_MS);
  }

  @Override
  public List<RefusedHandshakes.Refusal> getHandshakesRefusedByPeers() {
    SliceTransport t = plugin.transport();
    return t == null ? List.of() : t.refusals().refusedBy(System.currentTimeMillis() - RefusedHandshakes.RECENT_MS);
  }

  @Override
  public long getTasksCompleted() {
    return plugin.metrics() == null ? 0 : plugin.metrics().tasksCompleted();
  }

  @Override
  public long getTasksHandedToStock() {
    return plugin.metrics() == null ? 0 : plugin.metrics().tasksHandedToStock();
  }

  @Override
  public long getTasksAbandoned() {
    return plugin.metrics() == null ? 0 : plugin.metrics().tasksAbandoned();
  }

  @Override
  public long getBackgroundNodeCap() {
    BackgroundTraffic b = plugin.background();
    return b == null ? 0 : b.caps().nodeBytesPerSecond();
  }

  @Override
  public void setBackgroundNodeCap(long bytesPerSecond) {
    running("set the background node cap").setNodeCap(bytesPerSecond);
  }

  @Override
  public long getBackgroundRackCap() {
    BackgroundTraffic b = plugin.background();
    return b == null ? 0 : b.caps().rackBytesPerSecond();
  }

  @Override
  public void setBackgroundRackCap(long bytesPerSecond) {
    running("set the background rack cap").setRackCap(bytesPerSecond);
  }

  /** The caps of a running worker; a JMX client asking a disabled one is told why. */
  private BackgroundTraffic running(String what) {
    BackgroundTraffic b = plugin.background();
    if (b == null) {
      throw new IllegalStateException("cannot " + what + ": the wide-ec worker is off here (" + getDisabledReason()
          + ")");
    }
    return b;
  }

  @Override
  public long getBackgroundNodeCapNow() {
    BackgroundTraffic b = plugin.background();
    return b == null ? 0 : b.throttle().node().bytesPerSecond();
  }

  @Override
  public long getBackgroundRackShareNow() {
    BackgroundTraffic b = plugin.background();
    return b == null ? 0 : b.throttle().rackShare().bytesPerSecond();
  }

  @Override
  public long getBackgroundBytesUnderCap() {
    BackgroundTraffic b = plugin.background();
    return b == null ? 0 : b.throttle().bytes();
  }

  @Override
  public long getBackgroundThrottleWaits() {
    BackgroundTraffic b = plugin.background();
    return b == null ? 0 : b.throttle().waits();
  }

  @Override
  public int getRepairBacklog() {
    return plugin.metrics() == null ? 0 : plugin.metrics().backlog();
  }

  @Override
  public long getUnexpectedErrors() {
    return plugin.metrics() == null ? 0 : plugin.metrics().unexpectedErrors();
  }
}
