package org.wideec.archive;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.LongFunction;

/**
 * The archival planner's answer: for every stripe, which blocks it holds, which replica each keeps or
 * where it is copied first, where each parity goes, and what encoding costs with either encoder. A plan is data
 * (STYLE.md): {@code wide-ec archive --dry-run} prints it ({@link #describe}, {@link #toJson}), the state machine
 * records it as the manifest's PLANNED stripes ({@link #toManifest}), the encoders carry it out.
 *
 * <p>Order of work the costs assume: moves are copies and run first; encoding reads the replicas then present;
 * nothing is trimmed before the parity is verified, and trimming keeps exactly the planned node's replica.
 */
public record ArchivalPlan(String path, ArchiveScope scope, String codeSpec, int n, int k, PlacementKind placement,
    int files, List<PlannedStripe> stripes, ArchiveGrouping grouping, String groupingReason) implements StripePlan {

  public ArchivalPlan {
    stripes = List.copyOf(stripes);
  }

  /** The same plan, saying how its stripes were grouped and why. */
  public ArchivalPlan withGrouping(ArchiveGrouping g, String reason) {
    return new ArchivalPlan(path, scope, codeSpec, n, k, placement, files, stripes, g, reason);
  }

  @Override
  public StripeLayout layout() {
    return StripeLayout.SYSTEMATIC;
  }

  /** The same plan with every stripe's chain costed in the encoder's shape and reading. */
  public ArchivalPlan withChainShape(org.wideec.archive.encode.EncodePlan.Shape shape,
      org.wideec.archive.encode.ChainReads reads) {
    return new ArchivalPlan(path, scope, codeSpec, n, k, placement, files,
        stripes.stream().map(s -> s.withChainShape(shape, reads)).toList(), grouping, groupingReason);
  }

  public int dataBlocks() {
    return stripes.stream().mapToInt(PlannedStripe::dataBlocks).sum();
  }

  @Override
  public long bytesMoved() {
    return stripes.stream().mapToLong(PlannedStripe::bytesMoved).sum();
  }

  @Override
  public long blocksMoved() {
    return stripes.stream().mapToLong(s -> s.count(PlannedUnit.Action.MOVE)).sum();
  }

  @Override
  public long crossRackBytesMoved() {
    return stripes.stream().mapToLong(PlannedStripe::crossRackBytesMoved).sum();
  }

  public long crossRackBytesClassic() {
    return stripes.stream().mapToLong(s -> s.classic().crossRackBytes()).sum();
  }

  public long crossRackBytesChain() {
    return stripes.stream().mapToLong(s -> s.chain().crossRackBytes()).sum();
  }

  /** What the chain archival sends across racks in all: the chains' streams and deliveries, and the moves. */
  public long crossRackBytesPlanned() {
    return stripes.stream().mapToLong(PlannedStripe::crossRackBytesPlanned).sum();
  }

  /** Stripes whose chain reads in a core rack instead of on the planned nodes. */
  public long coreRackStripes() {
    return stripes.stream().filter(s -> s.chain().coreRack() != null).count();
  }

  /** The chain encoder's cross-rack bytes for {@code chain}, the classic encoder's for any other. */
  @Override
  public Long crossRackBytesEncoding(String encoder) {
    return encoder.equals("chain") ? crossRackBytesChain() : crossRackBytesClassic();
  }

  public long logicalBytes() {
    return stripes.stream().mapToLong(PlannedStripe::logicalBytes).sum();
  }

  public long storedBytes() {
    return stripes.stream().mapToLong(PlannedStripe::storedBytes).sum();
  }

  /** Stored bytes over logical bytes after archival, the short last stripe included. */
  public double redundancy() {
    return (double) storedBytes() / logicalBytes();
  }

  /** The same over stripes without padding only (NaN when every stripe is short): what the code itself costs. */
  public double redundancyOfFullStripes() {
    long stored = 0;
    long logical = 0;
    for (PlannedStripe s : stripes) {
      if (s.paddingUnits() == 0) {
        stored += s.storedBytes();
        logical += s.logicalBytes();
      }
    }
    return logical == 0 ? Double.NaN : (double) stored / logical;
  }

  public int paddingUnits() {
    return stripes.stream().mapToInt(PlannedStripe::paddingUnits).sum();
  }

  /** Zero bytes the virtual padding stands for (never stored): padding units times their stripe's unit length. */
  public long paddingBytes() {
    return stripes.stream().mapToLong(s -> s.paddingUnits() * s.unitLength()).sum();
  }

  /** The manifest that records this plan: every stripe PLANNED, parity files named by {@code parityFile}. */
  public StripeManifest toManifest(LongFunction<String> parityFile) {
    List<ArchivedStripe> out = new ArrayList<>();
    for (PlannedStripe s : stripes) {
      List<StripeMember> members = new ArrayList<>();
      for (PlannedUnit u : s.units()) {
        members.add(switch (u.action()) {
          case KEEP, MOVE -> StripeMember.data(u.block().file().inodeId(), u.block().blockId(),
              u.block().block().generationStamp(), u.length(), u.node(), u.rack());
          case WRITE -> StripeMember.plannedParity(u.role(), u.length(), u.node(), u.rack());
          case VIRTUAL -> StripeMember.padding(u.role());
        });
      }
      out.add(new ArchivedStripe(s.stripeId(), s.codeSpec(), org.wideec.code.CodeFormat.FORMAT_VERSION,
          StripeState.PLANNED, parityFile.apply(s.stripeId()), 0, members));
    }
    return new StripeManifest(path, scope, out);
  }

  /** A summary and one line per stripe. */
  @Override
  public String describe() {
    StringBuilder sb = new StringBuilder();
    PlannedStripe lastStripe = stripes.get(stripes.size() - 1);
    sb.append(String.format(Locale.ROOT, "archive %s (%s: %d file%s, %d blocks, %s) with %s (n=%d, k=%d), %s placement%n",
        path, scope.label(), files, files == 1 ? "" : "s", dataBlocks(), bytes(logicalBytes()), codeSpec, n, k,
        placement.label()));
    sb.append(String.format(Locale.ROOT, "%d stripe%s%s%n", stripes.size(), stripes.size() == 1 ? "" : "s",
        lastStripe.paddingUnits() == 0 ? ", all full" : ", the last one short: " + lastStripe.dataBlocks() + " data block"
            + (lastStripe.dataBlocks() == 1 ? "" : "s") + ", " + lastStripe.paddingUnits() + " virtual data units"));
    sb.append(String.format(Locale.ROOT, "moves: %d blocks, %s (%s of it across racks)%n", blocksMoved(),
        bytes(bytesMoved()), bytes(crossRackBytesMoved())));
    sb.append(String.format(Locale.ROOT, "stripes grouped by %s: %s%n", grouping.label(), groupingReason));
    sb.append(String.format(Locale.ROOT, "encoding across racks: classic %s, chain %s (%d of %d stripes read in a core"
        + " rack; with the moves %s)%n", bytes(crossRackBytesClassic()), bytes(crossRackBytesChain()),
        coreRackStripes(), stripes.size(), bytes(crossRackBytesPlanned())));
    sb.append(String.format(Locale.ROOT, "redundancy after: %.4f (full stripes %s, the code's n/k %.4f); %d virtual"
            + " padding units stand for %s of zeros, never stored%n", redundancy(), ratio(redundancyOfFullStripes()),
        (double) n / k, paddingUnits(), bytes(paddingBytes())));
    List<String[]> rows = new ArrayList<>();
    rows.add(new String[] {"stripe", "data", "keep", "move", "parity", "virtual", "racks", "moved", "classic x-rack",
        "encoder", "chain x-rack", "streams"});
    for (PlannedStripe s : stripes) {
      rows.add(new String[] {Long.toString(s.stripeId()), Integer.toString(s.dataBlocks()),
          Long.toString(s.count(PlannedUnit.Action.KEEP)), Long.toString(s.count(PlannedUnit.Action.MOVE)),
          Long.toString(s.count(PlannedUnit.Action.WRITE)), Long.toString(s.count(PlannedUnit.Action.VIRTUAL)),
          Integer.toString(s.unitsPerRack().size()), bytes(s.bytesMoved()), bytes(s.classic().crossRackBytes()),
          s.classic().encoderNode(), bytes(s.chain().crossRackBytes()), Integer.toString(s.chain().streams())});
    }
    return sb.append(table(rows)).toString();
  }

  /** Every unit of one stripe: role, action, block, node, rack and the source of a move. */
  public String describeUnits(long stripeId) {
    PlannedStripe s = stripes.stream().filter(x -> x.stripeId() == stripeId).findFirst()
        .orElseThrow(() -> new IllegalArgumentException("the plan of " + path + " has no stripe " + stripeId));
    List<String[]> rows = new ArrayList<>();
    rows.add(new String[] {"unit", "role", "action", "block", "bytes", "node", "rack", "from"});
    for (PlannedUnit u : s.units()) {
      rows.add(new String[] {Integer.toString(u.unit()), u.role().shortName(), u.action().label(),
          u.block() == null ? "-" : u.block().describe(), u.stored() ? bytes(u.length()) : "-",
          u.stored() ? u.node() : "-", u.stored() ? u.rack() : "-",
          u.action() == PlannedUnit.Action.MOVE ? u.fromNode() + " (" + u.fromRack() + ")" : ""});
    }
    return String.format(Locale.ROOT, "stripe %d (%s), units of %s%n", s.stripeId(), s.codeSpec(), bytes(s.unitLength()))
        + table(rows);
  }

  @Override
  public Map<String, Object> toJson() {
    Map<String, Object> j = new LinkedHashMap<>();
    j.put("path", path);
    j.put("scope", scope.label());
    j.put("code", codeSpec);
    j.put("n", n);
    j.put("k", k);
    j.put("placement", placement.label());
    j.put("files", files);
    j.put("dataBlocks", dataBlocks());
    j.put("bytesMoved", bytesMoved());
    j.put("blocksMoved", blocksMoved());
    j.put("crossRackBytesMoved", crossRackBytesMoved());
    j.put("crossRackBytesClassic", crossRackBytesClassic());
    j.put("crossRackBytesChain", crossRackBytesChain());
    j.put("crossRackBytesPlanned", crossRackBytesPlanned());
    j.put("grouping", grouping.label());
    j.put("groupingReason", groupingReason);
    j.put("coreRackStripes", coreRackStripes());
    j.put("logicalBytes", logicalBytes());
    j.put("storedBytes", storedBytes());
    j.put("redundancyAfter", redundancy());
    j.put("redundancyFullStripes", redundancyOfFullStripes());
    j.put("paddingUnits", paddingUnits());
    j.put("paddingBytes", paddingBytes());
    List<Map<String, Object>> list = new ArrayList<>();
    for (PlannedStripe s : stripes) {
      list.add(stripeJson(s));
    }
    j.put("stripes", list);
    return j;
  }

  /** One stripe of the plan: its totals, the classic and chain encoders' traffic, and its units. */
  private static Map<String, Object> stripeJson(PlannedStripe s) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("id", s.stripeId());
    m.put("unitLength", s.unitLength());
    m.put("dataBlocks", s.dataBlocks());
    m.put("paddingUnits", s.paddingUnits());
    m.put("bytesMoved", s.bytesMoved());
    m.put("bytesMovedWithPlanRacks", s.bytesMovedWithPlanRacks());
    m.put("crossRackBytesWithFewestMoves", s.crossRackBytesWithFewestMoves());
    m.put("crossRackBytesMoved", s.crossRackBytesMoved());
    m.put("classic", classicJson(s));
    m.put("chain", chainJson(s));
    List<Map<String, Object>> units = new ArrayList<>();
    for (PlannedUnit u : s.units()) {
      units.add(unitJson(u));
    }
    m.put("units", units);
    return m;
  }

  /** The classic encoder's cross-rack traffic for a stripe: one node pulls the k data blocks, writes every parity. */
  private static Map<String, Object> classicJson(PlannedStripe s) {
    Map<String, Object> classic = new LinkedHashMap<>();
    classic.put("encoderNode", s.classic().encoderNode());
    classic.put("encoderRack", s.classic().encoderRack());
    classic.put("crossRackReadBytes", s.classic().crossRackReadBytes());
    classic.put("crossRackWriteBytes", s.classic().crossRackWriteBytes());
    classic.put("crossRackBytes", s.classic().crossRackBytes());
    return classic;
  }

  /** The chain encoder's cross-rack traffic for a stripe: its shape, trees and streams. */
  private static Map<String, Object> chainJson(PlannedStripe s) {
    Map<String, Object> chain = new LinkedHashMap<>();
    chain.put("shape", s.chain().shape().name().toLowerCase(Locale.ROOT).replace('_', '-'));
    chain.put("trees", s.chain().trees());
    chain.put("crossRackStreamBytes", s.chain().crossRackStreamBytes());
    chain.put("crossRackDeliveryBytes", s.chain().crossRackDeliveryBytes());
    chain.put("crossRackBytes", s.chain().crossRackBytes());
    chain.put("streams", s.chain().streams());
    chain.put("coreRack", s.chain().coreRack());
    chain.put("sources", s.chain().sources());
    return chain;
  }

  /** One unit of a stripe: its block if it has one, where it is stored if it is, and where a moved one comes from. */
  private static Map<String, Object> unitJson(PlannedUnit u) {
    Map<String, Object> x = new LinkedHashMap<>();
    x.put("unit", u.unit());
    x.put("role", u.role().shortName());
    x.put("action", u.action().label());
    if (u.block() != null) {
      x.put("file", u.block().file().path());
      x.put("blockIndex", u.block().index());
      x.put("blockId", u.block().blockId());
    }
    if (u.stored()) {
      x.put("bytes", u.length());
      x.put("node", u.node());
      x.put("rack", u.rack());
    }
    if (u.action() == PlannedUnit.Action.MOVE) {
      x.put("fromNode", u.fromNode());
      x.put("fromRack", u.fromRack());
    }
    return x;
  }

  /** Bytes in binary units, e.g. {@code 1.50 GiB}. */
  static String bytes(long b) {
    String[] units = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    double v = b;
    int i = 0;
    while (Math.abs(v) >= 1024 && i < units.length - 1) {
      v /= 1024;
      i++;
    }
    return i == 0 ? b + " B" : String.format(Locale.ROOT, "%.2f %s", v, units[i]);
  }

  private static String ratio(double r) {
    return Double.isNaN(r) ? "n/a" : String.format(Locale.ROOT, "%.4f", r);
  }

  /** Left-aligned columns two spaces apart. */
  private static String table(List<String[]> rows) {
    int[] width = new int[rows.get(0).length];
    for (String[] r : rows) {
      for (int i = 0; i < r.length; i++) {
        width[i] = Math.max(width[i], r[i].length());
      }
    }
    StringBuilder sb = new StringBuilder();
    for (String[] r : rows) {
      StringBuilder line = new StringBuilder();
      for (int i = 0; i < r.length; i++) {
        line.append(i == 0 ? "" : "  ").append(String.format("%-" + width[i] + "s", r[i]));
      }
      sb.append(line.toString().stripTrailing()).append(System.lineSeparator());
    }
    return sb.toString();
  }
}
