package org.wideec.client;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionService;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorCompletionService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hdfs.BlockReader;
import org.apache.hadoop.hdfs.WideEcClientAccess;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.apache.hadoop.hdfs.security.token.block.InvalidBlockTokenException;
import org.apache.hadoop.hdfs.util.StripedBlockUtil;
import org.apache.hadoop.security.token.SecretManager.InvalidToken;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.wideec.client.DegradedReadPlan.UnitRange;
import org.wideec.code.NotDecodableException;

/**
 * Carries out a {@link DegradedReadPlan} against DataNodes: fetches the planned internal-block ranges in
 * parallel over HDFS's data transfer (block tokens, SASL, checksums as the stock reader), and when a unit
 * the NameNode listed cannot be read after all, counts it lost and plans again with the rest. An expired
 * block token is renewed once by asking the NameNode for the group again, as DFSInputStream does.
 */
final class DegradedGroupReader {
  private static final Logger LOG = LoggerFactory.getLogger(DegradedGroupReader.class);
  /** The group as the NameNode lists it now (fresh locations and tokens). */
  interface GroupRefresher {
    LocatedStripedBlock refresh(LocatedStripedBlock group) throws IOException;
  }

  private final StripedFile file;
  private final GroupRefresher refresher;

  DegradedGroupReader(StripedFile file, GroupRefresher refresher) {
    this.file = file;
    this.refresher = refresher;
  }

  /** Which path served a degraded read, for the DEBUG log (the counters count each). */
  private enum Served {
    PIPELINED("a chain"),
    HEDGED("direct decode, which overtook the chain"),
    DIRECT_FIRST("direct decode at once, a chain having been overtaken lately"),
    DIRECT("direct decode");

    private final String how;

    Served(String how) {
      this.how = how;
    }
  }

  /**
   * Writes group bytes [from, to) of {@code group} into dst at its position.
   *
   * @throws IOException naming the file, the block group, the code and the units when the range cannot be read
   */
  void read(LocatedStripedBlock group, long from, long to, ByteBuffer dst) throws IOException {
    long began = System.nanoTime();
    Served served = file.chains() == null ? null : readThroughChain(group, from, to, dst);
    if (served == null) {
      count(decodeDirectly(group, from, to, dst), group);
      served = Served.DIRECT;
    }
    long micros = (System.nanoTime() - began) / 1000;
    file.counters().degradedReadMicros.addAndGet(micros);
    LOG.debug("{}: bytes [{}, {}) of block group {} read degraded in {} ms by {}", file.src(), from, to,
        group.getBlock(), micros / 1000.0, served.how);
  }

