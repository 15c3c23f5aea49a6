package org.wideec.client;

import java.io.IOException;
import java.net.URI;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DFSInputStream;
import org.apache.hadoop.hdfs.DFSStripedInputStream;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.WideEcClientAccess;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.protocol.LocatedBlocks;
import org.wideec.code.InvalidCodeSpecException;
import org.wideec.code.LinearCode;
import org.wideec.coder.ErasureCoder;
import org.wideec.coder.StripedCodec;

/**
 * HDFS for clients that must read through every loss the code can decode: set
 * {@code fs.hdfs.impl=org.wideec.client.WideEcFileSystem}. HDFS's striped reader assumes MDS and fails on
 * LRC loss patterns it could have read with another choice of parities (DESIGN.md §2); this FileSystem
 * reads such block groups itself. Everything else is DistributedFileSystem unchanged: replicated files,
 * files of other codecs, files being written and encrypted files get the stock stream, and healthy groups
 * of our files are read by the stock striped stream inside ours, with no extra NameNode call.
 *
 * <p>A range with one lost data unit is read pipelined by default (ECPipe §3.2, {@link RepairChains}): DataNodes
 * rebuild the lost rows along a chain and send them to this client once; any failure falls back to direct decode.
 *
 * <p>A replicated file whose block list shows a block with no live replica (an archived file that lost its single
 * replica, DESIGN.md §3.2) is read by {@link ArchivedInputStream}: a DataNode rebuilds each range of that block
 * through the stripe's other members and sends this client that range only.
 */
public class WideEcFileSystem extends DistributedFileSystem {
  private final ReadPathCounters counters = new ReadPathCounters();
  /** Coders shared by every stream of this FileSystem, by code spec (each caches its decode plans). */
  private final ConcurrentHashMap<String, ErasureCoder> coders = new ConcurrentHashMap<>();
  /** Pipelined degraded reads (null: direct decode), read from wide-ec.client.degraded-read. */
  private RepairChains chains;
  /** Reads of archived files' lost blocks through a DataNode (null: off), from wide-ec.client.archived-reads. */
  private ArchivedReads archived;

  @Override
  public void initialize(URI uri, Configuration conf) throws IOException {
    // A misspelt mode fails here, naming the key, rather than silently choosing a read path.
    RepairChains.Mode mode = RepairChains.mode(conf);
    boolean archivedReads = ArchivedReads.enabled(conf);
    super.initialize(uri, conf);
    chains = mode == RepairChains.Mode.PIPELINED ? new RepairChains(conf) : null;
    archived = archivedReads ? new ArchivedReads(conf, getUri()) : null;
  }

  @Override
  public FSDataInputStream open(Path f, int bufferSize) throws IOException {
    FSDataInputStream in = super.open(f, bufferSize);
    if (archived != null && !(in.getWrappedStream() instanceof DFSStripedInputStream)
        && in.getWrappedStream() instanceof DFSInputStream plain
        && ArchivedInputStream.wanted(WideEcClientAccess.locatedBlocks(plain))) {
      return new FSDataInputStream(new ArchivedInputStream(plain, getClient(), archived, counters));
    }
    if (!(in.getWrappedStream() instanceof DFSStripedInputStream striped)) {
      return in; // replicated, or wrapped for decryption
    }
    LocatedBlocks blocks = WideEcClientAccess.locatedBlocks(striped);
    ErasureCodingPolicy policy = blocks == null ? null : blocks.getErasureCodingPolicy();
    LinearCode code = policy == null || !CodeAwareInputStream.servable(blocks) ? null : ourCode(policy);
    if (code == null) {
      return in;
    }
    ErasureCoder coder = coders.computeIfAbsent(code.spec(), s -> ErasureCoder.java(code));
    StripedFile file = new StripedFile(getClient(), WideEcClientAccess.src(striped), policy, code, coder, WideEcClientAccess.verifiesChecksums(striped),
        counters, chains);
    return new FSDataInputStream(new CodeAwareInputStream(striped, file));
  }

  /** The code of a policy of one of our codecs, or null (other codecs, or a (k, m) the codec cannot build). */
  static LinearCode ourCode(ErasureCodingPolicy policy) {
    if (!StripedCodec.names().contains(policy.getCodecName())) {
      return null;
    }
    try {
      LinearCode code = StripedCodec.byName(policy.getCodecName()).codeFor(policy.getNumDataUnits(), policy.getNumParityUnits());
      return code.isSystematic() ? code : null;
    } catch (InvalidCodeSpecException e) {
      return null;
    }
  }

  @Override
  public void close() throws IOException {
    try {
      super.close();
    } finally {
      if (chains != null) {
        chains.close();
      }
      if (archived != null) {
        archived.close();
      }
    }
  }

  /** The scheme of the chains that serve pipelined degraded reads. */
  public static final org.wideec.repair.RepairScheme CHAIN_SCHEME = RepairChains.SCHEME;

  /**
   * The slice a pipelined degraded read of {@code rangeBytes} travels in, so that a benchmark can time other paths
   * of the same range in the same slices.
   */
  public static int chainSliceBytes(long rangeBytes, int checksumChunk, int maxSlice) {
    return RepairChains.sliceBytes(rangeBytes, checksumChunk, maxSlice);
  }

  /** What this FileSystem's reads did (code-aware path versus stock). */
  public ReadPathCounters readPathCounters() {
    return counters;
  }
}
