package org.wideec.engine;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.wideec.coder.ErasureCoder;
import org.wideec.gf.RegionKernels;
import org.wideec.repair.BlockRef;
import org.wideec.repair.EndpointResolver;
import org.wideec.repair.SliceSink;
import org.wideec.protocol.StepRequest;
import org.wideec.repair.UnitLocation;
import org.wideec.topology.Endpoint;
import org.wideec.transport.BackgroundWork;
import org.wideec.transport.Frame;
import org.wideec.transport.PeerFailure;
import org.wideec.transport.PeerStream;
import org.wideec.transport.SliceTransport;
import org.wideec.protocol.EncodeTreeRequest;
import org.wideec.protocol.RapidRaidStepRequest;
import org.wideec.topology.Site;
import org.wideec.archive.encode.ParitySinks;
import org.wideec.archive.encode.RapidRaidPlan;
import org.wideec.archive.encode.EncodePlan;
import org.wideec.archive.encode.RapidRaidPipeline;
import org.wideec.archive.encode.EncodePlanner;

/**
 * Runs an {@link EncodePlan} over the slice transport ({@link RapidRaidExecutor} runs a RapidRAID plan). Every tree
 * is collected at its collector's node, which asks its heads for their streams; each head asks its own feeders
 * (StepService serves the steps, one row per parity of the tree in every frame), so a chain is set up from the
 * collector backwards and its partial sums flow forwards, pipelined slice by slice (ECPipe §3.2, ECWide §4.2). A classic tree's collector asks every holder for its
 * raw unit at once and encodes with the {@link ErasureCoder} (ISA-L on direct buffers when loaded).
 *
 * <p>All or nothing, as far as sinks allow: the parity sinks are opened only once every tree has computed its first
 * slice, which proves every helper of every tree reached and reading; any failure after that aborts every sink, and
 * the sinks are finished, one after another, only when every tree has ended cleanly (a sink that then fails to store
 * its parity fails the encode, naming the parities already stored; the archival state machine never counts a stripe
 * encoded before its parities are verified). A failure names the stripe and the node to blame (a helper that
 * cannot be reached, dies, stalls, fails to read or sends a corrupt slice), as a {@link PeerFailure}, so the caller
 * can encode again from another replica of that node's units.
 */
public final class EncodeExecutor {
  private static final Logger LOG = LoggerFactory.getLogger(EncodeExecutor.class);

  /** The slice transport of the node that collects a tree (a DataNode runs only its own; a test has them all). */
  @FunctionalInterface
  public interface Collectors {
    SliceTransport at(Site collector) throws IOException;
  }

  /** How an encode went: trees collected, streams opened by collectors, wall time. */
  public record Result(int trees, int streams, long millis) {}

  private final Collectors collectors;
  private final EndpointResolver resolver;

  public EncodeExecutor(Collectors collectors, EndpointResolver resolver) {
    this.collectors = collectors;
    this.resolver = resolver;
  }

  /**
   * Computes the plan's parities and writes each through {@code sinks}.
   *
   * @param blocks the replica (with its read token) of every data unit the plan reads
   * @throws PeerFailure naming the stripe and the node to blame; nothing was finished in any sink
   * @throws IOException when a sink fails to store its parity (the other sinks are aborted)
   */
  public Result run(EncodePlan plan, Map<Integer, BlockRef> blocks, ParitySinks sinks)
      throws IOException, InterruptedException {
    long start = System.nanoTime();
    long encodeId = BackgroundWork.id(true); // archival: background work, sent under the helpers' caps
    List<Collection> collections = new ArrayList<>();
    List<Opened> opened = java.util.Collections.synchronizedList(new ArrayList<>());
    List<Integer> stored = new ArrayList<>();
    CountDownLatch firstSlices = new CountDownLatch(plan.trees().size());
    boolean done = false;
    try {
      for (EncodePlan.Tree tree : plan.trees()) {
        collections.add(open(plan, tree, blocks, encodeId));
      }
      collect(plan, collections, sinks, opened, firstSlices);
      for (Opened o : List.copyOf(opened)) {
        o.sink().finish();
        stored.add(o.parity());
      }
      done = true;
    } catch (PeerFailure f) {
      throw new PeerFailure(f.culprit(), plan.name() + ": " + plan.encoder().name().toLowerCase() + " encode failed"
          + (f.culprit() == null ? "" : ", " + blame(plan, f.culprit())) + ": " + f.getMessage(), f);
    } catch (IOException e) {
      throw new IOException(plan.name() + ": storing the parities failed" + (stored.isEmpty() ? ", none was stored"
          : "; parities " + stored + " were stored before, the others aborted") + ": " + e.getMessage(), e);
    } finally {
      if (!done) {
        List.copyOf(opened).stream().filter(o -> !stored.contains(o.parity())).forEach(o -> o.sink().abort());
      }
      collections.forEach(Collection::close);
    }
    long ms = (System.nanoTime() - start) / 1_000_000;
    int streams = collections.stream().mapToInt(c -> c.streams.size()).sum();
    LOG.info("{}: {} encode of parities {} done in {} ms ({} trees, {} streams from collectors)", plan.name(),
        plan.encoder().name().toLowerCase(), plan.trees().stream().map(t -> Arrays.toString(t.rows())).toList(), ms,
        plan.trees().size(), streams);
    return new Result(plan.trees().size(), streams, ms);
  }

