package org.wideec.engine;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.wideec.code.NotDecodableException;
import org.wideec.protocol.StepRequest;
import org.wideec.repair.RebuildValidation;
import org.wideec.repair.EndpointResolver;
import org.wideec.repair.RepairScheme;
import org.wideec.repair.StripeRepair;
import org.wideec.repair.UnitLocation;
import org.wideec.transport.PeerFailure;

/**
 * Validation of a rebuild (RebuildValidation): decodes sampled slices again from another input set and compares them
 * with what the first pass rebuilt, so that one bad input or a wrong code path cannot pass as a good unit.
 *
 * <p>It runs beside the first pass ({@link #start}), and the unit is stored only once both ended and agree. It runs as
 * the conventional star (every helper of the other input set sends straight to the
 * requestor), whatever scheme the first pass used. It decodes a handful of slices, so its cost is its setup, not its
 * bytes: a chain is set up hop after hop (a helper asks its upstream only once it is itself asked), and leaving one
 * helper out of a 6-helper local repair makes it a 12-helper global chain, 12 serial setups per stream on a host
 * already busy with the first passes. The star's helpers are all asked by the requestor, each one round trip, and
 * none waits for another. What it costs: no partial sums inside racks, so each helper outside the requestor's rack
 * sends its sampled slices across racks itself, where the rack-aggregated chain sends one partial sum per other rack
 * (12+2+2 with 3 units a rack: about 10 windows across racks per sampled slice instead of 5). So only a window of
 * each sampled slice is decoded again (RebuildValidation, 16 KiB by default): whole 256 KiB slices made it 6 MiB
 * across racks per rebuilt unit, and on the real-process cluster the four second decodes of a node loss, all
 * arriving at the lost node's rack in the repairs' first second, held the chains' first slices behind them on that
 * rack's uplink for 1-2 s of a 5 s recovery. Windows cost some 400 KiB a unit.
 *
 * <p>The second decode cuts the range in windows, and all sampled windows travel in one stream where they form an
 * arithmetic progression ({@link StepRequest#carrying}: the default sample of 2, and every slice checked whole, always
 * do), so the helpers are asked once per validation, not once per slice. The sample itself stays random, with the
 * last slice's last window always in it (RebuildValidation): a contiguous run would have been one stream too, but
 * would never look at most of a unit.
 */
final class SecondDecode {
  // Logged under the engine's name: operators filter repair lines by it.
  private static final Logger LOG = LoggerFactory.getLogger(RepairEngine.class);
  private final EndpointResolver resolver;
  private final RepairCounters counters;
  private final HelperStreams streams;
  /** Which window of each sampled slice is decoded again. */
  private final RebuildValidation validation;

  SecondDecode(EndpointResolver resolver, RepairCounters counters, HelperStreams streams, RebuildValidation validation) {
    this.resolver = resolver;
    this.counters = counters;
    this.streams = streams;
    this.validation = validation;
  }

  /**
   * Starts decoding the sampled slices again, on a thread of its own, while the first pass streams: the two share no
   * input set, and a chain's first pass is mostly setup and its first slice's way through the hops, so the second
   * decode's own setup and sampled slices fit in that time instead of adding theirs after it (on the real cluster the
   * second decode took 2-4 s of a 6-19 s repair). {@link Pending#compare} then compares with what the first pass kept.
   */
  Pending start(StripeRepair r, UnitLocation requestor, StreamPlan first, Set<String> excluded, int sliceBytes,
      long rangeOffset, long length, int[] sample) {
    int window = validation.windowFor(sliceBytes);
    int[] windows = validation.windows(sample, length, sliceBytes, ThreadLocalRandom.current());
    List<Progression> runs = Progression.cover(windows);
    Set<String> left = Set.copyOf(excluded); // the caller's set changes with its next attempt
    return new Pending(r, first, rangeOffset, sample, sliceBytes, window, windows, runs, DECODES.submit(() -> {
      AlternativePlan alt = alternative(r, requestor, first, left, window);
      Map<Integer, byte[][]> again = new HashMap<>();
      for (Progression run : runs) {
        // The range ends with the progression's last window, so the helpers stop there; the last progression holds the
        // range's last window and so reads to the range's end, short tail included.
        long end = Math.min(length, (long) (run.last() + 1) * window);
        streams.stream(r, requestor, alt.plan().carrying(run.first(), run.stride()), window, rangeOffset, end,
            () -> {}, (w, offset, n, out) -> {
              if (run.holds(w)) { // a plan of no streams (every input a zero unit) hands on every window of the range
                again.put(w, copyOf(out, n));
              }
            });
      }
      return new Decoded(alt, again);
    }));
  }

