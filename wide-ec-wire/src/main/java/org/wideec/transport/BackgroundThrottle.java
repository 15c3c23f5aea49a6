package org.wideec.transport;

/**
 * Paces the slices of background streams ({@link BackgroundWork}) this node sends: a helper thread waits here before
 * each such slice leaves. Slices of users' streams never come here.
 */
@FunctionalInterface
public interface BackgroundThrottle {
  /**
   * Waits until {@code bytes} more may be sent, to a consumer in another rack when {@code crossRack}, but no longer
   * than {@code maxWaitNanos}: the consumer gives up on a stream whose next slice does not come within its stall
   * timeout, and a stream given up is retried from its start, every byte already sent wasted. So a slice that has
   * waited that long goes anyway and the caps count it as an overrun.
   */
  void acquire(int bytes, boolean crossRack, long maxWaitNanos) throws InterruptedException;

  BackgroundThrottle NONE = (bytes, crossRack, maxWaitNanos) -> {};
}
