package org.wideec.archive.hdfs;

import java.io.Closeable;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileChecksum;
import org.apache.hadoop.fs.Options.ChecksumOpt;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.protocol.HdfsFileStatus;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedBlocks;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.wideec.topology.hdfs.DataNodeSites;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.StripeMember;
import org.wideec.archive.encode.ChainSources;
import org.wideec.archive.encode.EncodePlan;
import org.wideec.archive.encode.EncodePlanner;
import org.wideec.archive.encode.EncodeStripe;
import org.wideec.protocol.EncodeTreeRequest;
import org.wideec.topology.Site;
import org.wideec.code.LinearCode;
import org.wideec.repair.BlockRef;
import org.wideec.transport.hdfs.TokenBytes;

/**
 * The {@code chain} encoder (ECWide §4.2), executed by the DataNodes: the nodes that keep the stripe's data
 * blocks forward partial sums of the parity rows along a chain, rack by rack (in-rack first, so each rack sends one
 * partial stream across), and each tree's collector writes its finished rows into their parity blocks. No data byte
 * passes through the archiver.
 *
 * <p>The archiver's part, per stripe: it finds each data block as the NameNode lists it now (a changed block makes the
 * stripe stale) and the replica to read, as {@link ChainSources} chooses from the plan and the live replicas: the
 * kept one of the plan (the {@link Archiver} moves blocks onto their planned nodes before such a chain encodes,
 * {@link #readsPlannedHolders}), or, when that costs less, the stripe's core rack's replicas (EAR: nothing moves
 * before the encode, the plan's moves wait for the trim); the dry run makes the same choice, so the chain that runs
 * is the one it costs; creates each parity unit's
 * single-block file in the stripe's parity directory and allocates its block on the planned node (a favored node, as
 * the classic encoder asks); plans the chain over the nodes that hold the replicas and the nodes HDFS allocated the
 * parity blocks on ({@link EncodePlanner#chain}); and asks every tree's collector to run its tree with an
 * {@link EncodeTreeRequest} carrying the READ tokens of the data blocks and the WRITE tokens of the parity blocks the
 * NameNode gave it (block tokens must be on: an archiver has no cluster secret, its tokens are its authority on the
 * slice port). Once every tree reports its parities stored, it completes each parity file and asks each parity's
 * node for the CRC32C of what it stores (read back through its checksum-verified path), which must equal what the
 * collector sent; each data block's CRC32C is read the same way from its holder, for the manifest.
 *
 * <p>Any failure (a dead holder, a refused token, a corrupt slice, a CRC that differs) fails the encode with an
 * error naming the stripe and, where known, the node: no parity file is completed, and the archiver's state machine
 * (ENCODING rolls back and reruns) starts the stripe over from an empty parity directory.
 */
public final class ChainEncoder implements StripeEncoder, Closeable {
  /** Chain shape: {@code chain} (one chain through every holder) or {@code rack-tree} (a chain per rack). */
  public static final String SHAPE_KEY = "wide-ec.archive.chain.shape";
  /**
   * Stripes of one archive encoded at once: their chains run on the DataNodes, mostly in their own core racks, and a
   * stripe's chain is bound by its busiest node link (its trees' rows through each holder), not by the archiver, so
   * stripes in other racks run beside it at no cost to it. Four by default: on the real-process cluster (six racks of
   * four, 512 MiB to Azure-LRC 12+2+2, six stripes) the whole archival took 23.9 s with four at once, 22.3 s with six
   * (host CPU 58% and 63%), about 27 s with two.
   */
  public static final String CONCURRENT_KEY = "wide-ec.archive.chain.concurrent-stripes";
  public static final int CONCURRENT_DEFAULT = 4;
  private static final Logger LOG = LoggerFactory.getLogger(ChainEncoder.class);

