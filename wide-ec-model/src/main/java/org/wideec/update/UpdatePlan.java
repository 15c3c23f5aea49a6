package org.wideec.update;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Who sends what to whom to renew one stripe's parities: the collector racks and the ordered transfers (a
 * transfer may use only what its source holds after the transfers before it). A plan is data (STYLE.md): it is
 * printed ({@link #describe}, {@link #toJson}), costed ({@link #crossRackChunks}), checked on real bytes by
 * {@link UpdateExecution}, and carried out by the HDFS layer.
 *
 * <p>When {@code reEncode} is set every parity is written afresh: deltas are taken from the all-zero stripe, so a
 * unit's "data delta" is its new content and a parity starts from zero instead of its old value.
 */
public record UpdatePlan(String scheme, UpdatePattern pattern, int[] collectorRacks, List<Transfer> transfers,
    boolean reEncode) {
  public UpdatePlan {
    collectorRacks = collectorRacks.clone();
    transfers = List.copyOf(transfers);
  }

  @Override
  public int[] collectorRacks() {
    return collectorRacks.clone();
  }

  /** Chunks sent across racks: the quantity RackCU minimises (§III-B, Eq. 4). */
  public int crossRackChunks() {
    return transfers.stream().filter(Transfer::crossRack).mapToInt(Transfer::chunks).sum();
  }

  /** Chunks sent across racks in one phase. */
  public int crossRackChunks(Transfer.Phase phase) {
    return transfers.stream().filter(t -> t.crossRack() && t.phase() == phase).mapToInt(Transfer::chunks).sum();
  }

  /** Chunks sent between nodes of the same rack. */
  public int intraRackChunks() {
    return transfers.stream().filter(t -> !t.crossRack()).mapToInt(Transfer::chunks).sum();
  }

  /** Human-readable: a header line with the count, then one line per transfer. */
  public String describe() {
    StringBuilder sb = new StringBuilder();
    sb.append(scheme).append(": ").append(crossRackChunks()).append(" cross-rack chunks, ")
        .append(intraRackChunks()).append(" inside racks");
    if (collectorRacks.length > 0) {
      sb.append("; collector ").append(rackNames(collectorRacks));
    }
    if (reEncode) {
      sb.append("; re-encodes every parity");
    }
    for (Transfer t : transfers) {
      sb.append('\n').append(String.format("  %-19s %-16s %s -> %s  %s for %s, %d chunk%s%s",
          phaseName(t.phase()), kindName(t.kind()), placeName(t.from()), placeName(t.to()),
          pattern.unitNames(t.units()), pattern.unitNames(t.parities()), t.chunks(), t.chunks() == 1 ? "" : "s",
          t.crossRack() ? " cross-rack" : ""));
    }
    return sb.toString();
  }

  /** The plan as JSON-ready maps and lists (camelCase keys; units named d0.., p0..; racks by name). */
  public Map<String, Object> toJson() {
    Map<String, Object> j = new LinkedHashMap<>();
    j.put("scheme", scheme);
    j.put("crossRackChunks", crossRackChunks());
    j.put("intraRackChunks", intraRackChunks());
    j.put("collectorRacks", rackNames(collectorRacks));
    j.put("reEncode", reEncode);
    List<Map<String, Object>> ts = new ArrayList<>();
    for (Transfer t : transfers) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("phase", t.phase().name());
      m.put("kind", t.kind().name());
      m.put("from", placeJson(t.from()));
      m.put("to", placeJson(t.to()));
      m.put("units", pattern.unitNames(t.units()));
      m.put("parities", pattern.unitNames(t.parities()));
      m.put("chunks", t.chunks());
      m.put("crossRack", t.crossRack());
      ts.add(m);
    }
    j.put("transfers", ts);
    return j;
  }

  private Map<String, Object> placeJson(Place p) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("rack", pattern.rackName(p.rack()));
    if (!p.isRelay()) {
      m.put("unit", pattern.unitName(p.unit()));
    }
    return m;
  }

  private List<String> rackNames(int[] racks) {
    return Arrays.stream(racks).mapToObj(pattern::rackName).toList();
  }

  private String placeName(Place p) {
    return p.isRelay() ? pattern.rackName(p.rack()) : pattern.unitName(p.unit()) + "@" + pattern.rackName(p.rack());
  }

  private static String phaseName(Transfer.Phase p) {
    return switch (p) {
      case DELTA_COLLECTING -> "delta collecting";
      case PARITY_UPDATE -> "parity update";
      case LOCAL_PARITY_UPDATE -> "local parity";
    };
  }

  private static String kindName(Transfer.Kind k) {
    return switch (k) {
      case DATA_DELTA -> "data delta";
      case PARITY_DELTA -> "parity delta";
      case OLD_AND_NEW_DATA -> "old+new data";
      case NEW_DATA -> "new data";
    };
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof UpdatePlan p && p.scheme.equals(scheme) && p.pattern == pattern
        && Arrays.equals(p.collectorRacks, collectorRacks) && p.transfers.equals(transfers) && p.reEncode == reEncode;
  }

  @Override
  public int hashCode() {
    return scheme.hashCode() * 31 + transfers.hashCode();
  }

  @Override
  public String toString() {
    return scheme + " " + crossRackChunks() + " cross-rack chunks (" + transfers.size() + " transfers)";
  }
}
