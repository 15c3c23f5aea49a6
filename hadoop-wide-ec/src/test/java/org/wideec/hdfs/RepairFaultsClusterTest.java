package org.wideec.hdfs;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.wideec.hdfs.RepairClusterFixture.awaitAllComplete;
import static org.wideec.hdfs.RepairClusterFixture.busiestNode;
import static org.wideec.hdfs.RepairClusterFixture.cluster;
import static org.wideec.hdfs.RepairClusterFixture.everyByteReadsBack;
import static org.wideec.hdfs.RepairClusterFixture.kill;
import static org.wideec.hdfs.RepairClusterFixture.sum;

import io.netty.buffer.ByteBuf;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.wideec.datanode.RepairMetrics;
import org.wideec.datanode.WideEcDataNodePlugin;
import org.wideec.transport.TransportFaultInjector;

/**
 * DataNodes dying in the middle of our worker's repairs: a helper (the repair restarts without it) and the
 * target (the NameNode gives the unit a new target). Every replica is read back checksum-verified and equal
 * to what the code computes, and every file equal to what was written.
 */
class RepairFaultsClusterTest {
  @BeforeEach
  void start() throws Exception {
    Configuration conf = new Configuration();
    // A reconstruction whose target died is given a new one after this long.
    conf.setInt(DFSConfigKeys.DFS_NAMENODE_RECONSTRUCTION_PENDING_TIMEOUT_SEC_KEY, 8);
    RepairClusterFixture.start(conf);
  }

  @AfterEach
  void stop() {
    RepairClusterFixture.stop();
  }

  /** Stops a DataNode from a fresh thread (a helper thread cannot wait for its own DataNode's shutdown). */
  private static void killLater(String xferAddr) {
    for (DataNode dn : cluster.getDataNodes()) {
      if (dn.getDatanodeId().getXferAddr().equals(xferAddr)) {
        DatanodeInfo info = new org.apache.hadoop.hdfs.protocol.DatanodeInfo.DatanodeInfoBuilder()
            .setNodeID(dn.getDatanodeId()).build();
        new Thread(() -> {
          try {
            kill(info);
          } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
          }
        }, "test-kill-" + xferAddr).start();
        return;
      }
    }
  }

  @Test
  void aHelperThatDiesMidRepairIsReplaced() throws Exception {
    DatanodeInfo lost = busiestNode();
    AtomicReference<String> victim = new AtomicReference<>();
    TransportFaultInjector.set(new TransportFaultInjector() {
      @Override
      public void beforeSend(String node, String to, long repairId, int slice, ByteBuf payload) throws java.io.IOException {
        // The first helper that forwards to another helper (not to the requestor) dies at its third slice.
        if (slice == 2 && !node.equals(lost.getXferAddr()) && victim.compareAndSet(null, node)) {
          killLater(node);
          throw new java.io.IOException("helper " + node + " died");
        }
      }
    });
    long retries = sum(RepairMetrics::retries);
    kill(lost);
    awaitAllComplete();
    assertNotNull(victim.get(), "a helper was killed mid-repair");
    assertTrue(sum(RepairMetrics::retries) > retries, "the repair restarted without the dead helper");
    TransportFaultInjector.set(null);
    everyByteReadsBack();
  }

  @Test
  void aTargetThatDiesGetsANewTarget() throws Exception {
    DatanodeInfo lost = busiestNode();
    AtomicReference<String> victim = new AtomicReference<>();
    TransportFaultInjector.set(new TransportFaultInjector() {
      @Override
      public void beforeSend(String node, String to, long repairId, int slice, ByteBuf payload) {
        // The first requestor (the unit's first target) to receive a slice dies.
        if (slice == 1 && isRequestor(to) && victim.compareAndSet(null, to)) {
          killLater(to);
        }
      }
    });
    kill(lost);
    awaitAllComplete(); // the NameNode gave the dead target's unit (and the dead node's own units) new targets
    assertNotNull(victim.get(), "a target was killed mid-repair");
    TransportFaultInjector.set(null);
    everyByteReadsBack();
  }

  /** Whether a node runs one of our repairs as requestor (the first target of a NameNode task). */
  private static boolean isRequestor(String node) {
    for (DataNode dn : cluster.getDataNodes()) {
      WideEcDataNodePlugin p = WideEcDataNodePlugin.running(dn.getXferPort());
      if (dn.getDatanodeId().getXferAddr().equals(node) && p != null && p.metrics() != null) {
        return p.metrics().tasksTakenOver() > 0;
      }
    }
    return false;
  }
}
