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
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.HdfsConstants;
import org.wideec.datanode.JmxEndpointResolver;

/**
 * {@code wide-ec endpoints}: every live DataNode's repair worker as the other DataNodes find it (slice port,
 * authentication, shaping, from the DataNode's /jmx page). Exit code 1 when some DataNode runs none.
 */
final class EndpointsCommand {
  private final Configuration conf;
  private final PrintStream out;

  EndpointsCommand(Configuration conf, PrintStream out) {
    this.conf = conf;
    this.out = out;
  }

  int run(String[] args) throws IOException {
    Options o = new Options(args, Set.of(), Set.of("json"));
    if (!o.positional().isEmpty()) {
      throw new Options.UsageException("endpoints takes no arguments");
    }
    FileSystem fs = FileSystem.get(conf);
    if (!(fs instanceof DistributedFileSystem dfs)) {
      throw new IllegalArgumentException("endpoints needs HDFS as fs.defaultFS, not " + fs.getUri());
    }
    List<Map<String, Object>> rows = new ArrayList<>();
    int missing;
    JmxEndpointResolver jmx = new JmxEndpointResolver(conf, 10_000);
    try {
      missing = describe(dfs, jmx, rows);
    } finally {
      jmx.close();
    }
    if (o.has("json")) {
      out.println(Json.write(Map.of("datanodes", rows, "withoutWorker", missing)));
    } else {
      Table t = new Table().row("DATANODE", "RACK", "SLICE ENDPOINT", "AUTHENTICATION", "SHAPING");
      for (Map<String, Object> r : rows) {
        String host = ((String) r.get("datanode")).split(":")[0];
        t.row((String) r.get("datanode"), (String) r.get("rack"),
            r.containsKey("slicePort") ? host + ":" + r.get("slicePort") : "none: " + r.get("error"),
            r.getOrDefault("authentication", ""), r.getOrDefault("shaping", ""));
      }
      t.print(out);
    }
    return missing == 0 ? 0 : 1;
  }

  /** One row per live DataNode into rows; returns how many run no worker (or could not be asked). */
  private static int describe(DistributedFileSystem dfs, JmxEndpointResolver jmx, List<Map<String, Object>> rows)
      throws IOException {
    int missing = 0;
    for (DatanodeInfo dn : dfs.getDataNodeStats(HdfsConstants.DatanodeReportType.LIVE)) {
      Map<String, Object> r = new LinkedHashMap<>();
      r.put("datanode", dn.getXferAddr());
      r.put("rack", dn.getNetworkLocation());
      try {
        JsonNode bean = jmx.bean(dn);
        r.put("slicePort", bean.get("SlicePort").asInt());
        r.put("authentication", bean.path("Authentication").asText());
        r.put("shaping", bean.path("Shaping").asBoolean());
      } catch (IOException e) {
        r.put("error", e.getMessage());
        missing++;
      }
      rows.add(r);
    }
    return missing;
  }
}
