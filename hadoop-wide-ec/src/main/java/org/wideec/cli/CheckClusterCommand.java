package org.wideec.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicyInfo;
import org.apache.hadoop.hdfs.protocol.HdfsConstants;
import org.wideec.coder.StripedCodec;
import org.wideec.datanode.JmxEndpointResolver;
import org.wideec.placement.ClusterFit;
import org.wideec.placement.PlacementConf;
import org.wideec.placement.PlacementPlan;
import org.wideec.placement.StockReadablePlacement;
import org.wideec.placement.StripedPlacement;

/**
 * {@code wide-ec check-cluster}: our {@code hdfs ec -verifyClusterSetup}. For every enabled policy of our codecs:
 * can the live topology hold its placement plan, and does a single-rack loss stay readable to stock clients; for
 * every live DataNode: does it run our worker, with the native coder (one without names the enabled LRC policies
 * whose losses HDFS's own reconstructor cannot always rebuild: {@link StockRepairHazard}), and is its cluster secret
 * the one its peers hold (a DataNode that refused its peers' handshakes, and whose own they refused, for a wrong
 * secret in the last ten minutes: {@link SecretMismatch}). Prints what to fix; exit code 1 when something is wrong. Warnings (a DataNode that ignores block pins, so the Balancer may move archived replicas off plan) are
 * printed too, without changing the exit code: a cluster that archives nothing does not need pins.
 */
final class CheckClusterCommand {
  private final Configuration conf;
  private final PrintStream out;

  CheckClusterCommand(Configuration conf, PrintStream out) {
    this.conf = conf;
    this.out = out;
  }

  int run(String[] args) throws IOException {
    Options o = new Options(args, Set.of("scheme"), Set.of("json"));
    if (!o.positional().isEmpty()) {
      throw new Options.UsageException("check-cluster takes no arguments");
    }
    DistributedFileSystem dfs = ClusterAccess.hdfs(conf, "check-cluster");
    String scheme = PlacementConf.scheme(o.get("scheme", conf.getTrimmed(StripedPlacement.SCHEME_KEY, StripedPlacement.AUTO)));
    DatanodeInfo[] live = dfs.getDataNodeStats(HdfsConstants.DatanodeReportType.LIVE);
    Map<String, Integer> racks = new TreeMap<>();
    for (DatanodeInfo d : live) {
      racks.merge(d.getNetworkLocation(), 1, Integer::sum);
    }
    List<String> fixes = new ArrayList<>();
    List<String> warnings = new ArrayList<>();
    List<Map<String, Object>> policies = new ArrayList<>();
    for (ErasureCodingPolicyInfo info : dfs.getAllErasureCodingPolicies()) {
      ErasureCodingPolicy p = info.getPolicy();
      if (info.isEnabled() && StripedCodec.names().contains(p.getCodecName())) {
        policies.add(checkPolicy(p, scheme, racks, fixes));
      }
    }
    if (policies.isEmpty()) {
      fixes.add("no policy of our codecs is enabled: add one (wide-ec policy --code SPEC) and hdfs ec -enablePolicy it");
    }
    List<Map<String, Object>> nodes = checkNodes(dfs, live, fixes, warnings);
    if (o.has("json")) {
      Map<String, Object> j = new LinkedHashMap<>();
      j.put("racks", racks);
      j.put("policies", policies);
      j.put("datanodes", nodes);
      j.put("fixes", fixes);
      j.put("warnings", warnings);
      j.put("ok", fixes.isEmpty());
      out.println(Json.write(j));
    } else {
      out.println(live.length + " live DataNodes in " + racks.size() + " racks " + racks);
      Table t = new Table().row("POLICY", "CODE", "PLAN (UNITS PER RACK)", "FITS", "SINGLE-RACK LOSS");
      for (Map<String, Object> p : policies) {
        t.row(p.get("policy"), p.get("spec"), p.get("unitsPerRack"), p.get("fits"), p.get("rackLoss"));
      }
      t.print(out);
      out.println(fixes.isEmpty() ? "OK: every enabled policy of ours fits, and every DataNode runs the worker with the "
          + "native coder" : "To fix:");
      fixes.forEach(f -> out.println("  - " + f));
      if (!warnings.isEmpty()) {
        out.println("Warnings:");
        warnings.forEach(w -> out.println("  - " + w));
      }
    }
    return fixes.isEmpty() ? 0 : WideEcTool.EXIT_FOUND_PROBLEM;
  }

