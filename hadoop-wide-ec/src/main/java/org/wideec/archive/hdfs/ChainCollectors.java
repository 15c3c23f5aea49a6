package org.wideec.archive.hdfs;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionService;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorCompletionService;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.fs.Options.ChecksumOpt;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.encode.EncodePlan;
import org.wideec.archive.encode.EncodeStripe;
import org.wideec.topology.Site;
import org.wideec.protocol.EncodeTreeRequest;
import org.wideec.repair.BlockRef;
import org.wideec.topology.Endpoint;
import org.wideec.transport.PeerFailure;

/**
 * The archiver's side of a chain encode's trees (ECWide §4.2): each tree's collector is asked, all at once, with an
 * {@link EncodeTreeRequest} naming the tree's data blocks (READ tokens), its parity blocks (WRITE tokens) and the slice
 * ports of its nodes; their reports of what each stored are gathered while the parity files' lease is renewed, and
 * every stored parity must be reported at the full unit length. The first failure stops the other trees.
 */
final class ChainCollectors {
  private static final long LEASE_RENEW_MS = 20_000;

  private final SlicePortClient ports;
  private final ParityFiles files;
  private final ExecutorService threads;

  ChainCollectors(SlicePortClient ports, ParityFiles files, ExecutorService threads) {
    this.ports = ports;
    this.files = files;
    this.threads = threads;
  }

  /** Tree {@code t}'s request to its collector; fills {@code treeEndpoints}, the collector's first. */
  private EncodeTreeRequest treeRequest(ArchivedStripe stripe, EncodePlan plan, int t, Map<Integer, BlockRef> blocks,
      Map<String, DatanodeInfo> nodes, ChecksumOpt checksum, List<EncodeTreeRequest.ParityOutput> outputs,
      Map<String, Endpoint> treeEndpoints) throws IOException {
    EncodePlan.Tree tree = plan.trees().get(t);
    Map<Integer, BlockRef> treeBlocks = new HashMap<>();
    treeEndpoints.put(tree.collector().node(), endpoint(tree.collector(), nodes));
    for (EncodePlan.Step s : tree.steps()) {
      treeBlocks.put(s.unit(), blocks.get(s.unit()));
      treeEndpoints.put(s.site().node(), endpoint(s.site(), nodes));
    }
    EncodeStripe es = plan.stripe();
    return new EncodeTreeRequest(es.name(), stripe.codeSpec(), plan.shape(), plan.sliceBytes(), t, es.dataLengths(),
        es.holders(), es.targets(), List.copyOf(treeEndpoints.values()), treeBlocks, outputs,
        checksum.getChecksumType().id, checksum.getBytesPerChecksum());
  }

  /** Asks every tree's collector to run it, all at once; the first failure stops the others. */
  Map<Integer, EncodeTreeRequest.Stored> run(ArchivedStripe stripe, EncodePlan plan,
      Map<Integer, BlockRef> blocks, Map<Integer, ParityFiles.Allocated> parities, Map<String, DatanodeInfo> nodes,
      ChecksumOpt checksum) throws IOException {
    CompletionService<List<EncodeTreeRequest.Stored>> done = new ExecutorCompletionService<>(threads);
    List<Future<List<EncodeTreeRequest.Stored>>> running = new ArrayList<>();
    List<String> runningWhat = new ArrayList<>();
    for (int t = 0; t < plan.trees().size(); t++) {
      EncodePlan.Tree tree = plan.trees().get(t);
      List<EncodeTreeRequest.ParityOutput> outputs = storedOutputs(tree, parities);
      if (outputs.isEmpty()) {
        continue; // only virtual parities: zeros, never stored
      }
      Map<String, Endpoint> treeEndpoints = new LinkedHashMap<>();
      EncodeTreeRequest req = treeRequest(stripe, plan, t, blocks, nodes, checksum, outputs, treeEndpoints);
      Endpoint collector = treeEndpoints.get(tree.collector().node());
      byte[] token = outputs.get(0).block().token();
      running.add(done.submit(() -> ports.runTree(collector, req, token)));
      runningWhat.add(req.toString());
    }
    Map<Integer, EncodeTreeRequest.Stored> out;
    try {
      out = awaitTrees(stripe, done, running.size());
    } finally {
      running.forEach(f -> f.cancel(true));
    }
    checkStored(stripe, plan.unitBytes(), parities, out, runningWhat);
    return out;
  }

  /** The parity outputs of a tree's rows that are stored (virtual parities are zeros, never stored). */
  private static List<EncodeTreeRequest.ParityOutput> storedOutputs(EncodePlan.Tree tree,
      Map<Integer, ParityFiles.Allocated> parities) {
    List<EncodeTreeRequest.ParityOutput> outputs = new ArrayList<>();
    for (int row : tree.rows()) {
      ParityFiles.Allocated a = parities.get(row);
      if (a != null) {
        outputs.add(a.output(row));
      }
    }
    return outputs;
  }

  /** Waits for every tree's collector to report what it stored, renewing the parity files' lease meanwhile. */
  private Map<Integer, EncodeTreeRequest.Stored> awaitTrees(ArchivedStripe stripe,
      CompletionService<List<EncodeTreeRequest.Stored>> done, int trees) throws IOException {
    Map<Integer, EncodeTreeRequest.Stored> out = new HashMap<>();
    long renewAt = System.currentTimeMillis() + LEASE_RENEW_MS;
    try {
      for (int finished = 0; finished < trees; ) {
        Future<List<EncodeTreeRequest.Stored>> f = done.poll(1, TimeUnit.SECONDS);
        if (System.currentTimeMillis() >= renewAt) {
          // The parity files are this client's, created outside an output stream: keep their lease ourselves.
          files.renewLease();
          renewAt = System.currentTimeMillis() + LEASE_RENEW_MS;
        }
        if (f == null) {
          continue;
        }
        finished++;
        for (EncodeTreeRequest.Stored s : f.get()) {
          out.put(s.unit(), s);
        }
      }
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      String blame = cause instanceof PeerFailure p && p.culprit() != null ? " (blaming " + p.culprit() + ")" : "";
      throw new IOException("stripe " + stripe.stripeId() + ": chain encode failed" + blame + ": " + cause.getMessage()
          + "; no parity file was completed, a rerun encodes the stripe again", cause);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("stripe " + stripe.stripeId() + ": interrupted during the chain encode");
    }
    return out;
  }

  /**
   * Every stored parity unit reported by its collector at the full unit length (the plan's: a re-encoding update
   * may change it from the stripe's).
   */
  private static void checkStored(ArchivedStripe stripe, long unitLength, Map<Integer, ParityFiles.Allocated> parities,
      Map<Integer, EncodeTreeRequest.Stored> out, List<String> runningWhat) throws IOException {
    for (int u : parities.keySet()) {
      EncodeTreeRequest.Stored s = out.get(u);
      if (s == null || s.length() != unitLength) {
        throw new IOException("stripe " + stripe.stripeId() + " unit " + u + ": the collectors reported "
            + (s == null ? "nothing" : s.length() + " bytes") + " stored, expected " + unitLength + " bytes ("
            + runningWhat + ")");
      }
    }
  }

  private Endpoint endpoint(Site site, Map<String, DatanodeInfo> nodes) throws IOException {
    return ports.endpoint(site.node(), site.rack(), nodes.get(site.node()));
  }
}
