package org.wideec.cluster;

import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.util.StringUtils.TraditionalBinaryPrefix;
import org.wideec.cli.Json;
import org.wideec.cli.Options;

/**
 * {@code wide-ec bench cluster [--json]}: stock RS policies (HDFS's placement and reconstructor) against our LRC
 * policies (our placement and worker) on the real-process cluster of dev-support/cluster.sh, under the kernel's
 * shaping; then archival of a replicated directory by our encoders against DistCp into a stock RS directory; then the
 * decommission of a DataNode the operator's way, stock RS against our Azure-LRC ({@link DecommissionComparison};
 * {@code --decommission} runs it alone, {@code --no-decommission} leaves it out); last, file churn in archived
 * directories through {@code wide-ec rm|replace|archive --fill} per update scheme ({@link UpdateComparison};
 * {@code --updates} runs it alone, {@code --no-updates} leaves it out; with {@code --decommission}, the two). Run in
 * the cluster's client namespace ({@code cluster.sh client}); from outside it, {@link ClusterBenchLauncher} brings a
 * cluster up, runs this inside, and takes it down. {@code --faults} runs {@link FaultDrills} instead.
 * The last line is one JSON object with the measurements and the ratios.
 */
public final class ClusterBench {
  static final Set<String> VALUED = Set.of("workloads", "data", "file-size", "read-samples", "foreground-seconds",
      "archive-data", "archive-code", "archive-placement", "archive-grouping", "rapidraid-code", "distcp-policy", "maps",
      "timeout", "cluster-script", "decommission-data", "decommission-policies", "update-codes", "update-schemes",
      "update-sweep-schemes", "update-file-size", "victim-units",
      // cluster.sh up's options, for the launcher
      "nodes", "racks", "node-rate", "mtu", "jit", "oversubscription", "uplink-rate", "shaping", "cross-rack-rate", "block-size",
      "dn-heap", "dir", "tarball");
  static final Set<String> SWITCHES = Set.of("json", "faults", "no-archive", "decommission", "no-decommission",
      "updates", "no-updates");
  static final String DEFAULT_WORKLOADS = "RS-6-3-1024k,RS-10-4-1024k,AZURE-LRC-L2-12-4-1024k,UNILRC-6-6-1024k";

  private ClusterBench() {}

  public static int run(Configuration conf, String[] args, PrintStream out) throws Exception {
    Options o = new Options(args, VALUED, SWITCHES);
    // Checked before a cluster is brought up, with the size the launcher would give it.
    workloadSettings(o);
    decommissionSettings(o, (int) o.getLong("nodes", 24));
    updateSettings(o, (int) o.getLong("nodes", 24), bytes(o, "block-size", "8m"));
    if (System.getenv("WIDE_EC_CLUSTER_DIR") == null) {
      return ClusterBenchLauncher.run(o, args);
    }
    ClusterScript cluster = ClusterScript.fromEnvironment(o.has("cluster-script") ? o.get("cluster-script", "") : null);
    long timeoutMs = o.getLong("timeout", 600) * 1000;
    try (ClusterBed bed = new ClusterBed(conf, cluster, System.err, timeoutMs)) {
      Map<String, Object> result = o.has("faults") ? new FaultDrills(bed, faultSettings(o, bed)).run()
          : o.has("decommission") || o.has("updates") ? only(o, bed) : bench(o, bed);
      if (!o.has("json")) {
        out.println(summary(result));
      }
      out.println(Json.write(result));
      return ((Number) result.get("bytesLost")).longValue() == 0 && !result.containsKey("archiveFailed")
          && !result.containsKey("decommissionFailed") && !result.containsKey("updatesFailed") ? 0 : 1;
    }
  }

