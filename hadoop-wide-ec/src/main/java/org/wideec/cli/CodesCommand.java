package org.wideec.cli;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.wideec.analysis.CodeMetrics;
import org.wideec.code.CodeFamily;
import org.wideec.code.CodeFormat;
import org.wideec.code.Codes;
import org.wideec.code.ErasurePatterns;
import org.wideec.code.LinearCode;
import org.wideec.code.LocalGroup;
import org.wideec.code.MinimumDistance;
import org.wideec.code.StockStripedReader;
import org.wideec.coder.CodeNames;
import org.wideec.coder.StripedCodec;

/** {@code wide-ec codes list|describe|verify}: what the code library offers and what each code can do. */
final class CodesCommand {
  /** Largest exhaustive count verify runs without --samples. */
  static final long MAX_EXHAUSTIVE = 2_000_000_000L;

  private final PrintStream out;
  private final PrintStream err;

  CodesCommand(PrintStream out, PrintStream err) {
    this.out = out;
    this.err = err;
  }

  int run(String[] args) {
    Options o = new Options(args, Set.of("code", "failures", "samples", "seed", "k", "m", "cell"), Set.of("json"));
    String verb = o.positional().isEmpty() ? "" : o.positional().get(0);
    return switch (verb) {
      case "list" -> list(o);
      case "describe" -> describe(o);
      case "verify" -> verify(o);
      default -> throw new Options.UsageException("codes needs one of: list, describe, verify");
    };
  }