  private final DistributedFileSystem dfs;
  private final EncodePlan.Shape shape;
  private final int concurrent;
  private final SlicePortClient ports;
  private final ParityFiles files;
  private final ExecutorService threads;
  private final ChainCollectors collectors;
  private final Map<Long, ChecksumOpt> checksums = new HashMap<>();
  /** The plans run, by stripe id (stripes may be encoded at once, and finish in any order). */
  private final java.util.TreeMap<Long, List<EncodePlan>> plans = new java.util.TreeMap<>();
  private final ChainReadReplicas replicas;

  private ChainEncoder(DistributedFileSystem dfs, EncodePlan.Shape shape, int concurrent) throws IOException {
    this.dfs = dfs;
    this.shape = shape;
    this.concurrent = concurrent;
    this.replicas = new ChainReadReplicas(shape, readsOf(dfs.getConf()));
    this.files = new ParityFiles(dfs);
    this.ports = new SlicePortClient(dfs.getConf());
    this.threads = Executors.newCachedThreadPool(r -> {
      Thread t = new Thread(r, "wide-ec-chain-encoder");
      t.setDaemon(true);
      return t;
    });
    this.collectors = new ChainCollectors(ports, files, threads);
  }

  /** @throws IllegalArgumentException naming the setting that is wrong */
  public static ChainEncoder from(DistributedFileSystem dfs) throws IOException {
    return new ChainEncoder(dfs, shapeOf(dfs.getConf()), concurrentOf(dfs.getConf()));
  }

  /**
   * The configured stripes of one archive encoded at once.
   *
   * @throws IllegalArgumentException naming the setting when it is not 1..64
   */
  public static int concurrentOf(Configuration conf) {
    int n = conf.getInt(CONCURRENT_KEY, CONCURRENT_DEFAULT);
    if (n < 1 || n > 64) {
      throw new IllegalArgumentException(CONCURRENT_KEY + " must be 1..64, got " + n);
    }
    return n;
  }

  @Override
  public int concurrentStripes() {
    return concurrent;
  }

  /**
   * The configured chain shape (what the dry run costs and the encoder runs).
   *
   * @throws IllegalArgumentException naming the setting that is wrong
   */
  public static EncodePlan.Shape shapeOf(Configuration conf) {
    String s = conf.getTrimmed(SHAPE_KEY, "chain");
    return switch (s.toLowerCase(java.util.Locale.ROOT)) {
      case "chain" -> EncodePlan.Shape.CHAIN;
      case "rack-tree" -> EncodePlan.Shape.RACK_TREE;
      default -> throw new IllegalArgumentException(SHAPE_KEY + " must be chain or rack-tree, got '" + s + "'");
    };
  }

  /**
   * Which replicas the chain reads ({@link org.wideec.archive.encode.ChainReads}: what the dry run costs and the
   * encoder runs).
   *
   * @throws IllegalArgumentException naming the setting that is wrong
   */
  public static org.wideec.archive.encode.ChainReads readsOf(Configuration conf) {
    return org.wideec.archive.encode.ChainReads.of(conf.getTrimmed(org.wideec.archive.encode.ChainReads.KEY,
        org.wideec.archive.encode.ChainReads.DEFAULT));
  }

  @Override
  public boolean readsPlannedHolders(ArchivedStripe stripe) throws IOException {
    ChainSources c = replicas.chooseBeforeMoves(stripe, StripeData.locate(dfs, stripe));
    LOG.info("stripe {}: the chain reads {}", stripe.stripeId(), c.movesFirst() ? "the planned nodes (blocks moved"
        + " there first)" : "in core rack " + c.coreRack() + " (no move before the encode)");
    return c.movesFirst();
  }

  /**
   * The replicas a chain over {@code stripe} would read if it started now, from the NameNode's live replicas: what
   * {@link #readsPlannedHolders} decides on, and what an operator (or a test) asks to know which nodes the encode
   * will use.
   */
  public ChainSources sourcesNow(ArchivedStripe stripe) throws IOException {
    return replicas.choose(stripe, StripeData.locate(dfs, stripe));
  }