  /**
   * Direct decode: fetches the plan's ranges over HDFS and decodes into dst; a unit that cannot be read after all is
   * counted lost and the range planned again. Returns the plan carried out (not yet counted).
   */
  private DegradedReadPlan decodeDirectly(LocatedStripedBlock group, long from, long to, ByteBuffer dst)
      throws IOException {
    BitSet failed = new BitSet();
    Map<UnitRange, ByteBuffer> fetched = new HashMap<>();
    List<IOException> errors = new ArrayList<>();
    boolean renewed = false;
    while (true) {
      BitSet live = StripedFile.liveUnits(group);
      live.andNot(failed);
      DegradedReadPlan plan;
      try {
        plan = DegradedReadPlan.of(file.code(), file.layout(group), live, from, to);
      } catch (NotDecodableException e) {
        IOException io = new IOException(describe(group, from, to, failed) + ": " + e.getMessage(), e);
        errors.forEach(io::addSuppressed);
        throw io;
      }
      Map<UnitRange, Future<ByteBuffer>> pending = new LinkedHashMap<>();
      for (UnitRange r : plan.fetches()) {
        if (!fetched.containsKey(r)) {
          LocatedStripedBlock g = group;
          pending.put(r, WideEcClientAccess.stripedReadsPool(file.client()).submit(() -> fetch(g, r)));
        }
      }
      boolean tokenRejected = false;
      for (Map.Entry<UnitRange, Future<ByteBuffer>> p : pending.entrySet()) {
        try {
          fetched.put(p.getKey(), await(p.getValue(), pending));
        } catch (InvalidBlockTokenException | InvalidToken e) {
          if (renewed) {
            throw new IOException(describe(group, from, to, failed) + ": block token for unit " + p.getKey().unit()
                + " rejected after renewal", e);
          }
          tokenRejected = true;
        } catch (IOException e) {
          if (Thread.currentThread().isInterrupted()) {
            // This read was cancelled (the chain answered first) or its caller interrupted: the unit did not fail.
            // (A fetch's own socket timeout is an InterruptedIOException too, and does count as a failed unit.)
            throw e;
          }
          failed.set(p.getKey().unit());
          errors.add(e);
        }
      }
      if (tokenRejected) {
        renewed = true;
        group = refresher.refresh(group);
        continue;
      }
      if (plan.fetches().stream().allMatch(fetched::containsKey)) {
        Map<Integer, ByteBuffer> inputs = new HashMap<>();
        plan.fetches().forEach(r -> inputs.put(r.unit(), fetched.get(r).duplicate()));
        plan.assemble(inputs, file.coder(), dst);
        return plan;
      }
    }
  }

  /**
   * Reads the range with its one lost unit's rows rebuilt by a chain of DataNodes (ECPipe §3.2), the live cells as
   * they are. Null when the range does not qualify (several lost units: a multi-unit decode, which a chain does not
   * do; or none) or the chain failed, counted and logged: the caller then reads by direct decode. A chain that has
   * not delivered within {@link RepairChains#hedgeMs} is raced by direct decode, and the first to finish serves the
   * read (the other is cancelled); while {@link ChainOutlook} says chains are being overtaken, the range is decoded
   * directly at once. Nothing is written to dst unless every byte of the range is in hand.
   */
  private Served readThroughChain(LocatedStripedBlock group, long from, long to, ByteBuffer dst) throws IOException {
    BitSet live = StripedFile.liveUnits(group);
    BlockGroupLayout layout = file.layout(group);
    DegradedReadPlan lost;
    try {
      lost = DegradedReadPlan.of(file.code(), layout, live, from, to);
    } catch (NotDecodableException e) {
      return null; // direct decode reports it, naming the units
    }
    if (lost.wanted().length != 1) {
      return null;
    }
    ChainOutlook outlook = file.chains().outlook();
    if (!outlook.chainFirst()) {
      count(decodeDirectly(group, from, to, dst), group);
      file.counters().directFirstReads.incrementAndGet();
      return Served.DIRECT_FIRST;
    }
    int unit = lost.wanted()[0];
    // Planned as if the lost unit were live: its rows come from the chain, every other cell is read as it is.
    BitSet withRebuilt = (BitSet) live.clone();
    withRebuilt.set(unit);
    DegradedReadPlan cells = DegradedReadPlan.of(file.code(), layout, withRebuilt, from, to);
    ChainProgress progress = new ChainProgress();
    Object answer = firstAnswer(group, from, to, cells, unit, lost, progress);
    if (answer == null) {
      return null; // the chain failed before the hedge delay: the caller reads by direct decode
    }
    if (answer instanceof DirectResult d) {
      dst.put(d.range().flip());
      file.counters().hedgedReads.incrementAndGet();
      if (progress.askedBeforeRace()) { // else it was held up before its helpers (finding their slice ports)
        outlook.overtaken();
      }
      count(d.plan(), group);
      return Served.HEDGED;
    }
    @SuppressWarnings("unchecked")
    Map<Integer, ByteBuffer> inputs = (Map<Integer, ByteBuffer>) answer;
    cells.assemble(inputs, file.coder(), dst);
    file.counters().pipelinedReads.incrementAndGet();
    outlook.served();
    count(lost, group);
    return Served.PIPELINED;
  }

