package org.wideec.engine;

import java.io.IOException;
import org.wideec.repair.EndpointResolver;
import org.wideec.topology.Endpoint;
import org.wideec.transport.PeerFailure;

/**
 * Dials a node's slice port and, when that fails for the node's own fault, once more where the node says it listens
 * now, if that moved. A DataNode restarted on its HDFS ports opens a new slice port when its port is 0 (any free
 * port), so an endpoint remembered from before the restart is refused although the node is well: only when the node
 * still names the endpoint that failed is the failure the node's, and the caller leaves it out.
 */
public final class SliceDial {
  private SliceDial() {}

  /** One attempt at one endpoint: opens a stream, or asks and answers; idempotent. */
  @FunctionalInterface
  public interface Attempt<T> {
    T at(Endpoint endpoint) throws IOException, InterruptedException;
  }

  /**
   * {@code attempt} at {@code known}; after a failure blamed on its node, once more at the endpoint the node names
   * now when it is another ({@link EndpointResolver#moved}).
   *
   * @throws PeerFailure the first failure when the node did not move, else the second attempt's
   * @throws IOException another failure of the attempt, not blamed on the node
   */
  public static <T> T following(Endpoint known, EndpointResolver endpoints, Attempt<T> attempt)
      throws IOException, InterruptedException {
    try {
      return attempt.at(known);
    } catch (PeerFailure f) {
      Endpoint now = known.node().equals(f.culprit()) ? endpoints.moved(known) : null;
      if (now == null) {
        throw f;
      }
      return attempt.at(now);
    }
  }
}