  /**
   * Every live DataNode's worker, coder and slice port as its JMX beans say, and one cluster secret across them; what
   * is wrong goes into {@code fixes} or {@code warnings}.
   */
  private List<Map<String, Object>> checkNodes(DistributedFileSystem dfs, DatanodeInfo[] live, List<String> fixes,
      List<String> warnings) throws IOException {
    List<Map<String, Object>> nodes = new ArrayList<>();
    JmxEndpointResolver jmx = new JmxEndpointResolver(conf, 10_000);
    String hazard = StockRepairHazard.of(dfs).describe();
    Map<String, JsonNode> beans = new LinkedHashMap<>();
    try {
      for (DatanodeInfo d : live) {
        nodes.add(checkNode(d, jmx, hazard, fixes, warnings, beans));
      }
    } finally {
      jmx.close();
    }
    SecretMismatch secrets = SecretMismatch.of(beans);
    for (Map<String, Object> n : nodes) {
      String addr = (String) n.get("datanode");
      n.put("secretMismatch", secrets.named(addr));
      if (secrets.named(addr)) {
        fixes.add(secrets.problem(addr) + (hazard == null ? "" : "; " + hazard));
      }
    }
    return nodes;
  }

  private static Map<String, Object> checkPolicy(ErasureCodingPolicy p, String scheme, Map<String, Integer> racks,
      List<String> fixes) {
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("policy", p.getName());
    try {
      PlacementPlan plan = StripedPlacement.planFor(p.getCodecName(), p.getNumDataUnits(), p.getNumParityUnits(), scheme);
      r.put("spec", plan.code().spec());
      r.put("unitsPerRack", java.util.Arrays.toString(plan.unitsPerRack()));
      ClusterFit fit = ClusterFit.of(plan, racks);
      if (fit.holds()) {
        r.put("fits", "yes " + fit.assignment() + (fit.racksWithoutSpare() > 0
            ? " (" + fit.racksWithoutSpare() + " racks without a spare DataNode for repairs)" : ""));
      } else {
        r.put("fits", "NO");
        fixes.add(p.getName() + ": " + fit.problem() + "; add DataNodes or racks, or use a narrower policy");
      }
      List<Integer> unreadable = StockReadablePlacement.unreadableRacks(plan);
      r.put("rackLoss", unreadable.isEmpty() ? "stock-readable" : "decodable; stock clients fail on racks " + unreadable);
      if (!unreadable.isEmpty()) {
        fixes.add(p.getName() + ": losing plan rack " + unreadable + " leaves data that stock clients cannot read; "
            + "clients need fs.hdfs.impl=org.wideec.client.WideEcFileSystem");
      }
    } catch (RuntimeException e) {
      r.put("spec", "");
      r.put("unitsPerRack", "");
      r.put("fits", "NO");
      r.put("rackLoss", "");
      fixes.add(p.getName() + ": no placement plan: " + e.getMessage());
    }
    return r;
  }

  /** @param hazard what a DataNode without a running worker means for repairs, or null */
  private static Map<String, Object> checkNode(DatanodeInfo d, JmxEndpointResolver jmx, String hazard,
      List<String> fixes, List<String> warnings, Map<String, JsonNode> beans) {
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("datanode", d.getXferAddr());
    try {
      JsonNode bean = jmx.bean(d);
      beans.put(d.getXferAddr(), bean);
      String state = ClusterAccess.workerState(bean);
      String coder = bean.path("Coder").asText("");
      r.put("worker", state);
      r.put("coder", coder);
      boolean pinning = bean.path("BlockPinning").asBoolean(false);
      r.put("blockPinning", pinning);
      if (!pinning) {
        warnings.add(d.getXferAddr() + ": dfs.datanode.block-pinning.enabled is false, so archived replicas kept"
            + " here are not pinned and the Balancer or Mover may move them off their stripes' plans (the NameNode"
            + " moves them back); set it to true on every DataNode that holds archived data");
      }
      if (!state.equals("running")) {
        fixes.add(d.getXferAddr() + ": the wide-ec worker is " + state + (hazard == null ? "" : "; " + hazard));
      } else if (!coder.startsWith("native")) {
        fixes.add(d.getXferAddr() + ": codes in Java (" + coder + "): install libisal2 and put libwideec.so on the "
            + "DataNode's java.library.path");
      }
    } catch (IOException e) {
      r.put("worker", "none");
      fixes.add(d.getXferAddr() + ": " + e.getMessage() + (hazard == null ? "" : "; " + hazard));
    }
    return r;
  }
}
