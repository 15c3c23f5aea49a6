package org.wideec.datanode;

/**
 * A DataNode's wide-ec repair worker as other DataNodes and tools see it:
 * {@code Hadoop:service=DataNode,name=WideEcTransport-<transfer port>} on the DataNode's /jmx page, found from what
 * the NameNode already publishes (address and info port). Registered whenever the plugin runs, also when the worker
 * is off (then the slice port is 0 and the reason says why), so `wide-ec nodes` can show every DataNode's state.
 */
public interface SliceEndpointMXBean {
  /** The slice port; 0 when the worker is off. */
  int getSlicePort();

  /** hmac or none. */
  String getAuthentication();

  boolean isShaping();

  boolean isTls();

  /** Whether the slice port checks HDFS block tokens (dfs.block.access.token.enable). */
  boolean isBlockTokens();

  /**
   * Whether HDFS honours block pins here ({@code dfs.datanode.block-pinning.enabled}). Without it the NameNode's pins
   * of archived replicas are no-ops and the Balancer may move them off their stripes' plans.
   */
  boolean isBlockPinning();

  /** The worker's build. */
  String getVersion();

  /** Which coder runs here, and why not the native one when it does not. */
  String getCoder();

  /** Why the worker is off; empty when it runs. */
  String getDisabledReason();

  /** The last reconstruction task our worker did not finish itself (route, block group, why); empty if none. */
  String getLastError();

  /**
   * The peers whose handshakes this slice port refused in the last ten minutes
   * ({@link org.wideec.transport.RefusedHandshakes#RECENT_MS}), each with its reason ("wrong secret", "no credential",
   * "expired or invalid block token", "other"), count and last time (epoch ms). A DataNode is named by the transfer
   * address its handshake claimed, when that is on the address it came from; anything else by its address.
   */
  java.util.List<org.wideec.transport.RefusedHandshakes.Refusal> getRefusedHandshakes();

  /** The peers (by transfer address) that refused this DataNode's own handshakes in the last ten minutes. */
  java.util.List<org.wideec.transport.RefusedHandshakes.Refusal> getHandshakesRefusedByPeers();

  long getTasksCompleted();

  long getTasksHandedToStock();

  long getTasksAbandoned();

  long getUnexpectedErrors();

  /**
   * The cap on background work (repairs, rebuild orders, decommission rebuilds, archival encodes) this DataNode sends,
   * in bytes/s, as configured or last set (0: none). Writable: a new value governs the next slices, until the DataNode
   * restarts (then {@code wide-ec.background.node.bytes-per-second} applies again).
   */
  long getBackgroundNodeCap();

  void setBackgroundNodeCap(long bytesPerSecond);

  /** The cap on the background work the nodes of this DataNode's rack send out of it together, bytes/s (0: none). */
  long getBackgroundRackCap();

  void setBackgroundRackCap(long bytesPerSecond);

  /** The node cap in force now: the configured one scaled by the back-off under foreground load (0: none). */
  long getBackgroundNodeCapNow();

  /** This DataNode's share of its rack's uplink cap in force now (0: none). */
  long getBackgroundRackShareNow();

  /** Background slice bytes the caps let through since start. */
  long getBackgroundBytesUnderCap();

  /** Background slices that waited for a cap since start. */
  long getBackgroundThrottleWaits();

  /** Reconstruction tasks queued for the worker now. */
  int getRepairBacklog();
}
