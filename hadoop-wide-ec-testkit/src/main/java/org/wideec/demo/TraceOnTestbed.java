package org.wideec.demo;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.wideec.update.TraceUpdate;
import org.wideec.update.UpdateHistory;
import org.wideec.update.UpdatePattern;
import org.wideec.update.UpdatePlan;
import org.wideec.update.UpdateScheme;

/**
 * Replays a block-update trace on the testbed under one scheme, as the seed's testbed does (RackCU §V-C): chunk c of
 * the volume is data unit c mod k of stripe c / k, each update renews every stripe it touches, the updates of one
 * stripe run one after another in trace order and different stripes concurrently, up to a bound.
 */
final class TraceOnTestbed implements AutoCloseable {
  private final UpdateTestbed bed;
  private final int concurrency;
  private final ExecutorService senders = Executors.newCachedThreadPool();
  private final PlanOverTransport executor;

  /** One stripe's share of a trace update, with its plan. */
  record StripeUpdate(int index, long stripe, UpdatePlan plan) {}

  /** What one replay measured. */
  record Replay(String scheme, int updates, int stripeUpdates, long planCrossRackChunks, long transportCrossRackBytes,
      double seconds, int stripes, int consistentStripes) {
    double updatesPerSecond() {
      return updates / seconds;
    }
  }

  TraceOnTestbed(UpdateTestbed bed, int concurrency) {
    this.bed = bed;
    this.concurrency = concurrency;
    this.executor = new PlanOverTransport(bed, senders);
  }

  /** The data units each update changes, per stripe, in trace order. */
  static List<Map.Entry<Long, int[]>> stripeShares(List<TraceUpdate> trace, int k, int chunkBytes) {
    List<Map.Entry<Long, int[]>> out = new ArrayList<>();
    for (TraceUpdate u : trace) {
      Map<Long, List<Integer>> byStripe = new TreeMap<>();
      for (long c = u.offset() / chunkBytes; c <= (u.offset() + u.length() - 1) / chunkBytes; c++) {
        byStripe.computeIfAbsent(c / k, s -> new ArrayList<>()).add((int) (c % k));
      }
      byStripe.forEach((s, units) -> out.add(Map.entry(s, units.stream().mapToInt(Integer::intValue).toArray())));
    }
    return out;
  }

  /** Writes every stripe the trace touches (fresh random data and its parities). */
  Set<Long> writeStripes(List<TraceUpdate> trace, long seed) {
    Set<Long> stripes = new LinkedHashSet<>();
    for (Map.Entry<Long, int[]> e : stripeShares(trace, bed.placement().code().k(), bed.chunkBytes())) {
      if (stripes.add(e.getKey())) {
        bed.writeStripe(e.getKey(), new Random(seed * 31 + e.getKey()));
      }
    }
    return stripes;
  }

  /** Replays the trace under the scheme from stripes never updated before (Parix starts with empty logs). */
  Replay replay(List<TraceUpdate> trace, UpdateScheme scheme, Set<Long> stripes, long seed) throws IOException {
    UpdatePattern layout = UpdatePattern.of(bed.placement());
    Map<Long, UpdateHistory> histories = new HashMap<>();
    List<StripeUpdate> updates = new ArrayList<>();
    long planChunks = 0;
    for (Map.Entry<Long, int[]> e : stripeShares(trace, bed.placement().code().k(), bed.chunkBytes())) {
      UpdatePattern p = layout.withChanged(e.getValue());
      UpdateHistory h = histories.getOrDefault(e.getKey(), UpdateHistory.NONE);
      UpdatePlan plan = scheme.plan(p, h);
      histories.put(e.getKey(), h.after(p));
      updates.add(new StripeUpdate(updates.size(), e.getKey(), plan));
      planChunks += plan.crossRackChunks();
    }
    executor.resetLogs();
    bed.resetCounters();
    long start = System.nanoTime();
    run(updates, seed);
    double seconds = (System.nanoTime() - start) / 1e9;
    long crossBytes = bed.crossRackBytes();
    int consistent = 0;
    for (long s : stripes) {
      consistent += bed.consistent(s) ? 1 : 0;
    }
    return new Replay(scheme.name(), trace.size(), updates.size(), planChunks, crossBytes, seconds, stripes.size(),
        consistent);
  }

  /** Runs the stripe updates: one stripe's in order, at most {@code concurrency} at a time. */
  private void run(List<StripeUpdate> updates, long seed) throws IOException {
    ExecutorService workers = Executors.newFixedThreadPool(concurrency);
    try {
      Map<Long, CompletableFuture<Void>> tails = new HashMap<>();
      for (StripeUpdate u : updates) {
        CompletableFuture<Void> prev = tails.getOrDefault(u.stripe(), CompletableFuture.completedFuture(null));
        tails.put(u.stripe(), prev.thenRunAsync(() -> apply(u, seed), workers));
      }
      CompletableFuture.allOf(tails.values().toArray(new CompletableFuture<?>[0])).join();
    } catch (CompletionException e) {
      Throwable cause = e.getCause() instanceof CompletionException c && c.getCause() != null ? c.getCause() : e.getCause();
      throw cause instanceof IOException io ? io : new IOException(cause.getMessage(), cause);
    } finally {
      workers.shutdownNow();
    }
  }

  private void apply(StripeUpdate u, long seed) {
    int k = bed.placement().code().k();
    byte[][] newData = new byte[k][];
    Random rnd = new Random(seed * 1_000_003L + u.index());
    for (int d : u.plan().pattern().changed()) {
      newData[d] = new byte[bed.chunkBytes()];
      rnd.nextBytes(newData[d]);
    }
    try {
      executor.apply(u.stripe(), u.plan(), newData);
    } catch (IOException e) {
      throw new CompletionException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CompletionException(e);
    }
  }

  @Override
  public void close() {
    senders.shutdownNow();
  }
}