  @Override
  public String name() {
    return "chain";
  }

  /**
   * The plans this encoder ran, in stripe order, a stripe encoded again after its earlier plan (what the DataNodes'
   * transport counters are checked against).
   */
  public synchronized List<EncodePlan> plans() {
    return plans.values().stream().flatMap(List::stream).toList();
  }

  @Override
  public Encoded encode(ArchivedStripe stripe) throws IOException {
    String name = "stripe " + stripe.stripeId();
    long start = System.nanoTime();
    LinearCode code = stripe.code();
    long unitLength = stripe.unitLength();
    List<StripeData.Unit> data = StripeData.locate(dfs, stripe);
    // Before anything is created: without block tokens the archiver cannot prove anything to a slice port.
    ports.requireToken(TokenBytes.of(data.get(0).block().getBlockToken()), name);
    ChecksumOpt checksum = checksumOf(stripe, data);
    long blockSize = data.stream().mapToLong(StripeData.Unit::fileBlockSize).max().orElse(unitLength);
    Path dir = new Path(stripe.parityFilePath());
    dfs.mkdirs(dir);
    Map<String, DatanodeInfo> nodes = new HashMap<>();
    Map<Integer, Site> holders = new HashMap<>();
    Map<Integer, BlockRef> blocks = new HashMap<>();
    long[] lengths = new long[code.k()];
    Map<Integer, DatanodeInfo> chosen = replicas.readHolders(stripe, data);
    for (StripeData.Unit d : data) {
      DatanodeInfo holder = chosen.get(d.unit());
      nodes.put(holder.getXferAddr(), holder);
      holders.put(d.unit(), DataNodeSites.of(holder));
      ExtendedBlock b = d.block().getBlock();
      blocks.put(d.unit(), new BlockRef(b.getBlockPoolId(), b.getBlockId(), b.getGenerationStamp(), b.getNumBytes(),
          TokenBytes.of(d.block().getBlockToken())));
      lengths[d.unit()] = d.member().length();
    }
    Map<Integer, ParityFiles.Allocated> parities = new LinkedHashMap<>();
    Map<Integer, Site> targets = new HashMap<>();
    for (int u = code.k(); u < code.n(); u++) {
      if (stripe.member(u).padding()) {
        continue; // a virtual parity is never stored; its tree (no steps) is never run
      }
      ParityFiles.Allocated a = files.allocate(stripe, u, blockSize, unitLength);
      parities.put(u, a);
      nodes.put(a.node().getXferAddr(), a.node());
      targets.put(u, DataNodeSites.of(a.node()));
    }
    EncodePlan plan = EncodePlanner.chain(EncodeStripe.archival(name, code, holders, lengths, targets), shape,
        ports.conf().sliceBytes(), ports.conf().maxFrameBytes());
    long planned = System.nanoTime();
    Map<Integer, EncodeTreeRequest.Stored> stored = collectors.run(stripe, plan, blocks, parities, nodes, checksum);
    long encoded = System.nanoTime();
    synchronized (this) {
      plans.computeIfAbsent(stripe.stripeId(), id -> new ArrayList<>()).add(plan);
    }
    List<StripeMember> members = new ArrayList<>(stripe.members());
    List<String> offPlan = new ArrayList<>();
    long written = completeParities(stripe, name, parities, stored, members, offPlan);
    long completed = System.nanoTime();
    for (Map.Entry<Integer, Long> e : dataCrcs(stripe, data, holders, nodes, blocks).entrySet()) {
      members.set(e.getKey(), stripe.member(e.getKey()).withCrc(e.getValue()));
    }
    HdfsFileStatus dirStatus = dfs.getClient().getFileInfo(dir.toString());
    if (dirStatus == null) {
      throw new IOException(name + ": its parity directory " + dir + " disappeared during the encode");
    }
    LOG.info("{}: chain encode done; {} trees, {} bytes across racks planned", name, plan.trees().size(),
        plan.crossRackBytes());
    LOG.debug("{}: {} ms locating, creating parity files and planning, {} ms the trees, {} ms completing and"
        + " checking the parities, {} ms the data CRCs", name, (planned - start) / 1_000_000,
        (encoded - planned) / 1_000_000, (completed - encoded) / 1_000_000, (System.nanoTime() - completed) / 1_000_000);
    return Encoded.systematic(members, dirStatus.getFileId(), bytesRead(plan, lengths), written, offPlan);
  }

