package org.wideec.engine;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.wideec.topology.Endpoint;
import org.wideec.transport.PeerFailure;
import org.wideec.protocol.StepRequest;
import org.wideec.repair.MultiUnitStreams;
import org.wideec.repair.RepairGraph;
import org.wideec.repair.RepairScheme;
import org.wideec.repair.SingleUnitRepairPlanner;
import org.wideec.repair.StripeRepair;
import org.wideec.repair.EndpointResolver;
import org.wideec.repair.BlockRef;
import org.wideec.repair.RepairStep;
import org.wideec.repair.UnitLocation;

/**
 * One attempt of a repair as the requestor runs it: the streams it asks for (each the head of a tree of
 * helpers, set up by the helpers themselves) and, per lost unit, the coefficients with which it combines
 * the streams' slices. A single lost unit is a sum of the streams that carry each slice (one chain, a star,
 * or the rotations of the cyclic scheme); several lost units are one multi-unit decode ({@link MultiUnitStreams}).
 * Units known to be zero never become steps: whatever feeds them goes straight to where they would send.
 */
final class StreamPlan {
  record Stream(Endpoint endpoint, StepRequest request) {}

  final List<Stream> streams;
  final int[][] coefficients; // [lost unit][stream]
  final List<RepairGraph> graphs;
  final List<UnitLocation> helpers;
  /** The endpoint each helper's node was asked at, by node. */
  final Map<String, Endpoint> endpoints;

  private StreamPlan(Builder b, int[][] coefficients) {
    this.streams = b.streams;
    this.coefficients = coefficients;
    this.graphs = b.graphs;
    this.helpers = b.helpers;
    this.endpoints = b.endpoints;
  }

  private StreamPlan(StreamPlan p, List<Stream> streams) {
    this.streams = streams;
    this.coefficients = p.coefficients;
    this.graphs = p.graphs;
    this.helpers = p.helpers;
    this.endpoints = p.endpoints;
  }

  /**
   * The same plan asking every helper only for slices first, first + stride, ... ({@link StepRequest#carrying}). Only
   * for a plan whose streams each carry every slice (not the cyclic scheme's rotations, which already stride).
   */
  StreamPlan carrying(int first, int stride) {
    List<Stream> strided = new ArrayList<>();
    for (Stream s : streams) {
      if (s.request().firstSlice() != 0 || s.request().stride() != 1) {
        throw new IllegalStateException("a plan whose streams already stride cannot be asked for a sample");
      }
      strided.add(new Stream(s.endpoint(), s.request().carrying(first, stride)));
    }
    return new StreamPlan(this, strided);
  }

  static StreamPlan of(StripeRepair r, Set<String> excludedNodes, String requestorNode, String requestorRack,
      EndpointResolver resolver, int sliceBytes) throws IOException {
    Map<Integer, UnitLocation> available = r.helpersAvailable(excludedNodes, requestorRack);
    Comparator<Integer> preference = r.helperPreference();
    long length = r.length();
    Builder b = new Builder(r, resolver, length, sliceBytes);
    if (r.lost().length == 1) {
      int lost = r.lost()[0];
      RepairScheme scheme = r.scheme();
      if (scheme == RepairScheme.CYCLIC) {
        RepairGraph chain = SingleUnitRepairPlanner.plan(RepairScheme.PIPELINED, r.code(), lost, available,
            requestorNode, requestorRack, r.weights(), preference);
        List<RepairGraph> rotations = SingleUnitRepairPlanner.cyclic(chain);
        for (int i = 0; i < rotations.size(); i++) {
          b.addGraph(rotations.get(i), i, rotations.size());
        }
      } else {
        b.addGraph(SingleUnitRepairPlanner.plan(scheme, r.code(), lost, available, requestorNode, requestorRack,
            r.weights(), preference, r.rackChain()), 0, 1);
      }
      int[][] c = new int[1][b.streams.size()];
      java.util.Arrays.fill(c[0], 1);
      return new StreamPlan(b, c);
    }
    // Several lost units: one multi-unit decode; a rack with more inputs than outputs sends partial sums.
    Map<Integer, UnitLocation> survivors = new HashMap<>(available);
    r.zeroUnits().forEach(survivors::remove);
    MultiUnitStreams m = MultiUnitStreams.plan(r.code(), r.lost(), survivors, r.zeroUnits(), requestorRack,
        r.scheme().aggregatesInRacks());
    for (MultiUnitStreams.Shape shape : m.streams()) {
      b.addChain(shape);
    }
    return new StreamPlan(b, m.combine());
  }

