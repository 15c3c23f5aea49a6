package org.wideec.engine;

import java.io.IOException;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.wideec.code.NotDecodableException;
import org.wideec.repair.EndpointResolver;
import org.wideec.repair.RepairScheme;
import org.wideec.repair.StripeRepair;
import org.wideec.repair.UnitLocation;
import org.wideec.transport.PeerFailure;

/**
 * Validation of a rebuild (RebuildValidation): decodes sampled slices again from another input set and compares them
 * with what the first pass rebuilt, so that one bad input or a wrong code path cannot pass as a good unit.
 */
final class SecondDecode {
  // Logged under the engine's name: operators filter repair lines by it.
  private static final Logger LOG = LoggerFactory.getLogger(RepairEngine.class);
  private final EndpointResolver resolver;
  private final RepairCounters counters;
  private final HelperStreams streams;

  SecondDecode(EndpointResolver resolver, RepairCounters counters, HelperStreams streams) {
    this.resolver = resolver;
    this.counters = counters;
    this.streams = streams;
  }

  /**
   * Decodes the sampled slices again and compares them with {@code kept}, what the first pass rebuilt.
   *
   * @throws RepairEngine.ValidationFailedException naming the unit, the slice and both input sets on the first
   *     difference
   */
  void validate(StripeRepair r, UnitLocation requestor, StreamPlan first, Set<String> excluded, int sliceBytes,
      long rangeOffset, long length, long[] unitLengths, int[] sample, Map<Integer, byte[][]> kept)
      throws IOException, InterruptedException {
    AlternativePlan alt = alternative(r, requestor, first, excluded, sliceBytes);
    for (int s : sample) {
      long offset = (long) s * sliceBytes;
      int n = (int) Math.min(sliceBytes, length - offset);
      byte[][] expected = kept.get(s);
      streams.stream(r, requestor, alt.plan(), sliceBytes, rangeOffset + offset, n, () -> {}, (x, o2, n2, again) -> {
        for (int o = 0; o < again.length; o++) {
          int bytes = (int) Math.max(0, Math.min(n2, unitLengths[o] - offset));
          int at = Arrays.mismatch(expected[o], 0, bytes, again[o], 0, bytes);
          if (at >= 0) {
            throw new RepairEngine.ValidationFailedException("unit " + r.lost()[o] + " byte "
                + (rangeOffset + offset + at) + " (slice " + s + "): first decode from " + nodes(first) + " gave "
                + (expected[o][at] & 0xff) + ", second decode " + alt.how() + " from " + nodes(alt.plan()) + " gave "
                + (again[o][at] & 0xff));
          }
        }
      });
    }
    counters.validated();
    LOG.debug("{}: {} slices validated by a second decode {}", r.name(), sample.length, alt.how());
  }

  private record AlternativePlan(StreamPlan plan, String how) {}

  /** Another input set: one first-pass helper left out where the code allows it, else the conventional star. */
  private AlternativePlan alternative(StripeRepair r, UnitLocation requestor, StreamPlan first, Set<String> excluded,
      int sliceBytes) throws IOException {
    Set<String> unreachable = new HashSet<>(excluded);
    for (String node : new LinkedHashSet<>(nodes(first))) {
      while (true) {
        Set<String> without = new HashSet<>(unreachable);
        without.add(node);
        try {
          return new AlternativePlan(StreamPlan.of(r, without, requestor.node(), requestor.rack(), resolver, sliceBytes),
              "without " + node);
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
    StripeRepair star = r.scheme() == RepairScheme.CONVENTIONAL ? r : r.withScheme(RepairScheme.CONVENTIONAL);
    return new AlternativePlan(StreamPlan.of(star, unreachable, requestor.node(), requestor.rack(), resolver, sliceBytes),
        r.scheme() == RepairScheme.CONVENTIONAL ? "from the same inputs again (the code leaves no other)"
            : "from the same inputs through the conventional star (the code leaves no other)");
  }

  private static List<String> nodes(StreamPlan p) {
    return p.helpers.stream().map(UnitLocation::node).toList();
  }
}