  /**
   * Runs the chain and, once {@link RepairChains#hedgeMs} passes without its answer, direct decode beside it; returns
   * the first answer (the chain's inputs or a {@link DirectResult}) and cancels the other. A chain still delivering
   * at a pace that finishes it within another hedge delay is given that delay instead ({@link ChainProgress}: direct
   * decode would add one range per helper to the uplinks the chain uses), as often as it keeps that pace. Null when
   * the chain failed before direct decode started; when both fail, direct decode's error, which names the units.
   */
  private Object firstAnswer(LocatedStripedBlock group, long from, long to, DegradedReadPlan cells, int unit,
      DegradedReadPlan lost, ChainProgress progress) throws IOException {
    CompletionService<Object> race = new ExecutorCompletionService<>(WideEcClientAccess.stripedReadsPool(file.client()));
    Future<Object> chain = race.submit(() -> chainedInputs(group, cells, unit, lost, progress));
    Future<Object> direct = null;
    IOException directFailure = null;
    try {
      long hedge = file.chains().hedgeMs();
      Future<Object> done = hedge > 0 ? race.poll(hedge, TimeUnit.MILLISECONDS) : race.take();
      if (done == null && progress.onTrack(System.nanoTime(), TimeUnit.MILLISECONDS.toNanos(hedge))) {
        file.counters().hedgesWithheld.incrementAndGet();
        do {
          done = race.poll(hedge, TimeUnit.MILLISECONDS);
        } while (done == null && progress.onTrack(System.nanoTime(), TimeUnit.MILLISECONDS.toNanos(hedge)));
      }
      if (done == null) {
        file.counters().hedgesFired.incrementAndGet();
        progress.raced();
        LOG.debug("{}: the chain rebuilding unit {} of block group {} has not delivered within {} ms: direct decode "
            + "races it", file.src(), unit, group.getBlock(), hedge);
        ByteBuffer own = ByteBuffer.allocate((int) (to - from));
        direct = race.submit(() -> new DirectResult(decodeDirectly(group, from, to, own), own));
      }
      for (int outstanding = direct == null ? 1 : 2; outstanding > 0; outstanding--, done = null) {
        if (done == null) {
          done = race.take();
        }
        try {
          Object answer = done.get();
          Future<Object> other = done == chain ? direct : chain;
          if (other != null) {
            other.cancel(true); // of no use now
          }
          return answer;
        } catch (ExecutionException e) {
          if (done != chain) {
            directFailure = e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
            continue;
          }
          failedChain(group, unit, e.getCause());
          if (direct == null) {
            return null;
          }
        }
      }
      throw directFailure;
    } catch (InterruptedException e) {
      chain.cancel(true);
      if (direct != null) {
        direct.cancel(true);
      }
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while reading a degraded block group");
    }
  }

  /** What a hedging direct decode read: the plan it carried out and the range, decoded. */
  private record DirectResult(DegradedReadPlan plan, ByteBuffer range) {}

  /** The range's inputs with the lost unit's rows from a chain, the other cells fetched meanwhile over HDFS. */
  private Map<Integer, ByteBuffer> chainedInputs(LocatedStripedBlock group, DegradedReadPlan cells, int unit,
      DegradedReadPlan lost, ChainProgress progress) throws IOException {
    Map<UnitRange, Future<ByteBuffer>> pending = new LinkedHashMap<>();
    for (UnitRange r : cells.fetches()) {
      if (r.unit() != unit) {
        pending.put(r, WideEcClientAccess.stripedReadsPool(file.client()).submit(() -> fetch(group, r)));
      }
    }
    Map<Integer, ByteBuffer> inputs = new HashMap<>();
    try {
      inputs.put(unit, file.chains().rebuild(file, group, unit, lost.rowFrom(), lost.rowTo(), progress));
      for (Map.Entry<UnitRange, Future<ByteBuffer>> p : pending.entrySet()) {
        inputs.put(p.getKey().unit(), await(p.getValue(), pending));
      }
      return inputs;
    } finally {
      pending.values().forEach(f -> f.cancel(true));
    }
  }