  private static Map<String, Object> bench(Options o, ClusterBed bed) throws Exception {
    int nodes = bed.liveDataNodes();
    ArchivalComparison.Settings archiving = o.has("no-archive") ? null : archiveSettings(o, nodes, bed.blockBytes());
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("dataNodes", nodes);
    r.put("cluster", bed.cluster.run("status").lines().findFirst().orElse(""));
    StripedWorkload.Settings ws = workloadSettings(o);
    r.put("victimUnits", ws.victimUnits());
    Map<String, Object> workloads = new LinkedHashMap<>();
    long lost = 0;
    for (String name : o.get("workloads", DEFAULT_WORKLOADS).split(",")) {
      if (name.isBlank()) {
        continue; // --workloads= : none, the archival comparison (and what else is asked) alone
      }
      var policy = bed.policy(name.trim());
      int width = policy.getNumDataUnits() + policy.getNumParityUnits();
      if (width > nodes - 1) { // a lost DataNode's units are rebuilt on distinct survivors
        workloads.put(policy.getName(), Map.of("skipped", width + " units per group need " + (width + 1)
            + " DataNodes to rebuild a lost one, the cluster has " + nodes));
        continue;
      }
      Map<String, Object> w = new StripedWorkload(bed, policy, ws).run();
      lost += ((Number) w.get("bytesLost")).longValue();
      workloads.put(policy.getName(), w);
    }
    r.put("workloads", workloads);
    Map<String, Object> archive = null;
    if (!o.has("no-archive")) {
      try {
        archive = new ArchivalComparison(bed, archiving).run();
        lost += ((Number) archive.get("bytesLost")).longValue();
        r.put("archive", archive);
      } catch (IOException e) {
        // The striped workloads' measurements stand on their own: the run still prints them, and fails.
        bed.log.println("cluster bench: archival comparison failed: " + e.getMessage());
        r.put("archiveFailed", e.getMessage());
      }
    }
    StripedRatios.put(r, workloads);
    archiveRatios(r, archive);
    if (!o.has("no-decommission")) {
      try {
        lost += decommission(o, bed, r);
      } catch (IOException e) {
        // As with the archival comparison: what ran before stands, and the run fails.
        bed.log.println("cluster bench: decommission comparison failed: " + e.getMessage());
        r.put("decommissionFailed", e.getMessage());
      }
    }
    if (!o.has("no-updates")) {
      lost += updates(o, bed, r);
    }
    r.put("bytesLost", lost);
    return invalid(r, bed);
  }

  /** {@code --decommission} and / or {@code --updates}: those comparisons alone. */
  private static Map<String, Object> only(Options o, ClusterBed bed) throws Exception {
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("dataNodes", bed.liveDataNodes());
    r.put("cluster", bed.cluster.run("status").lines().findFirst().orElse(""));
    long lost = o.has("decommission") ? decommission(o, bed, r) : 0;
    r.put("bytesLost", lost + (o.has("updates") ? updates(o, bed, r) : 0));
    return invalid(r, bed);
  }

  /**
   * Runs the update comparison into {@code r} (its figures under {@code updates}, its three ratios at the top level);
   * bytes lost. A failure is recorded as updatesFailed: what ran before stands, and the run fails.
   */
  private static long updates(Options o, ClusterBed bed, Map<String, Object> r) throws Exception {
    try {
      Map<String, Object> u = new UpdateComparison(bed, updateSettings(o, bed.liveDataNodes(), bed.blockBytes())).run();
      r.put("updates", u);
      for (String k : List.of("baselineOverRackcuTraffic", "cauOverRackcuTraffic", "rackcuOverBaselineThroughput")) {
        r.put(k, u.get(k));
      }
      return ((Number) u.get("bytesLost")).longValue();
    } catch (IOException e) {
      bed.log.println("cluster bench: update comparison failed: " + e.getMessage());
      r.put("updatesFailed", e.getMessage());
      return 0;
    }
  }

  /** Runs the decommission comparison into {@code r} (its figures, its two ratios at the top level); bytes lost. */
  private static long decommission(Options o, ClusterBed bed, Map<String, Object> r) throws Exception {
    Map<String, Object> d = new DecommissionComparison(bed, decommissionSettings(o, bed.liveDataNodes())).run();
    r.put("decommission", d);
    r.put("decommissionStockOverOurs", d.get("decommissionStockOverOurs"));
    r.put("decommissionGlobalOverLocal", d.get("decommissionGlobalOverLocal"));
    return ((Number) d.get("bytesLost")).longValue();
  }

  private static Map<String, Object> invalid(Map<String, Object> r, ClusterBed bed) {
    r.put("invalidPhases", new ArrayList<>(bed.invalid));
    if (!bed.invalid.isEmpty()) {
      bed.log.println("cluster bench: INVALID phases (host CPU above " + (int) (HostCpu.LIMIT * 100) + "%: they measured"
          + " the CPU, not the network): " + bed.invalid);
    }
    return r;
  }

