package org.wideec.datanode;

import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.security.token.block.BlockTokenIdentifier;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.wideec.repair.BlockRef;
import org.wideec.protocol.PinRequest;
import org.wideec.transport.Downstream;
import org.wideec.transport.SliceTransport;
import org.wideec.transport.TransportConf;

/**
 * Serves the NameNode's {@link PinRequest}s: pins the replicas of archived blocks that sit where
 * their stripe's plan put them, through {@code FsDatasetSpi#setPinning}, which is what DataXceiver#copyBlock checks
 * before it lets the Balancer or the Mover take a replica away. A block is pinned only if this DataNode holds a
 * finalized replica of it with the order's generation stamp; pinning twice is harmless. With
 * {@code dfs.datanode.block-pinning.enabled} off HDFS ignores pins, so each block is answered PINNING_OFF and the
 * DataNode's bean says so ({@link SliceEndpointMXBean#isBlockPinning}). Only a peer that proved the cluster secret
 * may order pins, and with block tokens on each block needs a REPLACE token (the authority a move needs).
 */
final class PinService {
  private static final Logger LOG = LoggerFactory.getLogger(PinService.class);
  private final DataNode dn;
  private final SliceTransport transport;
  private final boolean blockTokens;
  private final boolean pinning;

  PinService(DataNode dn, SliceTransport transport) {
    this.dn = dn;
    this.transport = transport;
    this.blockTokens = BlockTokenAccess.enabled(dn);
    this.pinning = enabled(dn);
  }

  /** Whether HDFS honours pins on this DataNode. */
  static boolean enabled(DataNode dn) {
    return dn.getConf().getBoolean(DFSConfigKeys.DFS_DATANODE_BLOCK_PINNING_ENABLED,
        DFSConfigKeys.DFS_DATANODE_BLOCK_PINNING_ENABLED_DEFAULT);
  }

  void onRequest(long repairId, byte[] body, Downstream downstream) {
    String me = downstream.selfNode();
    if (!downstream.clusterPeer()) {
      LOG.warn("wide-ec: {} refused a pin order from {}: it did not prove the cluster secret", me, downstream.node());
      downstream.fail(null, me + " refused: only a peer that proved the cluster secret may order pins");
      return;
    }
    if (transport.conf().secret() == null && !blockTokens) {
      // auth=none makes every caller a "peer": without block tokens nothing proves the order is the NameNode's.
      downstream.fail(null, me + " refused: with " + TransportConf.AUTH + "=none a pin order needs block tokens"
          + " (dfs.block.access.token.enable) to prove it comes from the NameNode");
      return;
    }
    try {
      PinRequest req = PinRequest.parse(body);
      List<PinRequest.Outcome> outcomes = new ArrayList<>(req.blocks().size());
      int pinned = 0;
      for (BlockRef b : req.blocks()) {
        PinRequest.Outcome o = pin(b, me);
        pinned += o == PinRequest.Outcome.PINNED ? 1 : 0;
        outcomes.add(o);
      }
      if (pinned > 0) {
        LOG.info("wide-ec: {} pinned {} replicas of archived blocks where their stripes' plans put them", me, pinned);
      }
      byte[] answer = PinRequest.answer(outcomes);
      ByteBuf frame = downstream.alloc().heapBuffer(answer.length);
      frame.writeBytes(answer);
      downstream.send(0, frame);
      downstream.end();
    } catch (IOException e) {
      LOG.warn("wide-ec: {} refused a pin order from {}: {}", me, downstream.node(), e.getMessage());
      downstream.fail(null, me + " refused: " + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      downstream.fail(null, me + " was interrupted while answering a pin order");
    } catch (RuntimeException e) { // nothing escapes into the transport's worker
      LOG.error("wide-ec: pin order on {} failed unexpectedly", me, e);
      downstream.fail(null, me + ": pin order failed: " + e);
    }
  }

  private PinRequest.Outcome pin(BlockRef b, String me) {
    ExtendedBlock eb = new ExtendedBlock(b.pool(), b.blockId(), b.numBytes(), b.genStamp());
    try {
      if (blockTokens) {
        BlockTokenAccess.check(dn, b, BlockTokenIdentifier.AccessMode.REPLACE);
      }
      // The replica map is looked up by id and generation stamp: another stamp is another replica, left alone.
      if (!dn.getFSDataset().isValidBlock(eb)) {
        return PinRequest.Outcome.NOT_HELD;
      }
      if (!pinning) {
        return PinRequest.Outcome.PINNING_OFF;
      }
      if (dn.getFSDataset().getPinning(eb)) {
        return PinRequest.Outcome.ALREADY_PINNED;
      }
      dn.getFSDataset().setPinning(eb);
      return dn.getFSDataset().getPinning(eb) ? PinRequest.Outcome.PINNED : PinRequest.Outcome.FAILED;
    } catch (IOException | RuntimeException e) {
      LOG.warn("wide-ec: {} did not pin {}: {}", me, b, e.getMessage());
      return PinRequest.Outcome.FAILED;
    }
  }
}