  private int list(Options o) {
    if (o.has("json")) {
      List<Map<String, Object>> families = new ArrayList<>();
      for (CodeFamily f : CodeFamily.values()) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("family", f.familyName());
        m.put("syntax", f.syntax());
        m.put("description", f.description());
        families.add(m);
      }
      Map<String, Object> all = new LinkedHashMap<>();
      all.put("families", families);
      all.put("hadoopCodecs", StripedCodec.names());
      all.put("formatVersion", CodeFormat.FORMAT_VERSION);
      out.println(Json.write(all));
      return 0;
    }
    Table t = new Table().row("FAMILY", "SPEC", "DESCRIPTION");
    for (CodeFamily f : CodeFamily.values()) {
      t.row(f.familyName(), f.syntax(), f.description());
    }
    t.print(out);
    out.println();
    out.println("Hadoop codecs (hdfs ec -addPolicies, n <= 16): " + String.join(", ", StripedCodec.names()));
    out.println("On-disk format " + CodeFormat.FORMAT_VERSION + ": " + CodeFormat.pinnedSpecs().size()
        + " codes with pinned coefficients (codes describe says whether a spec is one)");
    return 0;
  }

  private int describe(Options o) {
    CodeNames.Named named = o.code();
    LinearCode c = named.code();
    // The two slow analyses of a wide code, computed (and cached by the code) with progress on stderr.
    ProgressReport plans = new ProgressReport(err, "describe " + c.spec() + ": repair plans (units)");
    c.repairPlans(plans);
    plans.finish();
    ProgressReport distance = new ProgressReport(err, "describe " + c.spec() + ": minimum distance (patterns of one size)");
    c.minimumDistance(distance);
    distance.finish();
    CodeMetrics m = CodeMetrics.of(c);
    if (o.has("json")) {
      describeJson(named, m);
    } else {
      describeTable(named, m);
    }
    return 0;
  }

  private void describeJson(CodeNames.Named named, CodeMetrics m) {
    LinearCode c = named.code();
    MinimumDistance d = m.distance();
    Map<String, Object> j = new LinkedHashMap<>();
    j.put("spec", c.spec());
    names(named, j);
    j.put("n", c.n());
    j.put("k", c.k());
    j.put("systematic", c.isSystematic());
    j.put("redundancy", m.redundancy());
    List<String> roles = new ArrayList<>();
    for (int u = 0; u < c.n(); u++) {
      roles.add(c.role(u).name().toLowerCase(java.util.Locale.ROOT));
    }
    j.put("roles", roles);
    List<Map<String, Object>> groups = new ArrayList<>();
    for (LocalGroup g : c.localGroups()) {
      Map<String, Object> gm = new LinkedHashMap<>();
      gm.put("index", g.index());
      gm.put("members", g.members());
      gm.put("localParity", g.localParity());
      gm.put("xor", g.xor());
      groups.add(gm);
    }
    j.put("localGroups", groups);
    j.put("minimumDistance", d.value());
    j.put("minimumDistanceExact", d.exact());
    j.put("minimumDistanceUpperBound", d.upperBound());
    j.put("faultsTolerated", d.faultsTolerated());
    j.put("faultsToleratedExact", d.exact());
    j.put("faultsToleratedAtMost", d.upperBound() - 1);
    j.put("stockReaderTolerance", stockReaderTolerance(c));
    j.put("arc", m.arc());
    j.put("adrc", m.adrc());
    j.put("repairCost", m.repairCost());
    j.put("pinned", c.pinned());
    j.put("formatVersion", c.pinned() ? c.formatVersion() : null);
    j.put("notes", c.notes());
    out.println(Json.write(j));
  }

  private void describeTable(CodeNames.Named named, CodeMetrics m) {
    LinearCode c = named.code();
    MinimumDistance d = m.distance();
    Table t = new Table();
    t.row("code", c.spec());
    names(named).forEach(t::row);
    t.row("n, k", c.n() + ", " + c.k() + (c.isSystematic() ? " (systematic)" : " (non-systematic)"));
    t.row("redundancy", String.format("%.4fx", m.redundancy()));
    t.row("units", roleSummary(c));
    for (LocalGroup g : c.localGroups()) {
      t.row("local group " + g.index(), java.util.Arrays.toString(g.members()) + (g.xor() ? " XOR" : " weighted"));
    }
    t.row("minimum distance", d.exact() ? d.value() + " (exact)"
        : d.lowerBound() + ".." + d.upperBound() + " (proven bounds; " + d.sampledPatterns() + " patterns sampled)");
    t.row("faults tolerated", d.exact() ? "any " + d.faultsTolerated() + " lost units"
        : "at least " + d.faultsTolerated() + " lost units (proven), at most " + (d.upperBound() - 1)
            + "; exact value not computed");
    Integer stock = stockReaderTolerance(c);
    if (stock != null) {
      t.row("HDFS stock reader", "reads through any " + stock + " lost units (lowest-index parities; DESIGN.md §2)");
    }
    t.row("ARC (all units)", String.format("%.2f", m.arc()));
    t.row("ADRC (data units)", m.adrc() == null ? "n/a" : String.format("%.2f", m.adrc()));
    t.row("repair cost", java.util.Arrays.toString(m.repairCost()));
    t.row("on-disk format", c.pinned() ? c.formatVersion() + " (pinned coefficients; may store data)"
        : "not pinned (coefficients computed here; analysis only, never stores data)");
    t.row("notes", c.notes());
    t.print(out);
  }

  /** The code's other names, as rows (human output) or JSON fields. */
  static Map<String, Object> names(CodeNames.Named n) {
    Map<String, Object> rows = new LinkedHashMap<>();
    if (n.striped()) {
      rows.put("HDFS codec", n.codec() + " (k=" + n.k() + ", m=" + n.m() + ")");
      rows.put("HDFS policy", n.policy());
    } else {
      rows.put("HDFS striping", "no: " + n.stripedNote());
    }
    return rows;
  }

  static void names(CodeNames.Named n, Map<String, Object> json) {
    json.put("codec", n.codec());
    json.put("hdfsK", n.k());
    json.put("hdfsM", n.m());
    json.put("policy", n.policy());
    json.put("stripedNote", n.stripedNote());
  }

  private static String roleSummary(LinearCode c) {
    StringBuilder sb = new StringBuilder();
    for (int u = 0; u < c.n(); u++) {
      sb.append(u == 0 ? "" : " ").append(c.role(u).shortName()).append(u);
    }
    return sb.toString();
  }

  private int verify(Options o) {
    LinearCode c = o.code().code();
    long f = o.getLong("failures", -1);
    if (f < 0 || f > c.n()) {
      throw new Options.UsageException("--failures must lie in 0.." + c.n() + " for " + c.spec());
    }
    int failures = (int) f;
    ErasurePatterns p = ErasurePatterns.of(c);
    java.math.BigInteger total = binomial(c.n(), failures);
    long examined;
    long decodable;
    boolean exhaustive = !o.has("samples");
    if (exhaustive) {
      if (total.compareTo(java.math.BigInteger.valueOf(MAX_EXHAUSTIVE)) > 0) {
        throw new Options.UsageException(c.spec() + ": " + total + " patterns of " + failures
            + " losses are too many to enumerate (about " + enumerationTime(p, failures, total) + "); pass --samples N");
      }
      examined = total.longValueExact();
      ProgressReport progress = new ProgressReport(err, "verify " + c.spec() + " f=" + failures);
      decodable = p.countDecodable(failures, progress);
      progress.finish();
    } else {
      examined = o.getLong("samples", 0);
      if (examined <= 0) {
        throw new Options.UsageException("--samples must be positive");
      }
      ProgressReport progress = new ProgressReport(err, "verify " + c.spec() + " f=" + failures + " (sampled)");
      decodable = p.sampleDecodable(failures, examined, new Random(o.getLong("seed", 1)), progress);
      progress.finish();
    }
    if (o.has("json")) {
      Map<String, Object> j = new LinkedHashMap<>();
      j.put("spec", c.spec());
      j.put("failures", failures);
      j.put("exhaustive", exhaustive);
      j.put("totalPatterns", total);
      j.put("examined", examined);
      j.put("decodable", decodable);
      j.put("undecodable", examined - decodable);
      j.put("decodableFraction", examined == 0 ? 1.0 : (double) decodable / examined);
      out.println(Json.write(j));
      return 0;
    }
    new Table()
        .row("code", c.spec())
        .row("failures", failures)
        .row("patterns", (exhaustive ? "all " : examined + " random of ") + total)
        .row("decodable", decodable + String.format(" (%.6f%%)", examined == 0 ? 100.0 : 100.0 * decodable / examined))
        .row("undecodable", examined - decodable)
        .print(out);
    return 0;
  }

  /** How long enumerating would take here, from the rate of a short sample (checking a pattern costs about the same). */
  private static String enumerationTime(ErasurePatterns p, int failures, java.math.BigInteger total) {
    long start = System.nanoTime();
    long n = 0;
    Random r = new Random(1);
    while (System.nanoTime() - start < 200_000_000L) {
      p.sampleDecodable(failures, 1000, r);
      n += 1000;
    }
    java.math.BigInteger nanos = total.multiply(java.math.BigInteger.valueOf(System.nanoTime() - start))
        .divide(java.math.BigInteger.valueOf(n));
    java.math.BigInteger years = nanos.divide(java.math.BigInteger.valueOf(365L * 24 * 3600 * 1_000_000_000L));
    return years.signum() > 0 ? years + " years" : ProgressReport.duration(nanos.longValue());
  }

  /** C(n, r), exactly: counts of patterns of a 255-unit stripe do not fit a long. */
  static java.math.BigInteger binomial(int n, int r) {
    if (r < 0 || r > n) {
      return java.math.BigInteger.ZERO;
    }
    java.math.BigInteger b = java.math.BigInteger.ONE;
    for (int i = 1; i <= r; i++) {
      b = b.multiply(java.math.BigInteger.valueOf(n - r + i)).divide(java.math.BigInteger.valueOf(i));
    }
    return b;
  }

  /** Losses a stock HDFS client reads through, for codes that fit a striped block group; else null. */
  private static Integer stockReaderTolerance(LinearCode c) {
    return c.isSystematic() && c.n() <= StripedCodec.MAX_STRIPED_UNITS ? StockStripedReader.tolerance(c) : null;
  }
}
