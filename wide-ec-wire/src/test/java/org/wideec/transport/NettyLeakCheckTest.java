package org.wideec.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The leak check itself: a buffer dropped unreleased is reported, with where it was last touched. */
class NettyLeakCheckTest {
  @Test
  void aBufferDroppedUnreleasedIsReported() throws InterruptedException {
    ResourceLeakDetector.Level before = ResourceLeakDetector.getLevel();
    ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);
    int from = LeakRecorder.LEAKS.size();
    try {
      leakOne();
      List<String> leaks = NettyLeakCheck.leaksSince(from);
      assertEquals(1, leaks.size(), "the dropped buffer, and only it, is reported: " + leaks);
      assertTrue(leaks.get(0).contains("leakOne"), "the report says where the buffer was allocated: " + leaks.get(0));
    } finally {
      // What this test leaked on purpose must not fail a class that checks for leaks later in this JVM.
      LeakRecorder.LEAKS.subList(from, LeakRecorder.LEAKS.size()).clear();
      ResourceLeakDetector.setLevel(before);
    }
  }

  // Not inlined: the buffer must be unreachable once this returns, and the report must name this frame.
  private static void leakOne() {
    ByteBuf b = PooledByteBufAllocator.DEFAULT.heapBuffer(64);
    b.writeLong(42);
  }
}
