package org.wideec.archive.hdfs;

import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.hadoop.fs.Options.ChecksumOpt;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.protocol.HdfsFileStatus;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.StripeMember;
import org.wideec.archive.StripeUpdate;
import org.wideec.archive.UpdateChoice;
import org.wideec.archive.encode.EncodePlan;
import org.wideec.protocol.EncodeTreeRequest;
import org.wideec.repair.BlockRef;
import org.wideec.topology.Site;
import org.wideec.topology.hdfs.DataNodeSites;
import org.wideec.transport.hdfs.TokenBytes;

/**
 * Re-encodes the parities a stripe update rewrites on the DataNodes, by the archival chain (ECWide §4.2,
 * {@link ChainCollectors}, the same trees and requests as {@link ChainEncoder}): the nodes holding the data the stripe
 * keeps forward partial sums of the rewritten rows rack by rack, and each tree's collector writes them into the new
 * parity blocks allocated for the update's version. A removed unit counts as zeros, so no old byte is read: what a
 * member deleted behind wide-ec's back needs (nothing to decode) and what {@link UpdateChoice} picks when it crosses
 * racks less than the scheme's delta plan. The lifecycle around it is the delta update's.
 */
final class ChainReEncoder implements Closeable {
  private final EncodePlan.Shape shape;
  private final SlicePortClient ports;
  private final ExecutorService threads;
  private final ChainCollectors collectors;
  private final List<EncodePlan> plans = new ArrayList<>();

  ChainReEncoder(SlicePortClient ports, ParityFiles files, EncodePlan.Shape shape) {
    this.shape = shape;
    this.ports = ports;
    this.threads = Executors.newCachedThreadPool(r -> {
      Thread t = new Thread(r, "wide-ec-update-reencoder");
      t.setDaemon(true);
      return t;
    });
    this.collectors = new ChainCollectors(ports, files, threads);
  }

  /**
   * The data a re-encoding reads, as the NameNode lists it now: each data unit the stripe keeps (an archived one
   * checked to be the block recorded, a replacement or a fill the block planned for it) and the replica read, the
   * planned one where it is ({@link StripeData#readHolders}); the data files' largest block size.
   */
  record Sources(Map<Integer, LocatedBlock> blocks, Map<Integer, DatanodeInfo> holders, long blockSize) {
    static Sources of(DistributedFileSystem dfs, StripeUpdate up, Set<Long> gone) throws IOException {
      ArchivedStripe s = up.before();
      List<StripeData.Unit> kept = new ArrayList<>();
      long blockSize = 0;
      for (StripeData.Unit d : StripeData.locate(dfs, s, gone)) { // checks every archived block is the one recorded
        blockSize = Math.max(blockSize, d.fileBlockSize());
        if (Arrays.binarySearch(up.changedUnits(), d.unit()) < 0) {
          kept.add(d);
        }
      }
      for (int u : up.changedUnits()) {
        StripeMember next = up.after(u);
        if (!next.padding()) {
          LocatedBlock b = ParityDeltaWriter.replacementBlock(dfs, s, u, next);
          org.apache.hadoop.fs.Path file = ArchiveLayout.inodePath(next.inodeId());
          HdfsFileStatus st = dfs.getClient().getFileInfo(file.toString());
          long size = st == null ? 0 : st.getBlockSize();
          blockSize = Math.max(blockSize, size);
          kept.add(new StripeData.Unit(u, next, file, b.getStartOffset(), size, b));
        }
      }
      Map<Integer, LocatedBlock> blocks = new HashMap<>();
      kept.forEach(d -> blocks.put(d.unit(), d.block()));
      return new Sources(blocks, StripeData.readHolders(s, kept), blockSize);
    }
  }

  /**
   * Runs the chain's trees that store a rewritten parity into the blocks {@code allocated} for them; what each
   * collector stored. The plan run is added to {@link #plans}.
   *
   * @throws IOException naming the stripe and, where known, the node to blame; no parity file was completed
   */
  Map<Integer, EncodeTreeRequest.Stored> run(StripeUpdate up, Sources at,
      Map<Integer, ParityFiles.Allocated> allocated, ChecksumOpt checksum) throws IOException {
    Map<String, DatanodeInfo> nodes = new HashMap<>();
    Map<Integer, Site> holders = new HashMap<>();
    Map<Integer, BlockRef> blocks = new HashMap<>();
    at.holders().forEach((u, dn) -> {
      nodes.put(dn.getXferAddr(), dn);
      holders.put(u, DataNodeSites.of(dn));
      LocatedBlock lb = at.blocks().get(u);
      ExtendedBlock b = lb.getBlock();
      blocks.put(u, new BlockRef(b.getBlockPoolId(), b.getBlockId(), b.getGenerationStamp(), b.getNumBytes(),
          TokenBytes.of(lb.getBlockToken())));
    });
    Map<Integer, Site> targets = new HashMap<>();
    allocated.forEach((u, a) -> {
      nodes.put(a.node().getXferAddr(), a.node());
      targets.put(u, DataNodeSites.of(a.node()));
    });
    int slice = ports.conf().sliceBytes();
    int frame = ports.conf().maxFrameBytes();
    // The collectors plan the whole chain again from each request: the trees are numbered as in the whole plan.
    EncodePlan whole = UpdateChoice.chain(up, holders, targets, shape, slice, frame);
    Map<Integer, EncodeTreeRequest.Stored> stored = collectors.run(up.before(), whole, blocks, allocated, nodes,
        checksum);
    synchronized (plans) {
      plans.add(UpdateChoice.reEncoding(up, holders, targets, shape, slice, frame));
    }
    return stored;
  }

  /** The re-encodings run so far, each as it crosses racks (what the DataNodes' counters are checked against). */
  List<EncodePlan> plans() {
    synchronized (plans) {
      return List.copyOf(plans);
    }
  }

  @Override
  public void close() {
    threads.shutdownNow();
  }
}
