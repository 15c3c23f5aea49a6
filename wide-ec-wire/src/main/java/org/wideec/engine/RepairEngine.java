package org.wideec.engine;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.wideec.code.NotDecodableException;
import org.wideec.protocol.StepRequest;
import org.wideec.repair.CorruptSources;
import org.wideec.repair.EndpointResolver;
import org.wideec.repair.RebuildValidation;
import org.wideec.repair.SliceSink;
import org.wideec.repair.StripeRepair;
import org.wideec.repair.UnitLocation;
import org.wideec.repair.UnusableHelpers;
import org.wideec.topology.Endpoint;
import org.wideec.transport.PeerFailure;
import org.wideec.transport.SliceTransport;

/**
 * The requestor's side of a repair: plans the streams, asks the helpers for them, combines the slices as
 * they arrive and writes each lost unit to its sink in order. A helper that dies, stalls, fails to read its
 * unit, sends a corrupt slice or cannot be found is excluded and the repair restarts with a new plan (ECPipe
 * §3.2); partial output is aborted, so only slices that passed every check are ever stored, and a unit counts
 * as repaired only once its sink confirms it. A helper that cannot be reached, runs no worker or refuses this node is
 * also left out of the next repairs for a while ({@link UnusableHelpers}, when the engine is given one).
 */
public final class RepairEngine {
  private static final Logger LOG = LoggerFactory.getLogger(RepairEngine.class);
  private final SliceTransport transport;
  private final EndpointResolver resolver;
  private final RepairCounters counters;
  private final int maxAttempts;
  private final RebuildValidation validation;
  private final CorruptSourceReport corrupt;
  private final UnusableHelpers unusable;
  private final HelperStreams streams;
  private final SecondDecode secondDecode;
  private final boolean background;

  /** An engine that stores what it rebuilds without a second decode (tests, benchmarks). */
  public RepairEngine(SliceTransport transport, EndpointResolver resolver, RepairCounters counters, int maxAttempts) {
    this(transport, resolver, counters, maxAttempts, RebuildValidation.OFF);
  }

  public RepairEngine(SliceTransport transport, EndpointResolver resolver, RepairCounters counters, int maxAttempts,
      RebuildValidation validation) {
    this(transport, resolver, counters, maxAttempts, validation, CorruptSources.IGNORE, new UnusableHelpers(0));
  }

  /** An engine that tells {@code corrupt} of every source replica a helper finds corrupt, before it retries. */
  public RepairEngine(SliceTransport transport, EndpointResolver resolver, RepairCounters counters, int maxAttempts,
      RebuildValidation validation, CorruptSources corrupt) {
    this(transport, resolver, counters, maxAttempts, validation, corrupt, new UnusableHelpers(0));
  }

  /** @param unusable helpers this daemon's repairs plan without for a while, shared by its engines */
  public RepairEngine(SliceTransport transport, EndpointResolver resolver, RepairCounters counters, int maxAttempts,
      RebuildValidation validation, UnusableHelpers unusable) {
    this(transport, resolver, counters, maxAttempts, validation, CorruptSources.IGNORE, unusable);
  }

  /**
   * @param corrupt told of every source replica a helper finds corrupt, before the next attempt
   * @param unusable helpers this daemon's repairs plan without for a while, shared by its engines
   */
  public RepairEngine(SliceTransport transport, EndpointResolver resolver, RepairCounters counters, int maxAttempts,
      RebuildValidation validation, CorruptSources corrupt, UnusableHelpers unusable) {
    this(transport, resolver, counters, maxAttempts, validation, new CorruptSourceReport(corrupt), unusable, false);
  }

  private RepairEngine(SliceTransport transport, EndpointResolver resolver, RepairCounters counters, int maxAttempts,
      RebuildValidation validation, CorruptSourceReport corrupt, UnusableHelpers unusable, boolean background) {
    if (maxAttempts < 1) {
      throw new IllegalArgumentException("a repair needs at least one attempt, got " + maxAttempts);
    }
    this.transport = transport;
    this.resolver = resolver;
    this.counters = counters;
    this.maxAttempts = maxAttempts;
    this.validation = validation;
    this.corrupt = corrupt;
    this.unusable = unusable;
    this.background = background;
    this.streams = new HelperStreams(transport, background);
    this.secondDecode = new SecondDecode(resolver, counters, streams, validation);
  }

  /**
   * The same engine for background work (a repair, a rebuild order, a decommission): its helpers' streams are marked
   * as such ({@link org.wideec.transport.BackgroundWork}), so each helper sends them under its background caps. An
   * engine serving a user (a degraded read) stays unmarked and is never capped.
   */
  public RepairEngine asBackground() {
    return background ? this
        : new RepairEngine(transport, resolver, counters, maxAttempts, validation, corrupt, unusable, true);
  }

