package org.wideec.cli;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.wideec.code.Codes;
import org.wideec.code.LinearCode;
import org.wideec.placement.PlacementPlanner;
import org.wideec.update.RackCoordinatedUpdate;
import org.wideec.update.RackLayout;
import org.wideec.update.ReEncoding;
import org.wideec.update.UpdateChooser;
import org.wideec.update.UpdateHistory;
import org.wideec.update.UpdatePattern;
import org.wideec.update.UpdatePlan;
import org.wideec.update.UpdateScheme;

/**
 * {@code wide-ec update plan}: every update scheme's plan and cross-rack chunks for one stripe's layout and changed
 * units (docs/updates.md). The planning is the model's ({@code org.wideec.update}); this only parses and prints.
 */
final class UpdateCommand {
  static final String USAGE = String.join("\n",
      "  update plan --racks R1:d0,d1;R2:p0,p1;... | --placement flat|tl|cl|unilrc --code SPEC",
      "              --changed d0,d2-d5 [--deleted UNITS] [--code SPEC] [--scheme all|baseline|cau|parix|rackcu|reencode]",
      "              [--collectors R1:R2,R3:R4] [--updated-before UNITS] [--json]",
      "                                                        each scheme's parity-update plan and cross-rack chunks;",
      "                                                        --code defaults to rs:k=<data units>,m=<parities> of --racks");

  private final PrintStream out;

  UpdateCommand(PrintStream out) {
    this.out = out;
  }

  int run(String[] args) {
    Options o = new Options(args, Set.of("racks", "placement", "code", "changed", "deleted", "scheme", "collectors",
        "updated-before"), Set.of("json"));
    String verb = o.positional().isEmpty() ? "" : o.positional().get(0);
    if (!verb.equals("plan") || o.positional().size() > 1) {
      throw new Options.UsageException("update takes 'plan', not '" + String.join(" ", o.positional()) + "'");
    }
    UpdatePattern pattern = pattern(o);
    UpdateHistory history = UpdateHistory.of(parse("updated-before", () -> RackLayout.dataUnits(pattern.code(),
        o.get("updated-before", ""))));
    String scheme = o.get("scheme", "all");
    List<UpdatePlan> plans = new ArrayList<>();
    if (scheme.equals("all")) {
      for (String name : UpdateScheme.NAMES) {
        if (!name.equals("reencode") || ReEncoding.runs(pattern.code())) { // re-encoding needs a pinned code
          plans.add(UpdateScheme.byName(name).plan(pattern, history));
        }
      }
    } else {
      plans.add(parse("scheme", () -> UpdateScheme.byName(scheme)).plan(pattern, history));
    }
    if (o.has("collectors")) {
      int[] collectorOf = parse("collectors", () -> RackLayout.collectors(pattern, o.get("collectors", "")));
      plans.add(parse("collectors", () -> new RackCoordinatedUpdate(collectorOf).plan(pattern, history)));
    }
    UpdateScheme delta = UpdateScheme.byName(scheme.equals("all") || scheme.equals("reencode") ? "rackcu" : scheme);
    String chosen = new UpdateChooser(delta).choose(pattern, history).scheme();
    if (o.has("json")) {
      out.println(Json.write(json(pattern, plans, chosen)));
      return 0;
    }
    out.println(pattern);
    for (UpdatePlan p : plans) {
      out.println();
      out.println(p.describe());
    }
    out.println();
    StringBuilder sb = new StringBuilder("cross-rack chunks:");
    for (UpdatePlan p : plans) {
      sb.append(' ').append(p.scheme()).append(' ').append(p.crossRackChunks());
    }
    out.println(sb);
    out.println("chosen: " + chosen + " (re-encoding only when it crosses racks less than " + delta.name() + ")");
    return 0;
  }

  private static UpdatePattern pattern(Options o) {
    if (o.has("racks") == o.has("placement")) {
      throw new Options.UsageException("give the stripe's layout with exactly one of --racks or --placement");
    }
    UpdatePattern layout;
    if (o.has("racks")) {
      String racks = o.get("racks", "");
      LinearCode code = o.has("code") ? code(o) : parse("racks", () -> Codes.fromSpec(defaultSpec(racks)));
      layout = parse("racks", () -> RackLayout.parse(code, racks));
    } else {
      if (!o.has("code")) {
        throw new Options.UsageException("--placement needs --code");
      }
      LinearCode code = code(o);
      layout = parse("placement", () -> UpdatePattern.of(PlacementPlanner.byName(o.get("placement", ""), 1).plan(code)));
    }
    int[] changed = parse("changed", () -> RackLayout.dataUnits(layout.code(), o.get("changed", "")));
    int[] deleted = parse("deleted", () -> RackLayout.dataUnits(layout.code(), o.get("deleted", "")));
    int[] all = java.util.stream.IntStream.concat(Arrays.stream(changed), Arrays.stream(deleted)).distinct().toArray();
    if (all.length == 0) {
      throw new Options.UsageException("give the changed data units with --changed (or --deleted)");
    }
    return parse("changed", () -> layout.withChanged(all).clearing(deleted));
  }

  private static LinearCode code(Options o) {
    return parse("code", () -> Codes.fromSpec(o.get("code", "")));
  }

  /** rs:k=<d units>,m=<p units>: the seed's figures are RS stripes given by their racks alone. */
  static String defaultSpec(String racks) {
    int d = 0;
    int p = 0;
    for (String token : racks.split("[;:,]")) {
      String t = token.trim();
      if (t.matches("d\\d+")) {
        d++;
      } else if (t.matches("p\\d+")) {
        p++;
      }
    }
    return "rs:k=" + d + ",m=" + p;
  }

  /** Runs a parse step, turning the model's IllegalArgumentException into a usage error naming the option. */
  private static <T> T parse(String option, Supplier<T> step) {
    try {
      return step.get();
    } catch (IllegalArgumentException e) {
      throw new Options.UsageException("--" + option + ": " + e.getMessage());
    }
  }

  private static Map<String, Object> json(UpdatePattern pattern, List<UpdatePlan> plans, String chosen) {
    Map<String, Object> j = new LinkedHashMap<>();
    j.put("code", pattern.code().spec());
    List<Map<String, Object>> racks = new ArrayList<>();
    for (int r = 0; r < pattern.racks(); r++) {
      Map<String, Object> rack = new LinkedHashMap<>();
      rack.put("name", pattern.rackName(r));
      rack.put("units", Arrays.stream(pattern.placement().units(r)).mapToObj(pattern::unitName).toList());
      racks.add(rack);
    }
    j.put("racks", racks);
    j.put("changed", Arrays.stream(pattern.changed()).mapToObj(pattern::unitName).toList());
    Map<String, Object> counts = new LinkedHashMap<>();
    for (UpdatePlan p : plans) {
      counts.put(p.scheme(), p.crossRackChunks());
    }
    j.put("crossRackChunks", counts);
    j.put("chosen", chosen);
    j.put("plans", plans.stream().map(UpdatePlan::toJson).toList());
    return j;
  }
}
