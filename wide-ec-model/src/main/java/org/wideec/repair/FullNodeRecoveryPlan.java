package org.wideec.repair;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Where the units a lost node held are rebuilt, and what that costs the rack links: a plan as data, to print, to
 * cost against the physical bound, and for the NameNode to place targets by.
 *
 * @param rebuilds every lost unit: its group, the rack it is rebuilt in and the rack links its repair crosses
 * @param load bytes per rack link of these rebuilds
 * @param baselineLoad the same rebuilds, each sent back to its planned rack (the rack its placement plan names)
 * @param inFlight bytes per rack link of repairs already under way, which these share the links with
 * @param mustCrossBytes cross-rack bytes no valid choice of racks avoids: each rebuild at its cheapest valid rack
 * @param racks racks of the cluster, all of whose links can carry repair traffic
 * @param linkFloorBytes bytes the busiest rack link carries at least, whatever option each rebuild takes: every
 *     link carries what each rebuild puts on it at its lightest option for that link, repairs in flight in full
 * @param jointChoices for each group whose lost units could be decoded jointly or each alone (a caller running the
 *     plan's shapes), what each way costs and which the plan took
 */
public record FullNodeRecoveryPlan(List<Rebuild> rebuilds, RackLinkLoad load, RackLinkLoad baselineLoad,
    RackLinkLoad inFlight, long mustCrossBytes, int racks, long linkFloorBytes, List<JointChoice> jointChoices) {

  /** A plan with no joint-or-alone choice made. */
  public FullNodeRecoveryPlan(List<Rebuild> rebuilds, RackLinkLoad load, RackLinkLoad baselineLoad,
      RackLinkLoad inFlight, long mustCrossBytes, int racks, long linkFloorBytes) {
    this(rebuilds, load, baselineLoad, inFlight, mustCrossBytes, racks, linkFloorBytes, List.of());
  }

  /** One cross-rack transfer of a rebuild. */
  public record Transfer(String fromRack, String toRack, long bytes) {}

  /**
   * Lost units of one group whose local repair reads another lost unit (they need a wider decode anyway), rebuilt by
   * one joint decode (one input set for all of them, at the first unit's target, which sends the others on; a rack
   * that sums its inputs reads each once per output it feeds, any other input is read once) or each alone (each
   * reading its own helper set): what each way reads from helpers and sends across racks, each unit in its planned
   * rack. The joint decode is taken only where it sends fewer bytes across racks.
   */
  public record JointChoice(String group, List<Integer> units, long jointReadBytes, long jointCrossRackBytes,
      long aloneReadBytes, long aloneCrossRackBytes, boolean joint) {
    public JointChoice {
      units = List.copyOf(units);
    }
  }

  /**
   * One lost unit's rebuild.
   *
   * @param plannedRack where its placement plan puts it (today's target)
   * @param rack where this plan rebuilds it
   * @param chain the other racks its rack-aggregated chain passes its partial sum through, in order, before
   *     {@code rack}; empty where the repair is not one such chain (a joint decode, another scheme)
   * @param transfers the cross-rack transfers of its repair in its rack along that chain
   * @param options every rack the plan's guarantees allow it to be rebuilt in, the planned rack first, with the
   *     cross-rack transfers its repair makes there along the worker's default chain (racks in name order)
   * @param decodedWith the lost units of its group that one decode rebuilds together with it (it among them,
   *     ascending), at the target of the first, which sends the others on: the first's transfers are the decode's,
   *     each other's its sending on; empty when it is rebuilt alone
   * @param helperBytes bytes its repair reads from helpers (a joint decode's on its first unit, none on the others)
   * @param beyondCap null when its rack holds no more of the group than the plan's per-rack cap; else why it does
   *     (every rack with a free node was at the cap: a whole rack lost and too few racks left for the plan) and what
   *     that rack's loss then costs ({@link org.wideec.placement.RackAssignment#repairPlacement})
   */
  public record Rebuild(String group, int unit, String plannedRack, String rack, List<String> chain,
      List<Transfer> transfers, Map<String, List<Transfer>> options, List<Integer> decodedWith, long helperBytes,
      String beyondCap) {
    public Rebuild {
      decodedWith = List.copyOf(decodedWith);
      Map<String, List<Transfer>> copy = new java.util.LinkedHashMap<>();
      options.forEach((r, t) -> copy.put(r, List.copyOf(t)));
      options = java.util.Collections.unmodifiableMap(copy);
      chain = List.copyOf(chain);
      transfers = List.copyOf(transfers);
      if (!options.containsKey(rack) || !options.containsKey(plannedRack)) {
        throw new IllegalArgumentException(group + " unit " + unit + ": racks " + rack + " and " + plannedRack
            + " must both be among its options " + options.keySet());
      }
    }

    public boolean moved() {
      return !rack.equals(plannedRack);
    }

    public long crossRackBytes() {
      return transfers().stream().mapToLong(Transfer::bytes).sum();
    }
  }

  public FullNodeRecoveryPlan {
    jointChoices = List.copyOf(jointChoices);
    rebuilds = List.copyOf(rebuilds);
    load = load.copy();
    baselineLoad = baselineLoad.copy();
    inFlight = inFlight.copy();
  }

  /** Target rack of every rebuilt unit of one group, by unit. */
  public Map<Integer, String> racksOf(String group) {
    Map<Integer, String> out = new HashMap<>();
    for (Rebuild r : rebuilds) {
      if (r.group().equals(group)) {
        out.put(r.unit(), r.rack());
      }
    }
    return out;
  }

  /** The rack links one group's rebuilds occupy under this plan (what a record of repairs in flight keeps). */
  public RackLinkLoad loadOf(String group) {
    RackLinkLoad l = new RackLinkLoad(load.links());
    for (Rebuild r : rebuilds) {
      if (r.group().equals(group)) {
        r.transfers().forEach(t -> l.addTransfer(t.fromRack(), t.toRack(), t.bytes()));
      }
    }
    return l;
  }

  /** The rebuilds placed beyond the plan's per-rack cap ({@link Rebuild#beyondCap}). */
  public List<Rebuild> beyondCap() {
    return rebuilds.stream().filter(r -> r.beyondCap() != null).toList();
  }

  /** Bytes these rebuilds send across racks. */
  public long crossRackBytes() {
    return rebuilds.stream().mapToLong(Rebuild::crossRackBytes).sum();
  }

  /**
   * The physical bound (FullRepair's yardstick for full-node recovery): the bytes that must cross racks over the
   * aggregate bandwidth of every rack link in one direction ({@code racks x rate}); with one gateway per rack for
   * both directions each byte occupies two of them.
   */
  public double uplinkBoundSeconds(double bytesPerSecond) {
    return (double) mustCrossBytes * load.links().linksPerByte() / (racks * bytesPerSecond);
  }

  /**
   * A floor no choice among the rebuilds' options gets under ({@code linkFloorBytes} over the rate): where every
   * lost unit must go back to the lost node's rack, that rack's gateway receives one partial sum per unit whichever
   * racks send them, and this floor lies above the uplink bound.
   */
  public double linkFloorSeconds(double bytesPerSecond) {
    return linkFloorBytes / bytesPerSecond;
  }

  /** This plan's time when its busiest rack link (repairs in flight included) is the bottleneck. */
  public double predictedSeconds(double bytesPerSecond) {
    return withInFlight(load).max() / bytesPerSecond;
  }

  /** The same for every rebuild sent back to its planned rack. */
  public double baselinePredictedSeconds(double bytesPerSecond) {
    return withInFlight(baselineLoad).max() / bytesPerSecond;
  }

  private RackLinkLoad withInFlight(RackLinkLoad l) {
    RackLinkLoad all = inFlight.copy();
    all.add(l, 1);
    return all;
  }

  @Override
  public String toString() {
    List<String> lines = new ArrayList<>();
    lines.add(String.format(java.util.Locale.ROOT, "full-node recovery: %d rebuilds, %,d bytes across racks (%,d must),"
        + " busiest link %,d bytes (planned racks: %,d), %d racks, %s", rebuilds.size(), crossRackBytes(), mustCrossBytes,
        withInFlight(load).max(), withInFlight(baselineLoad).max(), racks, load.links()));
    for (Rebuild r : rebuilds) {
      lines.add(String.format(java.util.Locale.ROOT, "  %s unit %d: %s%s%s, %,d bytes across racks %s%s", r.group(),
          r.unit(), r.rack(), r.moved() ? " (planned " + r.plannedRack() + ")" : "",
          r.decodedWith().isEmpty() ? "" : " decoded with units " + r.decodedWith(), r.crossRackBytes(),
          r.transfers().stream().map(t -> t.fromRack() + "->" + t.toRack()).toList(),
          r.beyondCap() == null ? "" : "; beyond the plan's rack cap: " + r.beyondCap()));
    }
    for (JointChoice j : jointChoices) {
      lines.add(String.format(java.util.Locale.ROOT, "  %s units %s %s: jointly %,d bytes read, %,d across racks;"
          + " each alone %,d read, %,d across racks", j.group(), j.units(), j.joint() ? "decoded jointly"
          : "each alone", j.jointReadBytes(), j.jointCrossRackBytes(), j.aloneReadBytes(), j.aloneCrossRackBytes()));
    }
    return String.join("\n", lines);
  }
}
