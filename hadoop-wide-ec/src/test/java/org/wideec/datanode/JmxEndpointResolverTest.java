package org.wideec.datanode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.wideec.repair.UnitLocation;
import org.wideec.topology.Endpoint;
import org.wideec.topology.Site;

/**
 * The NameNode looks the slice ports of an order's DataNodes up at once ({@link JmxEndpointResolver#prefetch}): every
 * page is read while the others are, each once however many times the order names its node, and a page that fails or
 * never answers is reported by node, never thrown; what was found is then answered from memory.
 */
class JmxEndpointResolverTest {
  private final Map<String, AtomicInteger> reads = new ConcurrentHashMap<>();
  private final List<JmxEndpointResolver> resolvers = new ArrayList<>();

  @AfterEach
  void tearDown() {
    resolvers.forEach(JmxEndpointResolver::close);
  }

  private JmxEndpointResolver resolver(JmxEndpointResolver.PortLookup lookup, int timeoutMs) {
    JmxEndpointResolver r = new JmxEndpointResolver(dn -> {
      reads.computeIfAbsent(dn.getXferAddr(), n -> new AtomicInteger()).incrementAndGet();
      return lookup.port(dn);
    }, timeoutMs);
    resolvers.add(r);
    return r;
  }

  private static DatanodeInfo dn(int i) {
    return new DatanodeInfo.DatanodeInfoBuilder().setIpAddr("10.0.0." + i).setHostName("dn" + i).setXferPort(9866)
        .build();
  }

  /** Whether the latch opened within {@code seconds}. */
  private static boolean await(CountDownLatch latch, long seconds) {
    try {
      return latch.await(seconds, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private static int portOf(DatanodeInfo dn) {
    return 20_000 + Integer.parseInt(dn.getIpAddr().substring("10.0.0.".length()));
  }

  @Test
  void thePagesOfAnOrdersNodesAreReadAtOnceEachOnceAndThenAnsweredFromMemory() throws Exception {
    int nodes = JmxEndpointResolver.LOOKUP_THREADS;
    CountDownLatch reading = new CountDownLatch(nodes);
    AtomicBoolean inTurn = new AtomicBoolean();
    JmxEndpointResolver r = resolver(dn -> {
      reading.countDown();
      // Each read waits until every page is being read: read one after the other, the first one waits in vain (bounded
      // only so that fails the test instead of hanging it).
      if (!inTurn.get() && !await(reading, 10)) {
        inTurn.set(true);
      }
      return portOf(dn);
    }, 5_000);
    List<DatanodeInfo> named = new ArrayList<>();
    for (int i = 0; i < nodes; i++) {
      named.add(dn(i));
      named.add(dn(i)); // a helper that is also a target, say
    }
    assertEquals(Map.of(), r.prefetch(named));
    assertTrue(!inTurn.get(), "a page was read only after another's read had ended");
    for (int i = 0; i < nodes; i++) {
      DatanodeInfo d = dn(i);
      Endpoint e = r.resolve(new UnitLocation(-1, new Site(d.getXferAddr(), "/r1")), d);
      assertEquals(new Endpoint("10.0.0." + i, portOf(d), new Site(d.getXferAddr(), "/r1")), e);
      assertEquals(1, reads.get(d.getXferAddr()).get(), "one read of " + d.getXferAddr() + "'s page");
    }
    assertEquals(Map.of(), r.prefetch(named), "nothing to read again");
    assertEquals(nodes, reads.values().stream().mapToInt(AtomicInteger::get).sum());
  }

  @Test
  void aPageThatFailsOrNeverAnswersIsReportedByNodeAndNothingIsThrown() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    JmxEndpointResolver r = resolver(dn -> {
      if (dn.getIpAddr().equals("10.0.0.1")) {
        throw new IOException("the wide-ec worker of DataNode " + dn.getXferAddr() + " is off");
      }
      if (dn.getIpAddr().equals("10.0.0.2")) {
        await(release, 60); // a page that hangs past every timeout
      }
      if (dn.getIpAddr().equals("10.0.0.3")) {
        throw new IllegalStateException("a page of another shape");
      }
      return portOf(dn);
    }, 50);
    try {
      Map<String, IOException> unfound = r.prefetch(List.of(dn(0), dn(1), dn(2), dn(3)));
      assertEquals(List.of("10.0.0.1:9866", "10.0.0.2:9866", "10.0.0.3:9866"),
          unfound.keySet().stream().sorted().toList());
      assertEquals("the wide-ec worker of DataNode 10.0.0.1:9866 is off", unfound.get("10.0.0.1:9866").getMessage());
      assertEquals("cannot discover the slice port of DataNode 10.0.0.2:9866: no answer within 1100 ms",
          unfound.get("10.0.0.2:9866").getMessage());
      assertEquals("cannot discover the slice port of DataNode 10.0.0.3:9866: java.lang.IllegalStateException: a page"
          + " of another shape", unfound.get("10.0.0.3:9866").getMessage());
      DatanodeInfo found = dn(0);
      assertEquals(portOf(found), r.resolve(new UnitLocation(-1, new Site(found.getXferAddr(), "/r1")), found).port());
      assertEquals(1, reads.get(found.getXferAddr()).get());
    } finally {
      release.countDown();
    }
  }
}