  /**
   * The decommission's data and policies: RS-10-4 against Azure-LRC 12+2+2 where the cluster has a DataNode beyond
   * each group's width to take the leaving node's units, else RS-6-3 against Azure-LRC 6+2+2.
   */
  static DecommissionComparison.Settings decommissionSettings(Options o, int nodes) {
    if (o.has("decommission") && o.has("no-decommission")) {
      throw new Options.UsageException("--decommission runs the decommission alone, --no-decommission leaves it out:"
          + " give one");
    }
    if (o.has("decommission") && o.has("faults")) {
      throw new Options.UsageException("--decommission and --faults are separate runs: give one");
    }
    String dflt = nodes >= 17 ? "RS-10-4-1024k,AZURE-LRC-L2-12-4-1024k" : "RS-6-3-1024k,AZURE-LRC-L2-6-4-1024k";
    String[] p = o.get("decommission-policies", dflt).split(",");
    if (p.length != 2 || p[0].isBlank() || p[1].isBlank()) {
      throw new Options.UsageException("--decommission-policies takes two policies, a stock RS one then one of ours"
          + " (like " + dflt + "), got '" + o.get("decommission-policies", dflt) + "'");
    }
    return new DecommissionComparison.Settings(bytes(o, "decommission-data", "2g"), bytes(o, "file-size", "64m"),
        p[0].trim(), p[1].trim());
  }

  /**
   * The update churn's codes (an LRC and an RS code of the same k: 12 from 24 DataNodes, else 6; only pinned codes
   * store data), schemes (baseline, cau, rackcu), the schemes whose re-encode sweep runs (rackcu) and the size of
   * each file (one block: whole-block deltas).
   */
  static UpdateComparison.Settings updateSettings(Options o, int nodes, long blockBytes) {
    if (o.has("updates") && o.has("no-updates")) {
      throw new Options.UsageException("--updates runs the update comparison alone, --no-updates leaves it out: give"
          + " one");
    }
    if (o.has("updates") && o.has("faults")) {
      throw new Options.UsageException("--updates and --faults are separate runs: give one");
    }
    String dflt = nodes >= 24 ? "azure-lrc:k=12,l=2,g=2,rs:k=12,m=4" : "azure-lrc:k=6,l=2,g=2,rs:k=6,m=3";
    List<String> codes = List.of(o.get("update-codes", dflt).split(",(?=[a-z-]+:)"));
    for (String c : codes) {
      try {
        org.wideec.code.Codes.pinnedFromSpec(c);
      } catch (IllegalArgumentException e) {
        throw new Options.UsageException("--update-codes: " + e.getMessage());
      }
    }
    List<String> schemes = List.of(o.get("update-schemes", "baseline,cau,rackcu").split(","));
    List<String> sweep = List.of(o.get("update-sweep-schemes", "rackcu").split(","));
    for (String sc : schemes) {
      if (!List.of("baseline", "cau", "rackcu").contains(sc)) {
        throw new Options.UsageException("--update-schemes takes baseline, cau and rackcu, got '" + sc + "'");
      }
    }
    if (!schemes.containsAll(sweep)) {
      throw new Options.UsageException("--update-sweep-schemes " + sweep + " must be among --update-schemes " + schemes);
    }
    long file = o.has("update-file-size") ? bytes(o, "update-file-size", "") : blockBytes;
    if (file < 1 || file > blockBytes) {
      throw new Options.UsageException("--update-file-size must be 1 byte to one block (" + blockBytes + "), got "
          + file);
    }
    return new UpdateComparison.Settings(codes, schemes, sweep, file);
  }

  /**
   * The archival codes that fit the cluster, among those on-disk format 1 pins (only pinned codes store data):
   * 12+2+2 from 24 DataNodes, else 6+2+2. RapidRAID seals file by file, so its k is the blocks of one file (a codeword
   * of a file with fewer blocks than k is partly empty but stored whole), with n = 1.5 k where the cluster has the
   * nodes, else k + 2. Checked before anything runs, so a code that cannot store data fails the bench at once rather
   * than after the striped workloads.
   */
  static ArchivalComparison.Settings archiveSettings(Options o, int nodes, long blockBytes) {
    boolean wide = nodes >= 24;
    String code = o.get("archive-code", wide ? "azure-lrc:k=12,l=2,g=2" : "azure-lrc:k=6,l=2,g=2");
    int k = (int) Math.max(1, (bytes(o, "file-size", "64m") + blockBytes - 1) / blockBytes);
    int n = k + Math.max(2, wide ? (k + 1) / 2 : 2);
    String rapidRaid = o.get("rapidraid-code", "rapidraid:n=" + Math.min(n, nodes) + ",k=" + k);
    for (String spec : new String[] {code, rapidRaid}) {
      try {
        org.wideec.code.Codes.pinnedFromSpec(spec);
      } catch (IllegalArgumentException e) {
        throw new Options.UsageException("--archive-code / --rapidraid-code: " + e.getMessage()
            + (o.has("rapidraid-code") ? "" : " (RapidRAID's k is the blocks of one --file-size file: choose a file size"
            + " or give --rapidraid-code)"));
      }
    }
    return new ArchivalComparison.Settings(bytes(o, "archive-data", "512m"), bytes(o, "file-size", "64m"),
        code, rapidRaid,
        o.get("distcp-policy", nodes >= 14 ? "RS-10-4-1024k" : "RS-6-3-1024k"), (int) o.getLong("maps", 4),
        o.has("archive-placement") ? o.get("archive-placement", "") : null, o.get("archive-grouping", "auto"));
  }

