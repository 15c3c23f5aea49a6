package org.wideec.datanode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.hdfs.server.datanode.metrics.DataNodeMetrics;
import org.junit.jupiter.api.Test;
import org.wideec.minicluster.Eventually;
import org.wideec.transport.SliceTransport;
import org.wideec.transport.TrafficCounters;
import org.wideec.transport.hdfs.TransportConfReader;

/**
 * The DataNode side of the back-off: HDFS's own DataNodeMetrics (bytes read for clients) drive it, so while the
 * DataNode serves users its background cap falls to the floor, and once they are gone it comes back to the configured
 * cap; the caps in force are what its transport applies.
 */
class BackgroundTrafficTest {
  private static final long CAP = 1_000_000;

  @Test
  void whileUsersReadTheNodeCapFallsToItsFloorAndOnceTheyStopItComesBack() throws Exception {
    Configuration conf = new Configuration(false);
    conf.set("wide-ec.transport.auth", "none");
    conf.setLong(BackgroundTraffic.NODE_KEY, CAP);
    conf.setLong(BackgroundTraffic.BUSY_KEY, 1000);
    conf.setInt(BackgroundTraffic.FLOOR_KEY, 10);
    conf.setInt(BackgroundTraffic.STEP_KEY, 50);
    conf.setLong(BackgroundTraffic.INTERVAL_KEY, 20);
    DataNodeMetrics metrics = DataNodeMetrics.create(conf, "background-traffic-test-" + System.nanoTime());
    DataNode dn = mock(DataNode.class);
    when(dn.getMetrics()).thenReturn(metrics);
    when(dn.getXferPort()).thenReturn(1);
    when(dn.getDisplayName()).thenReturn("dn-under-test");
    ExecutorService helpers = Executors.newCachedThreadPool();
    AtomicBoolean reading = new AtomicBoolean(true);
    Thread users = new Thread(() -> {
      while (reading.get()) {
        metrics.incrBytesRead(1 << 20); // what HDFS counts as it serves a client's read
        try {
          Thread.sleep(5);
        } catch (InterruptedException e) {
          return;
        }
      }
    });
    try (SliceTransport transport = new SliceTransport(TransportConfReader.from(conf), "dn-under-test",
        TrafficCounters.NONE, helpers)) {
      BackgroundTraffic traffic = new BackgroundTraffic(dn, BackgroundTraffic.Settings.from(conf), transport, List::of,
          () -> 0);
      try {
        assertEquals(CAP, traffic.throttle().node().bytesPerSecond(), "idle: the configured cap");
        users.start();
        Eventually.await("the node cap at its floor while users read", Duration.ofSeconds(30),
            () -> traffic.throttle().node().bytesPerSecond(), v -> v == CAP / 10);
        reading.set(false);
        users.join();
        Eventually.await("the node cap back once they stopped", Duration.ofSeconds(30),
            () -> traffic.throttle().node().bytesPerSecond(), v -> v == CAP);
        assertEquals(CAP, traffic.caps().nodeBytesPerSecond(), "the configured cap never changed");
      } finally {
        traffic.close();
      }
    } finally {
      reading.set(false);
      helpers.shutdownNow();
      metrics.shutdown();
    }
  }
}