  /** A rebuilt unit whose second decode disagreed with the first: nothing of the repair was stored. */
  public static final class ValidationFailedException extends IOException {
    public ValidationFailedException(String message) {
      super(message);
    }
  }

  /** Makes engines over a resolver (one per task, whose nodes it knows). */
  @FunctionalInterface
  public interface Builder {
    RepairEngine create(EndpointResolver resolver);
  }

  /** How a repair went; {@code phases}: how its successful attempt spent its time. */
  public record Result(int attempts, int helpers, List<String> excludedNodes, long millis, AttemptPhases phases) {}

  /** Thrown when a repair cannot complete; the message says why, the cause is the last failure. */
  public static final class RepairFailedException extends IOException {
    private final transient Result tried;

    public RepairFailedException(String message, Throwable cause, Result tried) {
      super(message, cause);
      this.tried = tried;
    }

    /** The attempts made and the helpers excluded before giving up (helpers and millis are 0). */
    public Result result() {
      return tried;
    }
  }

  /** Repairs with this node as requestor, named {@code requestor} (node and rack) as the helpers know it. */
  public Result repair(StripeRepair r, UnitLocation requestor, SliceSink.Factory sinks) throws RepairFailedException {
    return repair(r, requestor, sinks, transport.conf().sliceBytes());
  }

  public Result repair(StripeRepair r, UnitLocation requestor, SliceSink.Factory sinks, int sliceBytes)
      throws RepairFailedException {
    return repair(r, requestor, sinks, sliceBytes, 0, r.length());
  }

