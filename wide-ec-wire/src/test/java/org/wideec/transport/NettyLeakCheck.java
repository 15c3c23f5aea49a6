package org.wideec.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.util.ResourceLeakDetector;
import java.util.List;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Runs a test class with Netty's leak detector at PARANOID (every buffer tracked) and fails it if any buffer was
 * garbage-collected unreleased: at the end it collects garbage and allocates, which is when the detector looks.
 */
public final class NettyLeakCheck implements BeforeAllCallback, AfterAllCallback {
  private ResourceLeakDetector.Level before;
  private int leaksBefore;

  @Override
  public void beforeAll(ExtensionContext context) {
    assertTrue(io.netty.util.ResourceLeakDetectorFactory.instance().newResourceLeakDetector(ByteBuf.class)
        instanceof LeakRecorder, "the recording leak detector is installed (-Dio.netty.customResourceLeakDetector)");
    before = ResourceLeakDetector.getLevel();
    ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);
    leaksBefore = LeakRecorder.LEAKS.size();
  }

  @Override
  public void afterAll(ExtensionContext context) throws InterruptedException {
    try {
      List<String> leaks = leaksSince(leaksBefore);
      assertEquals(0, leaks.size(), context.getDisplayName() + " leaked Netty buffers:\n" + String.join("\n\n", leaks));
    } finally {
      ResourceLeakDetector.setLevel(before);
    }
  }

  /**
   * Collects garbage and lets the detector look, then returns the leaks recorded after the first {@code from}. The
   * detector only polls its queue of collected buffers when it tracks a new one, so this allocates after each
   * collection; several rounds, as one System.gc() need not enqueue every collected reference at once.
   */
  static List<String> leaksSince(int from) throws InterruptedException {
    for (int round = 0; round < 5; round++) {
      System.gc();
      Thread.sleep(50);
      for (int i = 0; i < 64; i++) {
        PooledByteBufAllocator.DEFAULT.heapBuffer(16).release();
        Unpooled.directBuffer(16).release();
      }
    }
    return List.copyOf(LeakRecorder.LEAKS.subList(from, LeakRecorder.LEAKS.size()));
  }
}