  /** A chain that failed (not one cancelled because direct decode answered first): counted and logged. */
  private void failedChain(LocatedStripedBlock group, int unit, Throwable why) {
    file.counters().pipelinedFallbacks.incrementAndGet();
    file.chains().fellBack(file.src(), group, unit, why instanceof Exception e ? e : new IOException(why));
  }

  private static ByteBuffer await(Future<ByteBuffer> f, Map<UnitRange, Future<ByteBuffer>> all) throws IOException {
    try {
      return f.get();
    } catch (InterruptedException e) {
      all.values().forEach(x -> x.cancel(true));
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while reading a degraded block group");
    } catch (ExecutionException e) {
      if (e.getCause() instanceof IOException io) {
        throw io;
      }
      throw new IOException(e.getCause());
    }
  }

  private void count(DegradedReadPlan plan, LocatedStripedBlock group) {
    int decoded = 0;
    int[] wanted = plan.wanted();
    for (BlockGroupLayout.CellRun run : file.layout(group).runs(plan.from(), plan.to())) {
      decoded += Arrays.binarySearch(wanted, run.unit()) >= 0 ? run.length() : 0;
    }
    file.counters().degradedReads.incrementAndGet();
    file.counters().bytesDecoded.addAndGet(decoded);
    if (decoded > 0) {
      WideEcClientAccess.countDecoded(file.client(), decoded);
    }
  }

  private String describe(LocatedStripedBlock group, long from, long to, BitSet failed) {
    BitSet live = StripedFile.liveUnits(group);
    BitSet lost = new BitSet();
    for (int u = 0; u < file.code().n(); u++) {
      if (!live.get(u) && file.layout(group).internalLength(u) > 0) {
        lost.set(u);
      }
    }
    return file.src() + ": cannot read bytes [" + from + ", " + to + ") of block group " + group.getBlock()
        + " (code " + file.code().spec() + ", policy " + file.policy().getName() + "): NameNode lists no replica of units "
        + lost + (failed.isEmpty() ? "" : ", units " + failed + " failed to read");
  }

  /** Bytes [start, end) of one unit, trying each listed replica in turn (a unit can briefly have two). */
  private ByteBuffer fetch(LocatedStripedBlock group, UnitRange r) throws IOException {
    byte[] indices = group.getBlockIndices();
    IOException last = null;
    for (int i = 0; i < indices.length; i++) {
      if (indices[i] != r.unit()) {
        continue;
      }
      LocatedBlock internal = StripedBlockUtil.constructInternalBlock(group, i, file.policy().getCellSize(),
          file.policy().getNumDataUnits(), r.unit());
      long began = System.nanoTime();
      byte[] buf = new byte[r.length()];
      try (BlockReader reader = WideEcClientAccess.blockReader(file.client(), file.src(), internal, 0, r.start(),
          r.length(), file.verifyChecksum())) {
        reader.readFully(buf, 0, buf.length);
        WideEcClientAccess.countFetched(file.client(), reader.getNetworkDistance(), buf.length,
            (System.nanoTime() - began) / 1_000_000);
      } catch (InvalidBlockTokenException | InvalidToken e) {
        throw e;
      } catch (IOException e) {
        last = new IOException(file.src() + ": unit " + r.unit() + " of block group " + group.getBlock() + " on "
            + group.getLocations()[i] + ": " + e.getMessage(), e);
        continue;
      }
      file.counters().unitsFetched.incrementAndGet();
      file.counters().bytesFetched.addAndGet(buf.length);
      return ByteBuffer.wrap(buf);
    }
    throw last != null ? last : new IOException(file.src() + ": no replica of unit " + r.unit() + " of " + group.getBlock());
  }
}
