package org.wideec.archive.hdfs;

import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.encode.RapidRaidPlan;
import org.wideec.topology.Site;
import org.wideec.transport.hdfs.TokenBytes;

/**
 * One per sealing run with {@code --encoder rapidraid}: the slice-port client, the block mover and the pipelines'
 * thread pool every stripe's {@link PipelineCodewordEncoder} shares, and what every stripe's pipeline did (its plan,
 * the replica copies onto chain nodes) for the run's report.
 */
public final class RapidRaidPipelines implements SealedArchiver.EncoderFactory, Closeable {
  final DistributedFileSystem dfs;
  final SlicePortClient ports;
  final BlockMover mover;
  final ExecutorService threads;
  final List<RapidRaidPlan> plans = new ArrayList<>();
  final List<String> moves = new ArrayList<>();
  final List<Copy> copies = new ArrayList<>();

  public RapidRaidPipelines(DistributedFileSystem dfs) throws IOException {
    this.dfs = dfs;
    this.ports = new SlicePortClient(dfs.getConf());
    this.mover = new BlockMover(dfs);
    this.threads = Executors.newCachedThreadPool(r -> {
      Thread t = new Thread(r, "wide-ec-rapidraid-encoder");
      t.setDaemon(true);
      return t;
    });
  }

  @Override
  public StripeEncoder encoderFor(Path file) {
    return new PipelineCodewordEncoder(this, file);
  }

  /**
   * The plan {@link #encoderFor}'s encoder would run for stripe {@code s} of {@code file} now, from the live
   * replicas and nodes, changing nothing ({@code --dry-run}).
   */
  public RapidRaidPlan plan(Path file, ArchivedStripe s) throws IOException {
    PipelineCodewordEncoder e = new PipelineCodewordEncoder(this, file);
    String name = e.nameOf(s);
    Map<Integer, LocatedBlock> located = e.locate(s, name);
    ports.requireToken(TokenBytes.of(located.get(0).getBlockToken()), name); // as the run does, before anything
    return RapidRaidChainSources.plan(s, name, e.path, located, mover.liveNodes(), Set.of(), e.replication(name),
        ports.conf().sliceBytes(), ports.conf().maxFrameBytes());
  }

  /** The plans run so far, in order (what the DataNodes' cross-rack counters are held to). */
  public synchronized List<RapidRaidPlan> plans() {
    return List.copyOf(plans);
  }

  /** One line per replica copied onto a chain node. */
  public synchronized List<String> moves() {
    return List.copyOf(moves);
  }

  /** The copies made, in order, as data (what a dry run's moves are held to). */
  public synchronized List<Copy> copies() {
    return List.copyOf(copies);
  }

  @Override
  public void close() {
    ports.close();
    mover.close();
    threads.shutdownNow();
  }

  /** A replica copy the run made: piece {@code piece} of stripe {@code stripe}, {@code bytes} long. */
  public record Copy(long stripe, int piece, Site from, Site to, long bytes) {
    public boolean crossRack() {
      return !from.sameRack(to);
    }
  }
}
