package org.wideec.datanode;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Bytes of rebuilt units this process's writers ({@link BlockTargetWriter}) stored on each DataNode, by its transfer
 * address. The target's HDFS counts them in its DataNodeMetrics bytesWritten like any client's write (a
 * BlockReceiver cannot tell who writes), so the back-off subtracts them ({@link BackgroundTraffic}). A reconstruction
 * runs on its first target (HDFS schedules it there), so a node's own rebuilt units are seen; a unit written by
 * another DataNode's process is not. One entry per DataNode of the process, never more.
 */
final class RebuiltBytesWritten {
  private static final ConcurrentHashMap<String, AtomicLong> TO = new ConcurrentHashMap<>();

  private RebuiltBytesWritten() {}

  static void add(String targetXferAddr, long bytes) {
    TO.computeIfAbsent(targetXferAddr, k -> new AtomicLong()).addAndGet(bytes);
  }

  /** What was written to the DataNode at {@code xferAddr} since this process started. */
  static long to(String xferAddr) {
    AtomicLong b = TO.get(xferAddr);
    return b == null ? 0 : b.get();
  }
}
