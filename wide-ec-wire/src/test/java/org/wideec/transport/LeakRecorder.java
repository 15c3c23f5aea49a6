package org.wideec.transport;

import io.netty.util.ResourceLeakDetector;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Netty's leak detector, recording instead of only logging (installed for the whole test JVM by
 * {@code -Dio.netty.customResourceLeakDetector}, see the parent pom), so {@link NettyLeakCheck} can fail a test class.
 */
public final class LeakRecorder<T> extends ResourceLeakDetector<T> {
  static final List<String> LEAKS = new CopyOnWriteArrayList<>();

  public LeakRecorder(Class<?> resourceType, int samplingInterval) {
    super(resourceType, samplingInterval);
  }

  /**
   * The constructor Netty's factory looks up first; without it, it logs an ERROR (and falls back to the one above)
   * at every test JVM's start, which reads like a broken leak check.
   */
  public LeakRecorder(Class<?> resourceType, int samplingInterval, long maxActive) {
    this(resourceType, samplingInterval);
  }

  @Override
  protected boolean needReport() {
    return true;
  }

  @Override
  protected void reportTracedLeak(String resourceType, String records) {
    LEAKS.add(resourceType + " leaked:" + records);
    super.reportTracedLeak(resourceType, records);
  }

  @Override
  protected void reportUntracedLeak(String resourceType) {
    LEAKS.add(resourceType + " leaked (untraced)");
    super.reportUntracedLeak(resourceType);
  }
}
