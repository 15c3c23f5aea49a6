package org.wideec.cli;

import java.io.File;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.wideec.analysis.CombinedLocalityDesign;
import org.wideec.analysis.LocalityTradeoff;
import org.wideec.analysis.Mttdl;
import org.wideec.analysis.PlacementCosts;
import org.wideec.code.Codes;
import org.wideec.code.LinearCode;
import org.wideec.placement.PlacementPlan;
import org.wideec.placement.PlacementPlanner;
import org.wideec.topology.Topology;

/**
 * {@code wide-ec analyze}: what a code costs under a placement, ECWide's CL design for (k, f, gamma), and
 * the redundancy versus cross-rack bandwidth sweep with a chart.
 */
final class AnalyzeCommand {
  static final Set<String> MTTDL_OPTIONS = Set.of("nodes", "capacity-tib", "repair-fraction", "detect-minutes",
      "mttf-years", "bandwidth-gbps", "inner-rack-weight");

  /** Largest --racks accepted (beyond any cluster; a stripe uses at most n racks anyway). */
  static final int MAX_RACKS = 1_000_000;

  private final PrintStream out;

  AnalyzeCommand(PrintStream out) {
    this.out = out;
  }

  int run(String[] args) throws Exception {
    java.util.HashSet<String> valued = new java.util.HashSet<>(Set.of("code", "placement", "racks", "t", "k", "m", "f",
        "gamma", "plot", "cell"));
    valued.addAll(MTTDL_OPTIONS);
    Options o = new Options(args, valued, Set.of("json"));
    String verb = o.positional().isEmpty() ? "" : o.positional().get(0);
    return switch (verb) {
      case "" -> placement(o);
      case "cl" -> combinedLocality(o);
      case "sweep" -> sweep(o);
      default -> throw new Options.UsageException("analyze takes --code ..., 'cl' or 'sweep', not '" + verb + "'");
    };
  }

  static Mttdl mttdl(Options o) {
    Mttdl d = Mttdl.ecwideDefaults();
    return new Mttdl((int) o.getLong("nodes", d.nodes()), dbl(o, "capacity-tib", d.capacityTiB()),
        dbl(o, "repair-fraction", d.repairFraction()), dbl(o, "detect-minutes", d.detectMinutes()),
        dbl(o, "mttf-years", d.mttfYears()), dbl(o, "bandwidth-gbps", d.bandwidthGbps()));
  }

  static double dbl(Options o, String name, double dflt) {
    String v = o.get(name, null);
    if (v == null) {
      return dflt;
    }
    try {
      return Double.parseDouble(v);
    } catch (NumberFormatException e) {
      throw new Options.UsageException("--" + name + " needs a number, got '" + v + "'");
    }
  }

  private int placement(Options o) {
    org.wideec.coder.CodeNames.Named named = o.code();
    LinearCode code = named.code();
    String placement = o.get("placement", "cl");
    if (o.has("t") && !placement.equals("unilrc")) {
      throw new Options.UsageException("--t (local groups per rack) applies to --placement unilrc only, not " + placement);
    }
    long groupsPerRack = o.getLong("t", 1);
    if (groupsPerRack < 1 || groupsPerRack > code.n()) {
      throw new Options.UsageException("--t must lie in 1.." + code.n() + ", got " + groupsPerRack);
    }
    PlacementPlan plan = plan(o, code, PlacementPlanner.byName(placement, (int) groupsPerRack));
    PlacementCosts costs = PlacementCosts.of(plan);
    int f = PlacementPlanner.tolerance(code);
    Mttdl m = mttdl(o);
    // C = cross-rack traffic + delta * inner-rack traffic (UniLRC §5); ECWide's model is delta = 0.
    double delta = dbl(o, "inner-rack-weight", 0);
    double c = costs.carc() + delta * (costs.arc() - costs.carc());
    Double years = c > 0 ? m.years(code.n(), f, c) : null;
    Map<String, Object> j = summary(code, plan, costs, f, years, m);
    if (o.has("json")) {
      CodesCommand.names(named, j);
    } else {
      CodesCommand.names(named).forEach(j::put);
    }
    j.put("repairTrafficC", c);
    if (years == null) {
      j.put("mttdlNote", "no cross-rack repair traffic: pass --inner-rack-weight (e.g. 0.1) to weigh inner-rack traffic");
    }
    if (o.has("json")) {
      List<Map<String, Object>> units = new ArrayList<>();
      for (int u = 0; u < code.n(); u++) {
        Map<String, Object> um = new LinkedHashMap<>();
        um.put("unit", u);
        um.put("role", code.role(u).name().toLowerCase(Locale.ROOT));
        um.put("rack", plan.rackOf(u));
        um.put("repairCost", costs.repairCost()[u]);
        um.put("crossRackCost", costs.crossRackCost()[u]);
        units.add(um);
      }
      j.put("units", units);
      out.println(Json.write(j));
      return 0;
    }
    Table t = new Table();
    j.forEach(t::row);
    t.print(out);
    out.println();
    Table units = new Table().row("UNIT", "ROLE", "RACK", "REPAIR", "CROSS-RACK");
    for (int u = 0; u < code.n(); u++) {
      units.row(u, code.role(u).name().toLowerCase(Locale.ROOT), plan.rackOf(u), costs.repairCost()[u], costs.crossRackCost()[u]);
    }
    units.print(out);
    return 0;
  }