  /** What a second decode gave: the input set it used and its slices, by index. */
  private record Decoded(AlternativePlan alt, Map<Integer, byte[][]> again) {}

  /** Threads of second decodes: one per repair that validates, while its first pass runs; none kept when idle. */
  private static final ExecutorService DECODES = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "wide-ec-second-decode");
    t.setDaemon(true);
    return t;
  });

  /** A second decode under way: compared once the first pass has ended, or cancelled when the attempt fails. */
  final class Pending {
    private final StripeRepair r;
    private final StreamPlan first;
    private final long rangeOffset;
    private final int[] sample;
    private final int sliceBytes;
    private final int window;
    private final int[] windows;
    private final List<Progression> runs;
    private final Future<Decoded> decoded;

    private Pending(StripeRepair r, StreamPlan first, long rangeOffset, int[] sample, int sliceBytes, int window,
        int[] windows, List<Progression> runs, Future<Decoded> decoded) {
      this.r = r;
      this.first = first;
      this.rangeOffset = rangeOffset;
      this.sample = sample;
      this.sliceBytes = sliceBytes;
      this.window = window;
      this.windows = windows;
      this.runs = runs;
      this.decoded = decoded;
    }

    /**
     * Waits for the second decode and compares it with {@code kept}, what the first pass rebuilt.
     *
     * @throws RepairEngine.ValidationFailedException naming the unit, the slice and both input sets on the first
     *     difference, or when fewer slices than sampled were decoded again
     * @throws IOException the second decode's own failure (a helper it asked)
     */
    void compare(long[] unitLengths, Map<Integer, byte[][]> kept) throws IOException, InterruptedException {
      Decoded d = await();
      AlternativePlan alt = d.alt();
      int compared = 0;
      for (int i = 0; i < sample.length; i++) {
        byte[][] again = d.again().get(windows[i]);
        if (again != null) {
          long offset = (long) windows[i] * window;
          SecondDecode.compare(r, first, alt, sample[i], rangeOffset, offset,
              (int) (offset - (long) sample[i] * sliceBytes), again[0].length, unitLengths, kept.get(sample[i]), again);
          compared++;
        }
      }
      if (compared != sample.length) { // never stored as validated on fewer slices than sampled
        throw new RepairEngine.ValidationFailedException("the second decode " + alt.how() + " compared " + compared
            + " of " + sample.length + " sampled slices");
      }
      counters.validated();
      LOG.debug("{}: {} slices validated ({} bytes of each) by a second decode {} ({} helpers, {} stream{})", r.name(),
          sample.length, window, alt.how(), alt.plan().helpers.size(), runs.size(), runs.size() == 1 ? "" : "s");
    }

    private Decoded await() throws IOException, InterruptedException {
      try {
        return decoded.get();
      } catch (ExecutionException e) {
        throw TaskFailure.cause(e, r.name() + ": the second decode failed");
      }
    }

    /** The attempt failed: its second decode stops (its streams close as its thread is interrupted). */
    void cancel() {
      decoded.cancel(true);
    }
  }

  /**
   * Window {@code again} (n bytes at {@code offset} into the range) against the first pass's slice s, in which the
   * window starts {@code within} bytes in.
   */
  private static void compare(StripeRepair r, StreamPlan first, AlternativePlan alt, int s, long rangeOffset,
      long offset, int within, int n, long[] unitLengths, byte[][] expected, byte[][] again)
      throws RepairEngine.ValidationFailedException {
    for (int o = 0; o < again.length; o++) {
      int bytes = (int) Math.max(0, Math.min(n, unitLengths[o] - offset));
      int at = Arrays.mismatch(expected[o], within, within + bytes, again[o], 0, bytes);
      if (at >= 0) {
        throw new RepairEngine.ValidationFailedException("unit " + r.lost()[o] + " byte "
            + (rangeOffset + offset + at) + " (slice " + s + "): first decode from " + nodes(first) + " gave "
            + (expected[o][within + at] & 0xff) + ", second decode " + alt.how() + " from " + nodes(alt.plan())
            + " gave " + (again[o][at] & 0xff));
      }
    }
  }

  /** Windows first, first + stride, ..., last: what one stream of the second decode carries. */
  record Progression(int first, int stride, int last) {
    boolean holds(int s) {
      return s >= first && s <= last && (s - first) % stride == 0;
    }

    /**
     * The fewest progressions, taken greedily in order, that hold exactly the sampled windows (ascending): one for
     * the default sample of 2 and for every slice checked whole, at most half the sample's size otherwise.
     */
    static List<Progression> cover(int[] sample) {
      List<Progression> out = new ArrayList<>();
      int i = 0;
      while (i < sample.length) {
        int stride = i + 1 < sample.length ? sample[i + 1] - sample[i] : 1;
        int j = i;
        while (j + 1 < sample.length && sample[j + 1] - sample[j] == stride) {
          j++;
        }
        out.add(new Progression(sample[i], stride, sample[j]));
        i = j + 1;
      }
      return out;
    }
  }

  private record AlternativePlan(StreamPlan plan, String how) {}

  /**
   * Another input set, streamed as the conventional star: one first-pass helper left out where the code allows it,
   * else the same inputs (through the star, when the first pass was not one).
   */
  private AlternativePlan alternative(StripeRepair r, UnitLocation requestor, StreamPlan first, Set<String> excluded,
      int sliceBytes) throws IOException {
    StripeRepair star = r.scheme() == RepairScheme.CONVENTIONAL ? r : r.withScheme(RepairScheme.CONVENTIONAL);
    Set<String> unreachable = new HashSet<>(excluded);
    for (String node : new LinkedHashSet<>(nodes(first))) {
      while (true) {
        Set<String> without = new HashSet<>(unreachable);
        without.add(node);
        try {
          return new AlternativePlan(StreamPlan.of(star, without, requestor.node(), requestor.rack(), resolver,
              sliceBytes), "without " + node + " as a star");
        } catch (NotDecodableException e) {
          break; // the lost units need this helper: try leaving out another
        } catch (PeerFailure e) {
          if (e.culprit() == null || !unreachable.add(e.culprit())) {
            throw e;
          }
          resolver.forget(e.culprit()); // a helper the first pass did not need cannot be found: plan without it
        }
      }
    }
    return new AlternativePlan(StreamPlan.of(star, unreachable, requestor.node(), requestor.rack(), resolver, sliceBytes),
        r.scheme() == RepairScheme.CONVENTIONAL ? "from the same inputs again (the code leaves no other)"
            : "from the same inputs through the conventional star (the code leaves no other)");
  }

  /** The first n bytes of each lost unit's slice: the rows are reused for the next slice. */
  static byte[][] copyOf(byte[][] out, int n) {
    byte[][] copy = new byte[out.length][];
    for (int o = 0; o < out.length; o++) {
      copy[o] = Arrays.copyOf(out[o], n);
    }
    return copy;
  }

  private static List<String> nodes(StreamPlan p) {
    return p.helpers.stream().map(UnitLocation::node).toList();
  }
}
