package org.wideec.datanode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
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

  /** A DataNode of mocked identity with real DataNodeMetrics, its transport and its background caps, for a test. */
  @FunctionalInterface
  interface WithTraffic {
    void run(BackgroundTraffic traffic, DataNodeMetrics metrics) throws Exception;
  }

  static void withTraffic(Configuration conf, WithTraffic body) throws Exception {
    DataNodeMetrics metrics = DataNodeMetrics.create(conf, "background-traffic-test-" + System.nanoTime());
    DataNode dn = mock(DataNode.class);
    when(dn.getMetrics()).thenReturn(metrics);
    when(dn.getXferPort()).thenReturn(1);
    when(dn.getDisplayName()).thenReturn("dn-under-test-" + System.nanoTime());
    ExecutorService helpers = Executors.newCachedThreadPool();
    try (SliceTransport transport = new SliceTransport(TransportConfReader.from(conf), "dn-under-test",
        TrafficCounters.NONE, helpers)) {
      BackgroundTraffic traffic = new BackgroundTraffic(dn, BackgroundTraffic.Settings.from(conf), transport, List::of,
          () -> 0);
      try {
        body.run(traffic, metrics);
      } finally {
        traffic.close();
      }
    } finally {
      helpers.shutdownNow();
      metrics.shutdown();
    }
  }

  static Configuration conf() {
    Configuration conf = new Configuration(false);
    conf.set("wide-ec.transport.auth", "none");
    conf.setLong("wide-ec.transport.slice.bytes", 65536);
    conf.setLong("wide-ec.transport.stall.timeout.ms", 20_000); // the least cap: 65536 bytes per 10 s
    conf.setLong(BackgroundTraffic.NODE_KEY, CAP);
    conf.setLong(BackgroundTraffic.INTERVAL_KEY, 60_000);
    return conf;
  }

  @Test
  void whatRepairsWroteAndReadHereIsNotForegroundButAClientsReadsAndWritesAre() throws Exception {
    withTraffic(conf(), (traffic, metrics) -> {
      long start = traffic.foregroundBytes();
      metrics.incrBytesWritten(1000); // a rebuilt unit our writer stored here...
      RebuiltBytesWritten.add(WideEcDataNodePlugin.nameOf(traffic.dataNode()), 1000);
      metrics.incrBytesWritten(300); // ...and what HDFS's reconstructor running here wrote here
      metrics.incrECReconstructionBytesWritten(300);
      metrics.incrBytesRead(200); // its read of this node's own block, through this node's reader
      metrics.incrECReconstructionBytesRead(200 + 700);
      metrics.incrECReconstructionRemoteBytesRead(700); // its reads of other nodes: counted there
      assertEquals(start, traffic.foregroundBytes(), "repair traffic is not the users'");
      metrics.incrBytesRead(4000); // a client's read
      metrics.incrBytesWritten(500); // a client's write
      assertEquals(start + 4500, traffic.foregroundBytes());
    });
  }

  @Test
  void aCapBelowOneSlicePerHalfStallTimeoutIsRefusedNamingTheAttributeAndTheCapsStay() throws Exception {
    Configuration conf = conf();
    withTraffic(conf, (traffic, metrics) -> {
      IllegalArgumentException node = assertThrows(IllegalArgumentException.class, () -> traffic.setNodeCap(6553));
      assertTrue(node.getMessage().startsWith("BackgroundNodeCap=6553 bytes/s is below 6554 bytes/s"),
          node.getMessage());
      IllegalArgumentException rack = assertThrows(IllegalArgumentException.class, () -> traffic.setRackCap(1));
      assertTrue(rack.getMessage().startsWith("BackgroundRackCap=1 bytes/s"), rack.getMessage());
      assertEquals(CAP, traffic.caps().nodeBytesPerSecond());
      assertEquals(0, traffic.caps().rackBytesPerSecond());
      traffic.setNodeCap(6554);
      traffic.setRackCap(0);
      assertEquals(6554, traffic.throttle().node().bytesPerSecond());
    });
    conf.setLong(BackgroundTraffic.RACK_KEY, 100);
    IllegalArgumentException configured = assertThrows(IllegalArgumentException.class,
        () -> BackgroundTraffic.Settings.from(conf).requireSendable(TransportConfReader.from(conf)));
    assertTrue(configured.getMessage().startsWith(BackgroundTraffic.RACK_KEY + "=100 bytes/s"),
        configured.getMessage());
  }

  @Test
  void settersRacingOneAnotherKeepBothCaps() throws Exception {
    withTraffic(conf(), (traffic, metrics) -> {
      for (int round = 0; round < 200; round++) {
        long node = 100_000 + round;
        long rack = 200_000 + round;
        java.util.concurrent.CyclicBarrier go = new java.util.concurrent.CyclicBarrier(2);
        Thread a = new Thread(() -> {
          await(go);
          traffic.setNodeCap(node);
        });
        a.start();
        await(go);
        traffic.setRackCap(rack);
        a.join();
        assertEquals(new org.wideec.repair.BackgroundCaps(node, rack), traffic.caps(), "round " + round);
      }
    });
  }

  private static void await(java.util.concurrent.CyclicBarrier b) {
    try {
      b.await();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