  /** What a node was doing in the plan, for the error that blames it. */
  private static String blame(EncodePlan plan, String node) {
    List<Integer> units = new ArrayList<>();
    List<Integer> collected = new ArrayList<>();
    for (EncodePlan.Tree t : plan.trees()) {
      t.steps().stream().filter(s -> s.site().node().equals(node)).forEach(s -> units.add(s.unit()));
      if (t.collector().node().equals(node)) {
        Arrays.stream(t.rows()).forEach(collected::add);
      }
    }
    return "blaming " + node + (units.isEmpty() ? "" : ", holder of data units " + units.stream().distinct().toList())
        + (collected.isEmpty() ? "" : ", collector of parities " + collected);
  }

  /** A parity's sink, once opened. */
  private record Opened(int parity, SliceSink sink) {}

  /** One tree as its collector runs it: the streams of its heads, in the order of the tree's heads. */
  private static final class Collection implements AutoCloseable {
    final EncodePlan.Tree tree;
    final List<PeerStream> streams = new ArrayList<>();
    final List<Integer> heads;

    Collection(EncodePlan.Tree tree) {
      this.tree = tree;
      this.heads = tree.feeders(EncodePlan.COLLECTOR);
    }

    @Override
    public void close() {
      streams.forEach(PeerStream::close);
    }
  }

  /** Asks the tree's heads for their streams (each head asks its feeders in turn). */
  private Collection open(EncodePlan plan, EncodePlan.Tree tree, Map<Integer, BlockRef> blocks, long encodeId)
      throws IOException {
    Collection c = new Collection(tree);
    SliceTransport transport = collectors.at(tree.collector());
    try {
      for (int head : c.heads) {
        EncodePlan.Step s = tree.steps().get(head);
        c.streams.add(transport.open(endpoint(s), tree.collector().node(), tree.collector().rack(), encodeId,
            request(plan, tree, head, blocks).toBytes()));
      }
    } catch (IOException | RuntimeException e) {
      c.close();
      throw e;
    }
    return c;
  }

  /** Step {@code i}'s request, with its feeders' requests inside it. */
  private StepRequest request(EncodePlan plan, EncodePlan.Tree tree, int i, Map<Integer, BlockRef> blocks)
      throws PeerFailure {
    List<StepRequest.Upstream> ups = new ArrayList<>();
    for (int f : tree.feeders(i)) {
      ups.add(new StepRequest.Upstream(endpoint(tree.steps().get(f)), request(plan, tree, f, blocks)));
    }
    EncodePlan.Step s = tree.steps().get(i);
    BlockRef block = blocks.get(s.unit());
    if (block == null) {
      throw new IllegalArgumentException(plan.name() + ": no replica named for data unit " + s.unit());
    }
    return StepRequest.encodeStep(block, s.coefficients(), plan.unitBytes(), plan.sliceBytes(), ups);
  }

  private Endpoint endpoint(EncodePlan.Step s) throws PeerFailure {
    try {
      return resolver.resolve(new UnitLocation(s.unit(), s.site()));
    } catch (PeerFailure e) {
      throw e;
    } catch (IOException e) {
      throw new PeerFailure(s.site().node(), "cannot find the slice service of " + s.site() + ", holder of data unit "
          + s.unit() + ": " + e.getMessage(), e);
    }
  }

  /** Collects every tree at once (one thread each); the first failure stops the others. */
  private static void collect(EncodePlan plan, List<Collection> collections, ParitySinks sinks, List<Opened> opened,
      CountDownLatch firstSlices) throws IOException, InterruptedException {
    ExecutorService threads = Executors.newFixedThreadPool(collections.size(), r -> {
      Thread t = new Thread(r, "wide-ec-encode-" + plan.name());
      t.setDaemon(true);
      return t;
    });
    try {
      // Taken as they end, not in order: a tree waiting for the others' first slices never ends if one failed.
      java.util.concurrent.CompletionService<Void> done = new java.util.concurrent.ExecutorCompletionService<>(threads);
      List<Future<Void>> running = new ArrayList<>();
      for (Collection c : collections) {
        running.add(done.submit(() -> {
          if (c.tree.encodesAtCollector()) {
            encodeAtCollector(plan, c, sinks, opened, firstSlices);
          } else {
            sumAtCollector(plan, c, sinks, opened, firstSlices);
          }
          return null;
        }));
      }
      for (int i = 0; i < running.size(); i++) {
        try {
          done.take().get();
        } catch (ExecutionException e) {
          running.forEach(other -> other.cancel(true));
          throw TaskFailure.cause(e, plan.name() + ": encode failed");
        }
      }
    } finally {
      threads.shutdownNow();
      // A cancelled collector may still be writing a sink: wait, so aborting the sinks is the last word.
      threads.awaitTermination(1, java.util.concurrent.TimeUnit.MINUTES);
    }
  }

