package org.wideec.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.HdfsConstants;
import org.wideec.datanode.JmxEndpointResolver;

/**
 * {@code wide-ec nodes} (alias {@code endpoints}): every live DataNode's repair worker as the other DataNodes find
 * it on the DataNode's /jmx page: running or off and why, its version, its coder (native or Java, and why), slice
 * endpoint, authentication, TLS, block tokens, whether HDFS honours block pins (archived replicas are pinned on
 * plan; without {@code dfs.datanode.block-pinning.enabled} the Balancer may move them), what happened to the reconstruction tasks it took over, and its last
 * error. Under the table, per DataNode, the handshakes its slice port refused in the last ten minutes and the peers
 * that refused its own, and a SECRET MISMATCH line for a DataNode whose secret differs from its peers'
 * ({@link SecretMismatch}). A DataNode without a running worker, or with a secret its peers refuse (its repairs
 * fall back to HDFS's reconstructor), is named a repair hazard for every enabled LRC policy (HDFS's own
 * reconstructor cannot rebuild some of its losses: {@link StockRepairHazard}). Exit code 1 when some DataNode runs
 * no worker, runs it off, or has a secret its peers refuse.
 */
final class NodesCommand {
  private final Configuration conf;
  private final PrintStream out;

  NodesCommand(Configuration conf, PrintStream out) {
    this.conf = conf;
    this.out = out;
  }

  int run(String[] args) throws IOException {
    Options o = new Options(args, Set.of(), Set.of("json"));
    if (!o.positional().isEmpty()) {
      throw new Options.UsageException("nodes takes no arguments");
    }
    DistributedFileSystem dfs = ClusterAccess.hdfs(conf, "nodes");
    List<Map<String, Object>> rows = new ArrayList<>();
    Map<String, JsonNode> beans = new LinkedHashMap<>();
    int missing;
    JmxEndpointResolver jmx = new JmxEndpointResolver(conf, 10_000);
    String hazard = StockRepairHazard.of(dfs).describe();
    try {
      missing = describe(dfs, jmx, rows, beans);
    } finally {
      jmx.close();
    }
    SecretMismatch secrets = SecretMismatch.of(beans);
    int mismatched = 0;
    for (Map<String, Object> r : rows) {
      boolean odd = secrets.named((String) r.get("datanode"));
      r.put("secretMismatch", odd);
      mismatched += odd ? 1 : 0;
      if (hazard != null && (odd || !"running".equals(r.get("worker")))) {
        r.put("repairHazard", hazard);
      }
    }
    if (o.has("json")) {
      out.println(Json.write(Map.of("datanodes", rows, "withoutWorker", missing, "secretMismatches", mismatched)));
    } else {
      Table t = new Table().row("DATANODE", "RACK", "WORKER", "VERSION", "CODER", "SLICE ENDPOINT", "AUTH", "TLS",
          "TOKENS", "PINNING", "TASKS OK/STOCK/ABANDONED", "QUEUED", "CAP NODE/RACK SHARE", "LAST ERROR");
      for (Map<String, Object> r : rows) {
        String host = ((String) r.get("datanode")).split(":")[0];
        boolean running = "running".equals(r.get("worker"));
        t.row((String) r.get("datanode"), (String) r.get("rack"),
            (Boolean) r.get("secretMismatch") ? r.get("worker") + ", SECRET MISMATCH" : r.get("worker"), r.getOrDefault("version", ""),
            r.getOrDefault("coder", ""), running ? host + ":" + r.get("slicePort") : "",
            r.getOrDefault("authentication", ""), r.getOrDefault("tls", ""), r.getOrDefault("blockTokens", ""),
            r.containsKey("blockPinning") ? (Boolean) r.get("blockPinning") ? "on" : "OFF" : "",
            r.containsKey("tasksCompleted") ? r.get("tasksCompleted") + "/" + r.get("tasksHandedToStock") + "/"
                + r.get("tasksAbandoned") : "",
            r.containsKey("repairBacklog") ? String.valueOf(r.get("repairBacklog")) : "",
            r.containsKey("backgroundNodeCapNow") ? caps(r) : "", r.getOrDefault("lastError", ""));
      }
      t.print(out);
      for (Map<String, Object> r : rows) {
        secrets.lines((String) r.get("datanode")).forEach(out::println);
      }
      for (Map<String, Object> r : rows) {
        if (r.containsKey("repairHazard")) {
          out.println(r.get("datanode") + ": " + r.get("repairHazard"));
        }
      }
    }
    return missing + mismatched == 0 ? 0 : WideEcTool.EXIT_FOUND_PROBLEM;
  }

  /** The background caps in force, bytes/s: "-" for none. */
  private static String caps(Map<String, Object> r) {
    long node = (Long) r.get("backgroundNodeCapNow");
    long rack = (Long) r.get("backgroundRackShareNow");
    return (node == 0 ? "-" : String.valueOf(node)) + "/" + (rack == 0 ? "-" : String.valueOf(rack));
  }

  /**
   * One row per live DataNode into rows, and each worker bean read into beans; returns how many run no worker, run it
   * off, or could not be asked.
   */
  private static int describe(DistributedFileSystem dfs, JmxEndpointResolver jmx, List<Map<String, Object>> rows,
      Map<String, JsonNode> beans) throws IOException {
    int missing = 0;
    for (DatanodeInfo dn : dfs.getDataNodeStats(HdfsConstants.DatanodeReportType.LIVE)) {
      Map<String, Object> r = new LinkedHashMap<>();
      r.put("datanode", dn.getXferAddr());
      r.put("rack", dn.getNetworkLocation());
      try {
        JsonNode bean = jmx.bean(dn);
        beans.put(dn.getXferAddr(), bean);
        String state = ClusterAccess.workerState(bean);
        r.put("worker", state);
        r.put("version", bean.path("Version").asText());
        r.put("coder", bean.path("Coder").asText());
        r.put("slicePort", bean.get("SlicePort").asInt());
        r.put("authentication", bean.path("Authentication").asText());
        r.put("tls", bean.path("Tls").asBoolean());
        r.put("blockTokens", bean.path("BlockTokens").asBoolean());
        r.put("shaping", bean.path("Shaping").asBoolean());
        r.put("blockPinning", bean.path("BlockPinning").asBoolean());
        r.put("tasksCompleted", bean.path("TasksCompleted").asLong());
        r.put("tasksHandedToStock", bean.path("TasksHandedToStock").asLong());
        r.put("tasksAbandoned", bean.path("TasksAbandoned").asLong());
        r.put("unexpectedErrors", bean.path("UnexpectedErrors").asLong());
        r.put("lastError", bean.path("LastError").asText(""));
        r.put("backgroundNodeCap", bean.path("BackgroundNodeCap").asLong());
        r.put("backgroundNodeCapNow", bean.path("BackgroundNodeCapNow").asLong());
        r.put("backgroundRackCap", bean.path("BackgroundRackCap").asLong());
        r.put("backgroundRackShareNow", bean.path("BackgroundRackShareNow").asLong());
        r.put("backgroundThrottleWaits", bean.path("BackgroundThrottleWaits").asLong());
        r.put("repairBacklog", bean.path("RepairBacklog").asInt());
        r.put("refusedHandshakes", bean.path("RefusedHandshakes"));
        r.put("handshakesRefusedByPeers", bean.path("HandshakesRefusedByPeers"));
        if (!state.equals("running")) {
          missing++;
        }
      } catch (IOException e) {
        r.put("worker", "none: " + e.getMessage());
        missing++;
      }
      rows.add(r);
    }
    return missing;
  }
}
