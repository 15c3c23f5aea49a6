package org.wideec.demo;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.zip.CRC32C;
import org.wideec.archive.encode.ParitySinks;
import org.wideec.topology.Site;
import org.wideec.repair.SliceSink;
import org.wideec.transport.TrafficShaper;

/**
 * Parity sinks that keep a CRC32C and, for a target on another node, send over the emulated links (a block written
 * there): each write reserves the collector's and the target's links and the writer runs at most a few slices ahead
 * of them, as behind a socket's buffer; finish waits until the last byte is carried.
 */
final class ShapedDeliveries implements ParitySinks {
  final Map<Integer, Long> crcs = new ConcurrentHashMap<>();
  final AtomicLong crossRack = new AtomicLong();
  private final long leadNanos;

  /** @param leadNanos how far ahead of its links a writer may run (its send buffer, in time) */
  ShapedDeliveries(long leadNanos) {
    this.leadNanos = leadNanos;
  }

  @Override
  public SliceSink open(int parity, long length, Site from, Site to) {
    boolean remote = !from.node().equals(to.node());
    CRC32C crc = new CRC32C();
    return new SliceSink() {
      long due = System.nanoTime();

      @Override
      public void write(long offset, byte[] data, int off, int len) {
        crc.update(data, off, len);
        if (remote) {
          if (!from.sameRack(to)) {
            crossRack.addAndGet(len);
          }
          long delay = TrafficShaper.OFF.reserve(from.node(), from.rack(), to.node(), to.rack(), len);
          due = System.nanoTime() + delay;
          long wait = delay - leadNanos;
          if (wait > 0) {
            LockSupport.parkNanos(wait);
          }
        }
      }

      @Override
      public void finish() {
        for (long wait; (wait = due - System.nanoTime()) > 0; ) {
          LockSupport.parkNanos(wait);
        }
        crcs.put(parity, crc.getValue());
      }

      @Override
      public void abort() {}
    };
  }
}