  /** Turns repair graphs into step-request trees, resolving every helper's endpoint. */
  private static final class Builder {
    final StripeRepair r;
    final EndpointResolver resolver;
    final long length;
    final int sliceBytes;
    final List<Stream> streams = new ArrayList<>();
    final List<RepairGraph> graphs = new ArrayList<>();
    final List<UnitLocation> helpers = new ArrayList<>();
    final Map<String, Endpoint> endpoints = new HashMap<>();

    Builder(StripeRepair r, EndpointResolver resolver, long length, int sliceBytes) {
      this.r = r;
      this.resolver = resolver;
      this.length = length;
      this.sliceBytes = sliceBytes;
    }

    void addGraph(RepairGraph g, int first, int stride) throws IOException {
      graphs.add(g);
      List<List<Integer>> feeders = new ArrayList<>();
      List<Integer> heads = new ArrayList<>();
      for (int i = 0; i < g.steps().size(); i++) {
        feeders.add(new ArrayList<>());
      }
      for (int i = 0; i < g.steps().size(); i++) {
        int next = g.steps().get(i).next();
        (next == RepairStep.REQUESTOR ? heads : feeders.get(next)).add(i);
      }
      for (Stream s : convert(g, heads, feeders, first, stride)) {
        streams.add(s);
      }
    }

    private List<Stream> convert(RepairGraph g, List<Integer> steps, List<List<Integer>> feeders, int first, int stride)
        throws IOException {
      List<Stream> out = new ArrayList<>();
      for (int i : steps) {
        RepairStep step = g.steps().get(i);
        List<Stream> ups = convert(g, feeders.get(i), feeders, first, stride);
        if (r.zeroUnits().contains(step.helper().unit())) {
          out.addAll(ups); // a zero unit adds nothing; its feeders send where it would have sent
          continue;
        }
        if (!helpers.contains(step.helper())) {
          helpers.add(step.helper());
        }
        List<StepRequest.Upstream> upstreams = new ArrayList<>();
        for (Stream s : ups) {
          upstreams.add(new StepRequest.Upstream(s.endpoint(), s.request()));
        }
        out.add(new Stream(resolve(step.helper()), new StepRequest(block(step.helper().unit()),
            step.coefficient(), length, sliceBytes, first, stride, upstreams)));
      }
      return out;
    }

    /** A chain of helpers ending at the requestor (one helper: a raw or scaled unit). */
    void addChain(MultiUnitStreams.Shape shape) throws IOException {
      Stream last = null;
      for (int i = 0; i < shape.chain().size(); i++) {
        UnitLocation h = shape.chain().get(i);
        if (!helpers.contains(h)) {
          helpers.add(h);
        }
        List<StepRequest.Upstream> up = last == null ? List.of()
            : List.of(new StepRequest.Upstream(last.endpoint(), last.request()));
        last = new Stream(resolve(h), new StepRequest(block(h.unit()), shape.coefficients()[i], length, sliceBytes, 0, 1,
            up));
      }
      streams.add(last);
    }

    /** A helper's endpoint; a helper that cannot be found is to blame (the requestor plans without it). */
    private Endpoint resolve(UnitLocation helper) throws PeerFailure {
      try {
        Endpoint e = resolver.resolve(helper);
        endpoints.put(helper.node(), e);
        return e;
      } catch (PeerFailure e) {
        throw e;
      } catch (IOException e) {
        throw new PeerFailure(helper.node(), "cannot find the slice service of helper " + helper.node() + ": "
            + e.getMessage(), e);
      }
    }

    private BlockRef block(int unit) {
      BlockRef b = r.blocks().get(unit);
      if (b == null) {
        throw new IllegalArgumentException(r.name() + ": no replica named for surviving unit " + unit);
      }
      return b;
    }
  }
}