  /**
   * After the first slice: waits until every tree has computed its first slice, then opens this tree's sinks (so an
   * encode whose helpers cannot all be reached opens none).
   */
  private static SliceSink[] openSinks(EncodePlan plan, EncodePlan.Tree tree, ParitySinks sinks, List<Opened> opened,
      CountDownLatch firstSlices) throws IOException, InterruptedException {
    firstSlices.countDown();
    firstSlices.await();
    int[] rows = tree.rows();
    SliceSink[] out = new SliceSink[rows.length];
    for (int r = 0; r < rows.length; r++) {
      out[r] = sinks.open(rows[r], plan.unitBytes(), tree.collector(), plan.stripe().targets().get(rows[r]));
      opened.add(new Opened(rows[r], out[r]));
    }
    return out;
  }

  /** A chain's collector (ECWide §4.2): the sum of its heads' frames is the finished rows, one after another. */
  private static void sumAtCollector(EncodePlan plan, Collection c, ParitySinks sinks, List<Opened> opened,
      CountDownLatch firstSlices) throws IOException, InterruptedException {
    int rows = c.tree.wireRows();
    int slice = plan.sliceBytes();
    byte[] sum = new byte[rows * slice];
    SliceSink[] out = null;
    for (int s = 0; s < plan.slices(); s++) {
      long offset = (long) s * slice;
      int n = (int) Math.min(slice, plan.unitBytes() - offset);
      int bytes = rows * n;
      if (c.streams.isEmpty()) {
        Arrays.fill(sum, 0, bytes, (byte) 0); // a local parity of a group whose units are all padding
      }
      for (int j = 0; j < c.streams.size(); j++) {
        PeerStream stream = c.streams.get(j);
        Frame f = stream.next(s, bytes);
        try {
          if (j == 0) {
            f.payload().getBytes(f.payload().readerIndex(), sum, 0, bytes);
          } else {
            RegionKernels.xor(f.payload().nioBuffer(), 0, ByteBuffer.wrap(sum), 0, bytes);
          }
        } finally {
          f.release();
        }
        stream.credit();
      }
      if (out == null) {
        out = openSinks(plan, c.tree, sinks, opened, firstSlices);
      }
      for (int r = 0; r < rows; r++) {
        out[r].write(offset, sum, r * n, n);
      }
    }
    for (PeerStream stream : c.streams) {
      stream.awaitEnd();
    }
  }

  /** The classic collector: every data unit's slice arrives raw and the collector encodes every parity. */
  private static void encodeAtCollector(EncodePlan plan, Collection c, ParitySinks sinks, List<Opened> opened,
      CountDownLatch firstSlices) throws IOException, InterruptedException {
    ErasureCoder coder = ErasureCoder.best(plan.stripe().code());
    int slice = plan.sliceBytes();
    int k = plan.stripe().code().k();
    ByteBuffer[] data = new ByteBuffer[k]; // units not read (padding) stay zero
    for (int u = 0; u < k; u++) {
      data[u] = ByteBuffer.allocateDirect(slice);
    }
    ByteBuffer[] parity = new ByteBuffer[c.tree.rows().length];
    for (int r = 0; r < parity.length; r++) {
      parity[r] = ByteBuffer.allocateDirect(slice);
    }
    byte[] row = new byte[slice];
    SliceSink[] out = null;
    for (int s = 0; s < plan.slices(); s++) {
      long offset = (long) s * slice;
      int n = (int) Math.min(slice, plan.unitBytes() - offset);
      for (int j = 0; j < c.streams.size(); j++) {
        PeerStream stream = c.streams.get(j);
        Frame f = stream.next(s, n);
        try {
          ByteBuffer dst = data[c.tree.steps().get(c.heads.get(j)).unit()].clear().limit(n);
          f.payload().getBytes(f.payload().readerIndex(), dst);
        } finally {
          f.release();
        }
        stream.credit();
      }
      for (ByteBuffer b : data) {
        b.position(0).limit(n);
      }
      for (ByteBuffer b : parity) {
        b.position(0).limit(n);
      }
      coder.encode(data, parity);
      if (out == null) {
        out = openSinks(plan, c.tree, sinks, opened, firstSlices);
      }
      for (int r = 0; r < parity.length; r++) {
        parity[r].get(0, row, 0, n);
        out[r].write(offset, row, 0, n);
      }
    }
    for (PeerStream stream : c.streams) {
      stream.awaitEnd();
    }
  }
}