  /** The planner's plan of the code, over {@code --racks} uniform racks when given. */
  private static PlacementPlan plan(Options o, LinearCode code, PlacementPlanner planner) {
    if (!o.has("racks")) {
      return planner.plan(code);
    }
    long racks = o.getLong("racks", 0);
    if (racks < 1 || racks > MAX_RACKS) {
      throw new Options.UsageException("--racks must lie in 1.." + MAX_RACKS + ", got " + racks);
    }
    // A stripe uses at most one rack per unit: more racks than units change nothing.
    return planner.plan(code, Topology.uniform((int) Math.min(racks, code.n()), code.n()));
  }

  static Map<String, Object> summary(LinearCode code, PlacementPlan plan, PlacementCosts costs, int f, Double years, Mttdl m) {
    Map<String, Object> j = new LinkedHashMap<>();
    j.put("spec", code.spec());
    j.put("placement", plan.scheme());
    j.put("n", code.n());
    j.put("k", code.k());
    j.put("redundancy", code.redundancy());
    j.put("faultsTolerated", f);
    j.put("racks", plan.racks());
    j.put("unitsPerRack", plan.unitsPerRack());
    j.put("adrc", costs.adrc());
    j.put("cdrc", costs.cdrc());
    j.put("arc", costs.arc());
    j.put("carc", costs.carc());
    j.put("lbnr", costs.lbnr());
    j.put("mttdlYears", years);
    Map<String, Object> params = new LinkedHashMap<>();
    params.put("nodes", m.nodes());
    params.put("capacityTiB", m.capacityTiB());
    params.put("repairFraction", m.repairFraction());
    params.put("detectMinutes", m.detectMinutes());
    params.put("mttfYears", m.mttfYears());
    params.put("bandwidthGbps", m.bandwidthGbps());
    j.put("mttdlParameters", params);
    return j;
  }

  private int combinedLocality(Options o) {
    int k = (int) o.getLong("k", -1);
    int f = (int) o.getLong("f", -1);
    double gamma = dbl(o, "gamma", Double.NaN);
    if (k < 0 || f < 0 || Double.isNaN(gamma)) {
      throw new Options.UsageException("analyze cl needs --k, --f and --gamma");
    }
    CombinedLocalityDesign d = CombinedLocalityDesign.derive(k, f, gamma);
    Mttdl m = mttdl(o);
    double years = m.years(d.n(), f, Math.max(d.costs().carc(), 1e-9));
    Map<String, Object> j = new LinkedHashMap<>();
    j.put("k", k);
    j.put("f", f);
    j.put("gamma", gamma);
    j.put("rMin", LocalityTradeoff.rMin(k, f, gamma));
    j.put("r", d.r());
    j.put("n", d.n());
    j.put("z", d.z());
    j.put("redundancy", d.redundancy());
    j.put("spec", d.code().spec());
    j.put("label", "(" + d.n() + "," + k + "," + d.r() + "," + d.z() + ") CL");
    j.put("unitsPerRack", d.plan().unitsPerRack());
    j.put("dataCrossRack", LocalityTradeoff.combinedLocality(k, f, d.r()).crossRack());
    j.put("c", d.costs().carc());
    j.put("mttdlYears", years);
    if (o.has("json")) {
      out.println(Json.write(j));
      return 0;
    }
    Table t = new Table();
    j.forEach(t::row);
    t.print(out);
    return 0;
  }

  /** The chart file, checked before any work: its directory exists and can be written, its type is known. */
  private static File writableChart(String name) {
    File f = new File(name).getAbsoluteFile();
    String lower = name.toLowerCase(Locale.ROOT);
    if (!lower.endsWith(".png") && !lower.endsWith(".svg")) {
      throw new Options.UsageException("--plot writes .png or .svg files, not " + name);
    }
    File dir = f.getParentFile();
    if (dir == null || !dir.isDirectory()) {
      throw new IllegalArgumentException("cannot write the chart to " + name + ": directory " + dir + " does not exist");
    }
    if (!dir.canWrite() || (f.exists() && !f.canWrite())) {
      throw new IllegalArgumentException("cannot write the chart to " + name + ": permission denied");
    }
    return f;
  }

  private int sweep(Options o) throws Exception {
    int k = (int) o.getLong("k", -1);
    double gamma = dbl(o, "gamma", Double.NaN);
    String fs = o.require("f");
    if (k < 0 || Double.isNaN(gamma)) {
      throw new Options.UsageException("analyze sweep needs --k, --f and --gamma");
    }
    File plot = o.has("plot") ? writableChart(o.get("plot", null)) : null;
    Map<Integer, List<LocalityTradeoff.Point>> byF = new LinkedHashMap<>();
    for (String f : fs.split(",")) {
      int fv;
      try {
        fv = Integer.parseInt(f.trim());
      } catch (NumberFormatException e) {
        throw new Options.UsageException("--f takes integers separated by commas, got '" + fs + "'");
      }
      byF.put(fv, LocalityTradeoff.sweep(k, fv, gamma));
    }
    if (plot != null) {
      TradeoffChart.write(k, gamma, byF, plot);
    }
    List<LocalityTradeoff.Point> all = new ArrayList<>();
    byF.values().forEach(all::addAll);
    if (o.has("json")) {
      Map<String, Object> j = new LinkedHashMap<>();
      j.put("k", k);
      j.put("gamma", gamma);
      j.put("points", all);
      out.println(Json.write(j));
      return 0;
    }
    Table t = new Table().row("SCHEME", "F", "POINT", "REDUNDANCY", "CROSS-RACK");
    for (LocalityTradeoff.Point p : all) {
      t.row(p.scheme(), p.f(), p.label(), String.format(Locale.ROOT, "%.4f", p.redundancy()),
          String.format(Locale.ROOT, "%.0f", p.crossRack()));
    }
    t.print(out);
    if (o.has("plot")) {
      out.println("chart written to " + o.get("plot", null));
    }
    return 0;
  }
}
