package org.wideec.code;

import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.wideec.coder.StripedCodec;

/**
 * Development-time generator of the on-disk format (never run on a cluster): builds every code that may
 * store data by its construction (searches included), and writes the pinned coefficient table and the
 * golden vectors. Run by {@code dev-support/generate-format.sh}.
 *
 * <p>It refuses to change or drop a code the existing table of this format version pins: new coefficients
 * for a spec need a new {@link CodeFormat#FORMAT_VERSION} (or a new codec name). Adding codes is allowed.
 * {@code --check} rebuilds everything and only reports whether the checked-in files are what the
 * constructions produce.
 */
public final class FormatGenerator {
  /**
   * Wide and archival specs offered for storage beyond HDFS's striped codecs. Every RapidRAID with
   * k < n <= 2k, n <= 16 is added by {@link #specs()}.
   */
  static final List<String> CATALOGUE = List.of(
      "azure-lrc:k=128,r=27,g=3", "azure-lrc:k=96,r=24,g=4", "azure-lrc:k=64,l=4,g=4", "azure-lrc+1:k=64,l=4,g=3",
      "rs:k=64,m=4", "rs:k=128,m=4", "uniform-cauchy-lrc:k=120,l=6,g=4", "optimal-cauchy-lrc:k=96,l=4,g=4",
      "unilrc:alpha=1,z=6", "unilrc:alpha=2,z=6", "rapidraid:n=32,k=24", "rapidraid:n=24,k=16");

  /** Codes with full golden vectors: the shipped policies (conf/wide-ec-policies.xml) and every family. */
  static final Map<String, String> GOLDEN = goldenSpecs();

  private static Map<String, String> goldenSpecs() {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("azure-lrc:k=12,l=2,g=2", "policy AZURE-LRC-L2-12-4-1024k");
    m.put("azure-lrc:k=6,l=2,g=2", "policy AZURE-LRC-L2-6-4-1024k");
    m.put("azure-lrc+1:k=10,l=2,g=2", "policy AZURE-LRC1-L2-10-5-1024k");
    m.put("unilrc:alpha=1,z=3", "policy UNILRC-6-6-1024k");
    m.put("uniform-cauchy-lrc:k=10,l=2,g=2", "policy UNIFORM-CAUCHY-LRC-L2-10-4-1024k");
    m.put("rs:k=10,m=4", "policy WIDE-RS-10-4-1024k");
    m.put("rs:k=6,m=3", "family rs (wide-rs 6+3)");
    m.put("optimal-cauchy-lrc:k=12,l=2,g=2", "family optimal-cauchy-lrc (optimal-cauchy-lrc-l2 12+4)");
    m.put("azure-lrc:k=64,l=4,g=4", "family azure-lrc, wide (searched, sampled MR)");
    m.put("rapidraid:n=8,k=4", "family rapidraid (one natural dependency)");
    m.put("rapidraid:n=16,k=11", "family rapidraid, n = 16");
    return m;
  }

  private FormatGenerator() {}

  /** Every spec the format pins: each striped codec's (k, m) with k + m <= 16 that builds, then the catalogue. */
  static Set<String> specs() {
    Set<String> out = new LinkedHashSet<>();
    for (StripedCodec codec : StripedCodec.values()) {
      for (int k = 1; k < StripedCodec.MAX_STRIPED_UNITS; k++) {
        for (int m = 1; k + m <= StripedCodec.MAX_STRIPED_UNITS; m++) {
          try {
            out.add(codec.specFor(k, m));
          } catch (InvalidCodeSpecException e) {
            // no code for this (k, m): HDFS cannot use it either, specFor says why
          }
        }
      }
    }
    for (int n = 2; n <= StripedCodec.MAX_STRIPED_UNITS; n++) {
      for (int k = (n + 1) / 2; k < n; k++) {
        out.add("rapidraid:n=" + n + ",k=" + k);
      }
    }
    out.addAll(CATALOGUE);
    return out;
  }

