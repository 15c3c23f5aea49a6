package org.wideec.repair;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.Executors;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.wideec.code.Codes;
import org.wideec.code.LinearCode;
import org.wideec.placement.FlatPlanner;
import org.wideec.placement.PlacementPlan;
import org.wideec.topology.Endpoint;
import org.wideec.topology.Site;
import org.wideec.transport.PeerFailure;
import org.wideec.transport.SliceTransport;
import org.wideec.transport.TestKeystores;
import org.wideec.transport.TrafficCounters;
import org.wideec.transport.TransportConf;
import org.wideec.protocol.StepRequest;
import org.wideec.transport.hdfs.TransportConfReader;

/** The slice transport with TLS on (Hadoop's ssl-server.xml / ssl-client.xml): repairs work, plaintext peers do not. */
@org.junit.jupiter.api.extension.ExtendWith(org.wideec.transport.NettyLeakCheck.class)
class RepairOverTlsTest {
  static TestKeystores keystores;
  static Configuration conf;

  @BeforeAll
  static void keys() throws Exception {
    conf = new Configuration();
    keystores = new TestKeystores(RepairOverTlsTest.class, conf);
    conf.set(TransportConf.SECRET, "a cluster secret for tests");
    conf.setBoolean(TransportConf.TLS, true);
    conf.setInt(TransportConf.SLICE_BYTES, 4096);
    conf.setInt(TransportConf.PORT, 0);
  }

  @AfterAll
  static void cleanup() throws Exception {
    keystores.close();
  }

  @Test
  void aRepairRunsOverTls() throws Exception {
    LinearCode code = Codes.fromSpec("rs:k=6,m=3");
    PlacementPlan plan = new FlatPlanner().plan(code);
    byte[][] units = RepairPlanningTest.codeword(code, 30_000, new Random(21));
    try (MemoryCluster cluster = new MemoryCluster(TransportConfReader.from(conf))) {
      for (int u = 1; u < code.n(); u++) {
        cluster.node("n" + u, "r" + plan.rackOf(u), Map.of(u, units[u]));
      }
      cluster.node("req", "r" + plan.rackOf(0), Map.of());
      Map<Integer, UnitLocation> survivors = RepairPlanningTest.locations(plan, 0);
      StripeRepair r = StripeRepair.of("tls", code, new int[] {0}, new long[] {30_000}, survivors,
          MemoryCluster.blocks(code.n(), 30_000), Set.of(), RepairScheme.PIPELINED);
      MemoryCluster.MemorySink sink = new MemoryCluster.MemorySink(30_000);
      cluster.engine("req", 1).repair(r, cluster.where("req"), (u, len) -> sink);
      assertArrayEquals(units[0], sink.bytes);

      // A peer that speaks plaintext to the TLS port gets nowhere.
      Configuration plain = new Configuration(conf);
      plain.setBoolean(TransportConf.TLS, false);
      StepRequest req = new StepRequest(new BlockRef(MemoryCluster.POOL, 1, 1, 30_000), 1, 30_000, 4096, 0, 1, List.of());
      try (SliceTransport outsider = new SliceTransport(TransportConfReader.from(plain).withTimeouts(1000), "x",
          TrafficCounters.NONE, Executors.newSingleThreadExecutor())) {
        assertThrows(PeerFailure.class, () -> outsider.open(new Endpoint("127.0.0.1", cluster.transports.get("n1").port(),
            new Site("n1", "r1")), "x", "r9", 1, req.toBytes()));
      }
    }
  }
}
