package org.wideec.hdfs;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.wideec.hdfs.RepairClusterFixture.assertEveryRebuiltUnitStoredByOurWorker;
import static org.wideec.hdfs.RepairClusterFixture.awaitAllComplete;
import static org.wideec.hdfs.RepairClusterFixture.before;
import static org.wideec.hdfs.RepairClusterFixture.busiestNode;
import static org.wideec.hdfs.RepairClusterFixture.cluster;
import static org.wideec.hdfs.RepairClusterFixture.everyByteReadsBack;
import static org.wideec.hdfs.RepairClusterFixture.kill;
import static org.wideec.hdfs.RepairClusterFixture.storesOnALiveNode;

import io.netty.buffer.ByteBuf;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.wideec.datanode.ReconstructionOutcome;
import org.wideec.datanode.ReconstructionOutcome.Route;
import org.wideec.hdfs.RepairClusterFixture.Before;
import org.wideec.hdfs.RepairClusterFixture.Recorded;
import org.wideec.transport.TransportFaultInjector;

/**
 * DataNodes dying in the middle of our worker's repairs: a helper (the repair restarts without it) and the
 * target (the NameNode gives the unit a new target). Each drill asserts which path finished every repair (our
 * worker, never HDFS's reconstructor), then reads every replica back checksum-verified and equal to what the
 * code computes, and every file equal to what was written.
 */
class RepairFaultsClusterTest {
  /** The requestor of each repair attempt (repair id -> transfer address), as the requestors announce them. */
  private final Map<Long, String> requestorOf = new ConcurrentHashMap<>();

  @BeforeEach
  void start() throws Exception {
    Configuration conf = new Configuration();
    // A reconstruction whose target died is given a new one after this long.
    conf.setInt(DFSConfigKeys.DFS_NAMENODE_RECONSTRUCTION_PENDING_TIMEOUT_SEC_KEY, 8);
    // Deaths are seen as closed connections and refused ones; no stall timer may blame a helper that a drill
    // holds back on purpose.
    conf.setInt("wide-ec.transport.stall.timeout.ms", 120_000);
    RepairClusterFixture.start(conf);
  }

  @AfterEach
  void stop() {
    RepairClusterFixture.stop();
  }

  /** Stops a DataNode from a fresh thread (a helper thread cannot wait for its own DataNode's shutdown). */
  private static Thread killLater(String xferAddr) {
    for (DataNode dn : cluster.getDataNodes()) {
      if (dn.getDatanodeId().getXferAddr().equals(xferAddr)) {
        DatanodeInfo info = new DatanodeInfo.DatanodeInfoBuilder().setNodeID(dn.getDatanodeId()).build();
        Thread t = new Thread(() -> {
          try {
            kill(info);
          } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
          }
        }, "test-kill-" + xferAddr);
        t.start();
        return t;
      }
    }
    throw new IllegalStateException("no live DataNode " + xferAddr);
  }

  /** A fault injector that knows each repair attempt's requestor. */
  private abstract class Drill extends TransportFaultInjector {
    @Override
    public void onRepairAttempt(String requestor, long repairId) {
      requestorOf.put(repairId, requestor);
    }
  }

  @Test
  void aHelperThatDiesMidRepairIsReplaced() throws Exception {
    Before before = before();
    DatanodeInfo lost = busiestNode();
    AtomicReference<String> victim = new AtomicReference<>();
    AtomicReference<String> requestor = new AtomicReference<>();
    TransportFaultInjector.set(new Drill() {
      @Override
      public void beforeSend(String node, String to, long repairId, int slice, ByteBuf payload) throws java.io.IOException {
        // The first helper that forwards to another helper (not to the requestor) dies at its third slice.
        String req = requestorOf.get(repairId);
        if (slice == 2 && req != null && !to.equals(req) && victim.compareAndSet(null, node)) {
          requestor.set(req);
          killLater(node);
          throw new java.io.IOException("helper " + node + " died");
        }
      }
    });
    kill(lost);
    awaitAllComplete();
    assertNotNull(victim.get(), "a helper was killed mid-repair");
    List<Recorded> since = assertEveryRebuiltUnitStoredByOurWorker(before);
    // The repair the helper broke was finished by our worker, on its requestor, in a new attempt without it.
    assertTrue(since.stream().anyMatch(r -> r.node().equals(requestor.get()) && r.outcome().route() == Route.OUR_WORKER
        && r.outcome().attempts() >= 2 && r.outcome().excludedHelpers().contains(victim.get())),
        "our worker finished the broken repair without " + victim.get() + ": " + since);
    TransportFaultInjector.set(null);
    everyByteReadsBack();
  }

  @Test
  void aTargetThatDiesGetsANewTarget() throws Exception {
    Before before = before();
    DatanodeInfo lost = busiestNode();
    AtomicReference<String> victim = new AtomicReference<>();
    AtomicBoolean stoppedWhileHeld = new AtomicBoolean();
    TransportFaultInjector.set(new Drill() {
      @Override
      public void beforeSend(String node, String to, long repairId, int slice, ByteBuf payload) {
        // The first requestor (the unit's target) to be sent a second slice dies; the slice is held until its
        // DataNode has stopped, so its repair cannot finish first: the task is abandoned, never half-stored.
        if (slice == 1 && to.equals(requestorOf.get(repairId)) && victim.compareAndSet(null, to)) {
          Thread killer = killLater(to);
          try {
            killer.join(120_000);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          stoppedWhileHeld.set(!killer.isAlive());
        }
      }
    });
    kill(lost);
    awaitAllComplete(); // the NameNode gave the dead target's unit (and the dead node's own units) new targets
    assertNotNull(victim.get(), "a target was killed mid-repair");
    assertTrue(stoppedWhileHeld.get(), "the target's DataNode stopped while its slice was held");
    List<Recorded> since = assertEveryRebuiltUnitStoredByOurWorker(before);
    List<ReconstructionOutcome> abandoned = since.stream()
        .filter(r -> r.node().equals(victim.get()) && r.outcome().route() == Route.ABANDONED).map(Recorded::outcome).toList();
    assertFalse(abandoned.isEmpty(), "the dying target abandoned its task: " + since);
    for (ReconstructionOutcome o : abandoned) {
      assertTrue(o.detail().contains("shutting down") && !o.units().isEmpty(), o.toString());
      for (int u : o.units()) {
        assertTrue(since.stream().anyMatch(r -> r.outcome().route() == Route.OUR_WORKER
            && r.outcome().blockGroupId() == o.blockGroupId() && storesOnALiveNode(r.outcome(), u)),
            "unit " + u + " of group " + o.blockGroupId() + " got a new target, where our worker stored it: " + since);
      }
    }
    TransportFaultInjector.set(null);
    everyByteReadsBack();
  }
}
