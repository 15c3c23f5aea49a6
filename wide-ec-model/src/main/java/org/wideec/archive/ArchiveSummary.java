package org.wideec.archive;

import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;
import org.wideec.code.UnitRole;

/**
 * What a manifest says about its archive, for {@code wide-ec archive} and {@code wide-ec status}: stripes per state,
 * the data bytes the stripes protect, the parity bytes they store, and the redundancy once data is trimmed to one
 * replica (stored data plus stored parity over data; virtual padding is never stored, so it costs nothing here).
 *
 * @param stripesByState every state, in state order, with its count (zero included, so JSON keys are stable)
 * @param logicalBytes bytes of data in the stripes
 * @param parityBytes bytes of every stored parity unit of the plan
 * @param parityBytesWritten bytes of parity blocks that exist now (stripes from PARITY_WRITTEN on)
 */
public record ArchiveSummary(Map<StripeState, Integer> stripesByState, long logicalBytes, long parityBytes,
    long parityBytesWritten) {

  public static ArchiveSummary of(StripeManifest manifest) {
    Map<StripeState, Integer> byState = new EnumMap<>(StripeState.class);
    for (StripeState s : StripeState.values()) {
      byState.put(s, 0);
    }
    long logical = 0;
    long parity = 0;
    long written = 0;
    for (ArchivedStripe s : manifest.stripes()) {
      byState.merge(s.state(), 1, Integer::sum);
      for (StripeMember m : s.members()) {
        if (m.padding()) {
          continue;
        }
        if (m.role() == UnitRole.DATA) {
          logical += m.length();
        } else {
          parity += m.length();
          written += m.blockId() != 0 ? m.length() : 0;
        }
      }
    }
    return new ArchiveSummary(byState, logical, parity, written);
  }

  public int stripes() {
    return stripesByState.values().stream().mapToInt(Integer::intValue).sum();
  }

  public int count(StripeState state) {
    return stripesByState.get(state);
  }

  /** Stored bytes over data bytes once every stripe is trimmed to one replica per data block. */
  public double redundancyAfterTrim() {
    return logicalBytes == 0 ? Double.NaN : (double) (logicalBytes + parityBytes) / logicalBytes;
  }

  /** Counts keyed by state name in lower case ({@code parity_written}), every state present. */
  public Map<String, Integer> toJson() {
    Map<String, Integer> j = new LinkedHashMap<>();
    stripesByState.forEach((s, c) -> j.put(s.name().toLowerCase(java.util.Locale.ROOT), c));
    return j;
  }
}