  /**
   * Rebuilds bytes [offset, offset + length) of the lost units (a degraded read of a range, ECPipe §3): every helper
   * reads only that range of its unit, and each sink receives the range at offsets from 0, opened with the part of
   * the range its unit has. Offset is a multiple of the helpers' checksum chunk.
   */
  public Result repair(StripeRepair r, UnitLocation requestor, SliceSink.Factory sinks, int sliceBytes, long offset,
      long length) throws RepairFailedException {
    requireWithinUnits(r, offset, length);
    long start = System.nanoTime();
    counters.repairStarted(r.scheme());
    Set<String> helperNodes = r.survivors().values().stream().map(UnitLocation::node).collect(Collectors.toSet());
    // Helpers earlier repairs found unusable are left out from the start; asked only if the others cannot decode. One
    // that was unreachable at an endpoint it no longer names (restarted on a new slice port) is asked at once.
    unusable.liftMoved(helperNodes, resolver);
    LeftOutHelpers left = new LeftOutHelpers(unusable.among(helperNodes));
    Set<String> excluded = left.all();
    Set<String> followed = new HashSet<>(); // helpers asked again at the endpoint they moved to, once each
    IOException last = null;
    for (int attempt = 1; attempt <= maxAttempts; attempt++) {
      StreamPlan plan;
      try {
        plan = StreamPlan.of(r, excluded, requestor.node(), requestor.rack(), resolver, sliceBytes);
      } catch (NotDecodableException e) {
        String again = left.askAgain();
        if (again != null) {
          LOG.info("{}: {}", r.name(), again);
          attempt--; // planning is not an attempt: the attempt that asks them counts
          continue;
        }
        counters.repairFailed();
        throw new RepairFailedException(r.name() + ": cannot repair units " + Arrays.toString(r.lost())
            + " after excluding " + excluded + ": " + e.getMessage(), last == null ? e : last, tried(attempt - 1, excluded));
      } catch (IOException e) {
        last = e;
        helpersNotFound(r, attempt, e, excluded);
        continue;
      }
      try {
        AttemptPhases phases = run(r, requestor, plan, excluded, sinks, sliceBytes, offset, length, start);
        return succeeded(r, plan, attempt, excluded, start, offset, length, phases);
      } catch (PeerFailure f) {
        if (Thread.currentThread().isInterrupted()) {
          // Cancelled (a degraded read that direct decode answered first, a stopping daemon): no helper's fault, and
          // another attempt would only be interrupted again.
          counters.repairFailed();
          throw new RepairFailedException(r.name() + ": interrupted", f, tried(attempt, excluded));
        }
        last = f;
        if (movedAway(r, plan, f, followed)) {
          attempt--; // the helper was asked at an endpoint it left: not its failure, nor an attempt of this repair
          continue;
        }
        if (attemptFailed(r, attempt, f, plan, helperNodes, excluded) && neverOpened(f)) {
          left.neverOpened(f.culprit());
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        counters.repairFailed();
        throw new RepairFailedException(r.name() + ": interrupted", e, tried(attempt, excluded));
      } catch (ValidationFailedException e) {
        // Not retried: two decodes of the same stripe disagree, so some input or the code path is wrong, and
        // storing either answer could store wrong bytes as good ones.
        counters.validationFailed();
        counters.repairFailed();
        LOG.warn("{}: VALIDATION FAILED, nothing stored: {}", r.name(), e.getMessage());
        throw new RepairFailedException(r.name() + ": validation failed, nothing stored: " + e.getMessage(), e,
            tried(attempt, excluded));
      } catch (IOException e) {
        counters.repairFailed();
        throw new RepairFailedException(r.name() + ": storing the rebuilt units failed: " + e.getMessage(), e,
            tried(attempt, excluded));
      }
    }
    counters.repairFailed();
    throw new RepairFailedException(r.name() + ": gave up after " + maxAttempts + " attempts: "
        + (last == null ? "" : last.getMessage()), last, tried(maxAttempts, excluded));
  }

  private static void requireWithinUnits(StripeRepair r, long offset, long length) {
    if (offset < 0 || length < 0 || offset + length > r.length()) {
      throw new IllegalArgumentException(r.name() + ": range [" + offset + ", " + (offset + length) + ") is outside the "
          + r.length() + " bytes of the units");
    }
  }

  /** A helper whose slice service cannot be found (e.g. its DataNode just died) is left out of the next plan. */
  private void helpersNotFound(StripeRepair r, int attempt, IOException e, Set<String> excluded) {
    String culprit = e instanceof PeerFailure f ? f.culprit() : null;
    if (culprit != null) {
      excluded.add(culprit);
      resolver.forget(culprit);
      unusable(r, culprit, e, null);
    }
    LOG.warn("{}: attempt {} could not resolve helpers: {}{}", r.name(), attempt, e.getMessage(),
        culprit != null ? "; restarting without " + culprit : "");
    if (attempt < maxAttempts) {
      counters.retried();
    }
  }

  /** Counts and logs a repair whose sinks confirmed every unit. */
  private Result succeeded(StripeRepair r, StreamPlan plan, int attempt, Set<String> excluded, long start,
      long offset, long length, AttemptPhases phases) {
    long ms = (System.nanoTime() - start) / 1_000_000;
    counters.repairSucceeded(ms);
    if (offset == 0 && length == r.length()) {
      LOG.info("{}: rebuilt units {} ({} scheme, {} helpers, attempt {}) in {} ms; last attempt: {}", r.name(),
          Arrays.toString(r.lost()), r.scheme(), plan.helpers.size(), attempt, ms, phases.describe());
    } else { // a degraded read's range: a busy client rebuilds many a second, so not one INFO line each
      LOG.debug("{}: rebuilt bytes [{}, {}) of units {} ({} scheme, {} helpers, attempt {}) in {} ms; last attempt: {}",
          r.name(), offset, offset + length, Arrays.toString(r.lost()), r.scheme(), plan.helpers.size(), attempt, ms,
          phases.describe());
    }
    return new Result(attempt, plan.helpers.size(), new ArrayList<>(excluded), ms, phases);
  }

  /**
   * Whether the helper a failure blames was asked at an endpoint it no longer names, looked up again now (a DataNode
   * restarted on a new slice port): then the next plan asks it where it listens, once per helper and repair.
   */
  private boolean movedAway(StripeRepair r, StreamPlan plan, PeerFailure f, Set<String> followed) {
    Endpoint used = f.culprit() == null ? null : plan.endpoints.get(f.culprit());
    if (used == null || followed.contains(f.culprit())) {
      return false;
    }
    Endpoint now = resolver.moved(used);
    if (now == null) {
      return false;
    }
    followed.add(f.culprit());
    unusable.lift(f.culprit());
    LOG.info("{}: helper {} no longer listens at {}:{} but at {}:{} (restarted); asking it there", r.name(),
        f.culprit(), used.host(), used.port(), now.host(), now.port());
    return true;
  }

  /**
   * A helper failed mid-attempt: excluded (and its corrupt source reported) before the next attempt. Whether a helper
   * was blamed (and so excluded).
   */
  private boolean attemptFailed(StripeRepair r, int attempt, PeerFailure f, StreamPlan plan, Set<String> helperNodes,
      Set<String> excluded) {
    // Any surviving unit's node may be blamed: the validation pass asks helpers the first pass did not.
    boolean blame = f.culprit() != null && helperNodes.contains(f.culprit());
    if (blame) {
      excluded.add(f.culprit());
      resolver.forget(f.culprit());
      corrupt.ofFailure(r, f);
      if (f instanceof HelperStreams.Unreachable) {
        unusable(r, f.culprit(), f, plan.endpoints.get(f.culprit()));
      }
    }
    if (attempt < maxAttempts) {
      counters.retried();
    }
    LOG.warn("{}: attempt {} of {} failed: {}{}", r.name(), attempt, maxAttempts, f.getMessage(),
        blame ? "; restarting without " + f.culprit() : "");
    return blame;
  }

  /**
   * A helper that could not be reached, or ended the connection with an error of its own before any frame of its
   * stream: no slice of it was used. Only the first makes it unusable for other repairs (as it was).
   */
  private static boolean neverOpened(PeerFailure f) {
    return f instanceof HelperStreams.Unreachable || f instanceof org.wideec.transport.PeerRefusal;
  }

  /**
   * A helper that could not be reached (at {@code at}, when known) or refused this node before any slice flowed:
   * unusable for a while, or until it names another endpoint.
   */
  private void unusable(StripeRepair r, String node, IOException why, Endpoint at) {
    UnitLocation helper = r.survivors().values().stream().filter(h -> h.node().equals(node)).findFirst().orElse(null);
    boolean first = helper == null ? unusable.avoid(node, why.getMessage())
        : unusable.avoid(helper.site(), why.getMessage(), at);
    if (first && unusable.avoidMs() > 0) {
      LOG.warn("{}: helper {} is unusable ({}); repairs plan without it for {} ms{}", r.name(), node,
          why.getMessage(), unusable.avoidMs(), helper == null ? "" : ", or until it names another slice port");
    }
  }

  private static Result tried(int attempts, Set<String> excluded) {
    return new Result(attempts, 0, new ArrayList<>(excluded), 0, AttemptPhases.NONE);
  }

  /**
   * One attempt: streams the range, writes it to the sinks, has a sample validated, and only then lets the sinks
   * store it. Any failure aborts every sink, so nothing of a failed or unvalidated attempt is stored.
   *
   * @return when each of its phases ended
   */
  private AttemptPhases run(StripeRepair r, UnitLocation requestor, StreamPlan plan, Set<String> excluded,
      SliceSink.Factory factory, int sliceBytes, long rangeOffset, long length, long repairStart)
      throws IOException, InterruptedException {
    AttemptPhases.Clock clock = new AttemptPhases.Clock(repairStart);
    long[] unitLengths = new long[r.lost().length];
    for (int o = 0; o < unitLengths.length; o++) {
      unitLengths[o] = Math.max(0, Math.min(length, r.lostLengths()[o] - rangeOffset));
    }
    // A copy has no other input set to decode from: reading its one replica again would check nothing that the
    // CRC32C its target must match (computed by the replica's own node from its disk) does not, at twice its reads.
    int[] sample = r.copies() ? new int[0]
        : validation.sample(StepRequest.slices(length, sliceBytes), ThreadLocalRandom.current());
    Map<Integer, byte[][]> kept = new HashMap<>();
    List<SliceSink> sinks = new ArrayList<>();
    List<SecondDecode.Pending> second = new ArrayList<>(1);
    boolean done = false;
    try {
      // Targets are opened only once every helper accepted: a helper that cannot be reached fails the attempt before
      // any target holds a temporary replica the next attempt would collide with. The second decode starts then too.
      streams.stream(r, requestor, plan, sliceBytes, rangeOffset, length, () -> {
        clock.accepted();
        for (int o = 0; o < r.lost().length; o++) {
          sinks.add(factory.open(r.lost()[o], unitLengths[o]));
        }
        if (sample.length > 0) {
          second.add(secondDecode.start(r, requestor, plan, excluded, sliceBytes, rangeOffset, length, sample));
        }
      }, (s, offset, n, out) -> {
        clock.slice();
        long writing = System.nanoTime();
        SliceSink.writeEach(sinks, unitLengths, offset, n, out);
        clock.wroteTargets(writing);
        if (Arrays.binarySearch(sample, s) >= 0) {
          kept.put(s, SecondDecode.copyOf(out, n));
        }
      });
      clock.firstPassDone();
      for (SecondDecode.Pending p : second) {
        p.compare(unitLengths, kept);
      }
      clock.secondDecodeDone();
      for (SliceSink sink : sinks) {
        sink.finish();
      }
      done = true;
      return clock.stored();
    } finally {
      if (!done) {
        second.forEach(SecondDecode.Pending::cancel);
        sinks.forEach(SliceSink::abort);
      }
    }
  }
}
