package org.wideec.transport;

/**
 * Paces the slices of background streams ({@link BackgroundWork}) this node sends: a helper thread waits here before
 * each such slice leaves. Slices of users' streams never come here.
 */
@FunctionalInterface
public interface BackgroundThrottle {
  /** Waits until {@code bytes} more may be sent, to a consumer in another rack when {@code crossRack}. */
  void acquire(int bytes, boolean crossRack) throws InterruptedException;

  BackgroundThrottle NONE = (bytes, crossRack) -> {};
}
