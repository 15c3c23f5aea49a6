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

  long getTasksCompleted();

  long getTasksHandedToStock();

  long getTasksAbandoned();

  long getUnexpectedErrors();
}