  public static void main(String[] args) throws IOException {
    if (args.length < 1) {
      System.err.println("usage: FormatGenerator MODULE_DIR [--check]");
      System.exit(2);
    }
    Path module = Path.of(args[0]);
    boolean check = args.length > 1 && args[1].equals("--check");
    Path table = module.resolve("src/main/resources/org/wideec/code/" + CodeFormat.RESOURCE);
    Path golden = module.resolve("src/test/resources" + GoldenVectors.DIR);

    // Every spec must build: StripedCodec.specFor promises a code for each (k, m) it accepts.
    Map<String, PinnedCode> built = new LinkedHashMap<>();
    for (String spec : specs()) {
      long t0 = System.nanoTime();
      LinearCode code = Codes.construct(spec);
      built.put(code.spec(), PinnedCode.of(code));
      System.err.printf("%-40s %8.2f s%n", code.spec(), (System.nanoTime() - t0) / 1e9);
    }
    List<String> problems = compareWithExisting(table, built);
    if (check) {
      problems.addAll(compareFile(golden.resolve(GoldenVectors.HASHES), hashesText(built)));
      problems.addAll(compareFile(golden.resolve(GoldenVectors.VECTORS), vectorsText(built)));
      problems.forEach(p -> System.err.println("MISMATCH " + p));
      System.err.println(problems.isEmpty() ? "format " + CodeFormat.FORMAT_VERSION + ": checked-in files match" : "");
      System.exit(problems.isEmpty() ? 0 : 1);
    }
    if (!problems.isEmpty()) {
      problems.forEach(p -> System.err.println("REFUSED " + p));
      System.err.println("format " + CodeFormat.FORMAT_VERSION + " is fixed: raise CodeFormat.FORMAT_VERSION for new coefficients");
      System.exit(1);
    }
    List<String> comment = List.of(
        "On-disk format " + CodeFormat.FORMAT_VERSION + ": pinned generator coefficients. Generated by",
        "dev-support/generate-format.sh (org.wideec.code.FormatGenerator); do not edit. A spec here always means",
        "these bytes; new coefficients need a new format version or codec name (docs/codes.md, On-disk format).",
        "Line: spec TAB n TAB k TAB guaranteed tolerance (-1: unknown) TAB rows TAB notes. Rows are hex, k bytes",
        "each, comma-separated: the n-k parity rows (units k..n-1) of a systematic code, else all n rows.");
    Files.createDirectories(table.getParent());
    try (Writer w = Files.newBufferedWriter(table, StandardCharsets.UTF_8)) {
      CodeFormat.write(w, comment, built.values());
    }
    Files.createDirectories(golden);
    Files.writeString(golden.resolve(GoldenVectors.HASHES), hashesText(built), StandardCharsets.UTF_8);
    Files.writeString(golden.resolve(GoldenVectors.VECTORS), vectorsText(built), StandardCharsets.UTF_8);
    System.err.println("wrote " + built.size() + " codes to " + table + " and golden vectors to " + golden);
  }

  /** What differs from the table already checked in for this version: changed or dropped codes. */
  private static List<String> compareWithExisting(Path table, Map<String, PinnedCode> built) throws IOException {
    List<String> problems = new ArrayList<>();
    if (!Files.exists(table)) {
      return problems;
    }
    Map<String, PinnedCode> existing;
    try (Reader r = Files.newBufferedReader(table, StandardCharsets.UTF_8)) {
      existing = CodeFormat.read(r, table.toString());
    }
    for (PinnedCode old : existing.values()) {
      PinnedCode now = built.get(old.spec());
      if (now == null) {
        problems.add(old.spec() + " is pinned but no longer generated (stored data would become unreadable)");
      } else if (!now.generator().equals(old.generator())) {
        problems.add(old.spec() + ": the construction now yields other coefficients than the pinned ones");
      }
    }
    return problems;
  }

  private static List<String> compareFile(Path file, String expected) throws IOException {
    String actual = Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "";
    return actual.equals(expected) ? new ArrayList<>() : new ArrayList<>(List.of(file + " differs"));
  }

  private static String hashesText(Map<String, PinnedCode> built) {
    StringBuilder sb = new StringBuilder("# Format " + CodeFormat.FORMAT_VERSION + " golden hashes (FormatGenerator):"
        + " spec TAB sha256(generator, n*k bytes row-major) TAB sha256(codeword of GoldenData's fixed data,"
        + " n units of " + GoldenData.UNIT_BYTES + " bytes).\n");
    for (PinnedCode c : built.values()) {
      GoldenVectors.Hashes h = GoldenVectors.hashesOf(c.spec(), c.generator(), GoldenData.codeword(c.generator()));
      sb.append(h.spec()).append('\t').append(h.generatorSha256()).append('\t').append(h.codewordSha256()).append('\n');
    }
    return sb.toString();
  }

  private static String vectorsText(Map<String, PinnedCode> built) {
    StringBuilder sb = new StringBuilder("# Format " + CodeFormat.FORMAT_VERSION + " golden vectors (FormatGenerator):"
        + " code TAB spec TAB why; g TAB generator row (n lines); u TAB codeword unit of GoldenData's fixed data"
        + " (n lines).\n");
    for (Map.Entry<String, String> e : GOLDEN.entrySet()) {
      PinnedCode c = built.get(e.getKey());
      if (c == null) {
        throw new IllegalStateException(e.getKey() + " has golden vectors but is not pinned");
      }
      org.wideec.gf.Matrix g = c.generator();
      sb.append("code\t").append(c.spec()).append('\t').append(e.getValue()).append('\n');
      for (int u = 0; u < g.rows(); u++) {
        byte[] row = new byte[g.cols()];
        for (int i = 0; i < row.length; i++) {
          row[i] = (byte) g.get(u, i);
        }
        sb.append("g\t").append(GoldenData.hex(row)).append('\n');
      }
      for (byte[] unit : GoldenData.codeword(g)) {
        sb.append("u\t").append(GoldenData.hex(unit)).append('\n');
      }
    }
    return sb.toString();
  }
}