  /** The data bytes the trees read: a unit two trees use is read twice (Azure-LRC: local and global). */
  private static long bytesRead(EncodePlan plan, long[] lengths) {
    long read = 0;
    for (EncodePlan.Tree t : plan.trees()) {
      for (EncodePlan.Step s : t.steps()) {
        read += lengths[s.unit()];
      }
    }
    return read;
  }

  /**
   * Completes each parity's file and confirms its block at the NameNode; records the member as written, and a line in
   * {@code offPlan} where HDFS placed it elsewhere than planned. The parity bytes stored.
   */
  private long completeParities(ArchivedStripe stripe, String name, Map<Integer, ParityFiles.Allocated> parities,
      Map<Integer, EncodeTreeRequest.Stored> stored, List<StripeMember> members, List<String> offPlan)
      throws IOException {
    long written = 0;
    for (Map.Entry<Integer, ParityFiles.Allocated> e : parities.entrySet()) {
      int u = e.getKey();
      ParityFiles.Allocated a = e.getValue();
      files.complete(stripe, u, a);
      EncodeTreeRequest.Stored s = stored.get(u);
      LocatedBlock block = confirm(stripe, u, a, s);
      StripeMember m = stripe.member(u);
      String actual = block.getLocations()[0].getXferAddr();
      if (!actual.equals(m.plannedNode())) {
        String miss = name + " unit " + u + " (" + a.file() + "): HDFS placed the parity block on " + actual
            + ", the plan says " + m.plannedNode() + " (" + m.plannedRack() + ")";
        LOG.warn("{}; left for the placement fixer", miss);
        offPlan.add(miss);
      }
      members.set(u, m.written(a.inode(), a.block().getBlockId(), a.block().getGenerationStamp(), s.crc32c()));
      written += s.length();
    }
    return written;
  }

  /**
   * The checksum type and bytes per checksum of the data blocks (each file's, as its DataNode reports it), which the
   * parity blocks are written with. Files of one stripe normally agree; where they do not, the first data unit's
   * wins, and the parity is then checked with a checksum other files do not use (said in the log).
   */
  private ChecksumOpt checksumOf(ArchivedStripe stripe, List<StripeData.Unit> data) throws IOException {
    ChecksumOpt first = null;
    for (StripeData.Unit d : data) {
      ChecksumOpt c;
      synchronized (checksums) {
        c = checksums.get(d.member().inodeId());
      }
      if (c == null) {
        FileChecksum fc = dfs.getClient().getFileChecksumWithCombineMode(d.file().toString(), 1);
        c = fc == null ? null : fc.getChecksumOpt();
        if (c == null || c.getBytesPerChecksum() <= 0) {
          throw new IOException("stripe " + stripe.stripeId() + " unit " + d.unit() + ": " + d.file()
              + " reports no checksum type (" + fc + "); cannot write its parity with the data's checksum");
        }
        synchronized (checksums) {
          checksums.put(d.member().inodeId(), c);
        }
      }
      if (first == null) {
        first = c;
      } else if (first.getChecksumType() != c.getChecksumType() || first.getBytesPerChecksum() != c.getBytesPerChecksum()) {
        LOG.warn("stripe {}: data unit {} ({}) has checksum {}/{} bytes, the parity is written with {}/{} bytes",
            stripe.stripeId(), d.unit(), d.file(), c.getChecksumType(), c.getBytesPerChecksum(),
            first.getChecksumType(), first.getBytesPerChecksum());
      }
    }
    return first;
  }