  static FaultDrills.Settings faultSettings(Options o, ClusterBed bed) throws IOException {
    int nodes = bed.liveDataNodes();
    return new FaultDrills.Settings(bytes(o, "data", "64m"), bytes(o, "file-size", "16m"),
        o.get("workloads", nodes >= 16 ? "AZURE-LRC-L2-12-4-1024k" : "AZURE-LRC-L2-6-4-1024k").split(",")[0],
        archiveSettings(o, nodes, bed.blockBytes()));
  }

  /**
   * The striped workloads' sizes and counts; a node loss strikes the DataNode whose units' repairs read closest to what
   * --victim-units (8) units of the code read on average ({@link VictimChoice}): 1g of 8 MiB blocks gives each of the
   * 24 DataNodes about 7 units.
   */
  static StripedWorkload.Settings workloadSettings(Options o) {
    long victimUnits = o.getLong("victim-units", 8);
    if (victimUnits < 1) {
      throw new Options.UsageException("--victim-units must be at least 1 (a victim holds a data unit), got "
          + victimUnits);
    }
    return new StripedWorkload.Settings(bytes(o, "data", "1g"), bytes(o, "file-size", "64m"),
        (int) o.getLong("read-samples", 5), Double.parseDouble(o.get("foreground-seconds", "10")), (int) victimUnits);
  }

  /** Archival by our chain and by RapidRAID against DistCp: time and uplink bytes. */
  @SuppressWarnings("unchecked")
  private static void archiveRatios(Map<String, Object> r, Map<String, Object> archive) {
    if (archive != null) {
      Map<String, Object> d = (Map<String, Object>) archive.get("distcp");
      Map<String, Object> c = (Map<String, Object>) archive.get("chain");
      Map<String, Object> rr = (Map<String, Object>) archive.get("rapidRaid");
      r.put("distcpOverWideArchiveTime", StripedRatios.ratio(d.get("seconds"), c.get("seconds")));
      r.put("distcpOverWideArchiveCrossRack", StripedRatios.ratio(d.get("crossRackBytes"), c.get("crossRackBytes")));
      r.put("distcpOverRapidRaidTime", StripedRatios.ratio(d.get("seconds"), rr.get("seconds")));
      r.put("distcpOverRapidRaidCrossRack", StripedRatios.ratio(d.get("crossRackBytes"), rr.get("crossRackBytes")));
    }
  }

  /** The summary printed before the JSON without --json: the ratios and the verdicts. */
  static String summary(Map<String, Object> r) {
    List<String> keys = new ArrayList<>(StripedRatios.KEYS);
    keys.addAll(List.of("distcpOverWideArchiveTime", "distcpOverWideArchiveCrossRack",
        "decommissionStockOverOurs", "decommissionGlobalOverLocal", "baselineOverRackcuTraffic",
        "cauOverRackcuTraffic", "rackcuOverBaselineThroughput", "drills", "bytesLost", "invalidPhases"));
    StringBuilder sb = new StringBuilder();
    for (String k : keys) {
      if (r.containsKey(k)) {
        sb.append(k).append(": ").append(r.get(k)).append('\n');
      }
    }
    return sb.toString().trim();
  }

  static long bytes(Options o, String name, String dflt) {
    String v = o.get(name, dflt);
    try {
      return TraditionalBinaryPrefix.string2long(v);
    } catch (IllegalArgumentException e) {
      throw new Options.UsageException("--" + name + " needs a size like 64m, got '" + v + "'");
    }
  }
}