  @Override
  public java.util.OptionalLong heldCrc(LocatedBlock lb, String where) throws IOException {
    if (lb.getLocations().length == 0) {
      throw new IOException(where + ": HDFS lists no replica of block " + lb.getBlock().getBlockId());
    }
    return java.util.OptionalLong.of(ports.crcOf(lb, lb.getLocations()[0], where));
  }

  /** The parity's block as HDFS lists it now, after its node read back the CRC32C the collector sent. */
  private LocatedBlock confirm(ArchivedStripe stripe, int unit, ParityFiles.Allocated a, EncodeTreeRequest.Stored s)
      throws IOException {
    String where = "stripe " + stripe.stripeId() + " unit " + unit + " (" + a.file() + ")";
    LocatedBlocks lbs = dfs.getClient().getLocatedBlocks(a.file().toString(), 0, s.length());
    List<LocatedBlock> blocks = lbs.getLocatedBlocks();
    if (lbs.isUnderConstruction() || blocks.size() != 1 || blocks.get(0).getBlock().getBlockId() != a.block().getBlockId()
        || lbs.getFileLength() != s.length() || blocks.get(0).getLocations().length == 0) {
      throw new IOException(where + ": should be the closed block " + a.block().getBlockId() + " of " + s.length()
          + " bytes, HDFS has " + blocks.size() + " block(s) of " + lbs.getFileLength() + " bytes"
          + (lbs.isUnderConstruction() ? ", still open" : ""));
    }
    LocatedBlock lb = blocks.get(0);
    DatanodeInfo node = lb.getLocations()[0];
    long crc = ports.crcOf(lb, node, where);
    if (crc != s.crc32c()) {
      throw new IOException(where + ": " + node.getXferAddr() + " stores CRC32C 0x" + Long.toHexString(crc)
          + ", the collector sent 0x" + Long.toHexString(s.crc32c()) + "; a rerun encodes the stripe again");
    }
    return lb;
  }

  /**
   * The CRC32C of every data block, all at once, each from its holder, which composes it from the block's chunk
   * checksums: the trees have just read every data block there through the verified path, so the checksums are
   * known to describe the bytes encoded, and reading each block a second (or third) time would prove nothing more.
   */
  private Map<Integer, Long> dataCrcs(ArchivedStripe stripe, List<StripeData.Unit> data, Map<Integer, Site> holders,
      Map<String, DatanodeInfo> nodes, Map<Integer, BlockRef> blocks) throws IOException {
    Map<Integer, Future<Long>> pending = new LinkedHashMap<>();
    for (StripeData.Unit d : data) {
      DatanodeInfo holder = nodes.get(holders.get(d.unit()).node());
      String where = "stripe " + stripe.stripeId() + " data unit " + d.unit() + " (block " + d.member().blockId()
          + " of " + d.file() + ")";
      Callable<Long> c = () -> ports.storedCrcOf(d.block(), holder, where);
      pending.put(d.unit(), threads.submit(c));
    }
    Map<Integer, Long> out = new LinkedHashMap<>();
    try {
      for (Map.Entry<Integer, Future<Long>> e : pending.entrySet()) {
        out.put(e.getKey(), e.getValue().get());
      }
    } catch (ExecutionException e) {
      throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause().toString(), e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("stripe " + stripe.stripeId() + ": interrupted reading data CRCs");
    } finally {
      pending.values().forEach(f -> f.cancel(true));
    }
    return out;
  }

  @Override
  public void close() {
    ports.close();
    threads.shutdownNow();
  }

  @Override
  public String toString() {
    return "chain encoder (" + shape.name().toLowerCase().replace('_', '-') + " shape) at " + ports;
  }
}
