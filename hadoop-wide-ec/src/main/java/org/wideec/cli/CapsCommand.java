package org.wideec.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.HdfsConstants;
import org.apache.hadoop.net.NetUtils;
import org.apache.hadoop.util.StringUtils;
import org.wideec.datanode.JmxEndpointResolver;
import org.wideec.protocol.CapsRequest;
import org.wideec.repair.UnitLocation;
import org.wideec.topology.Endpoint;
import org.wideec.topology.Site;
import org.wideec.transport.Frame;
import org.wideec.transport.PeerStream;
import org.wideec.transport.SliceTransport;
import org.wideec.transport.TrafficCounters;
import org.wideec.transport.TransportConf;
import org.wideec.transport.hdfs.TransportConfReader;

/**
 * {@code wide-ec caps show|set}: the background caps of the DataNodes' repair workers (what repairs, rebuild orders,
 * decommission rebuilds and archival encodes may send per node and per rack uplink), on one DataNode or every live
 * one. {@code show} reads each DataNode's JMX bean from its /jmx page (HDFS's read-only JSON servlet), as {@code
 * wide-ec nodes} does. {@code set} cannot go that way (the servlet sets nothing, and an unauthenticated setter would
 * let anyone who reaches the web port starve or unleash repairs): it sends a {@link CapsRequest} to each DataNode's
 * slice port as a peer that proves the cluster secret ({@code wide-ec.transport.secret}), as the NameNode's orders
 * do, so only who can read the secret (a DataNode's or the NameNode's operator) can set caps; a DataNode running
 * {@code wide-ec.transport.auth=none} refuses. A cap set so holds until the DataNode restarts; the configured
 * {@code wide-ec.background.*.bytes-per-second} applies again then.
 */
final class CapsCommand {
  static final String USAGE = String.join("\n",
      "  caps show [--datanode NODE] [--json]                 each DataNode's background caps: node and rack uplink caps as",
      "                                                        set, and in force now (after the back-off; its rack share)",
      "  caps set [--datanode NODE] [--node-bytes-per-second N] [--rack-bytes-per-second N] [--json]",
      "                                                        sets them (0: none; 50m, 1g) on NODE or every live DataNode,",
      "                                                        from the next slice on, until it restarts; needs the cluster",
      "                                                        secret (wide-ec.transport.secret)");
  private static final String NODE = "node-bytes-per-second";
  private static final String RACK = "rack-bytes-per-second";

  private final Configuration conf;
  private final PrintStream out;

  CapsCommand(Configuration conf, PrintStream out) {
    this.conf = conf;
    this.out = out;
  }

  int run(String[] args) throws Exception {
    Options o = new Options(args, Set.of("datanode", NODE, RACK), Set.of("json"));
    if (o.positional().size() != 1 || !Set.of("show", "set").contains(o.positional().get(0))) {
      throw new Options.UsageException("caps needs show or set");
    }
    boolean set = o.positional().get(0).equals("set");
    if (!set && (o.has(NODE) || o.has(RACK))) {
      throw new Options.UsageException("caps show takes no --" + NODE + " or --" + RACK + " (caps set does)");
    }
    if (set && !o.has(NODE) && !o.has(RACK)) {
      throw new Options.UsageException("caps set needs --" + NODE + ", --" + RACK + " or both");
    }
    DistributedFileSystem dfs = ClusterAccess.hdfs(conf, "caps");
    List<DatanodeInfo> nodes = o.has("datanode") ? List.of(DecommissionCommand.find(dfs, o.get("datanode", null)))
        : List.of(dfs.getDataNodeStats(HdfsConstants.DatanodeReportType.LIVE));
    List<Map<String, Object>> rows = set ? set(nodes, new CapsRequest(cap(o, NODE), cap(o, RACK))) : show(nodes);
    int problems = (int) rows.stream().filter(r -> r.containsKey("error")).count();
    if (o.has("json")) {
      out.println(Json.write(Map.of("datanodes", rows, "problems", problems)));
    } else {
      Table t = new Table().row("DATANODE", "RACK", "NODE CAP", "RACK CAP", "NODE CAP NOW", "RACK SHARE NOW", "ERROR");
      for (Map<String, Object> r : rows) {
        t.row((String) r.get("datanode"), (String) r.get("rack"), rate(r, "nodeCap"), rate(r, "rackCap"),
            rate(r, "nodeCapNow"), rate(r, "rackShareNow"), (String) r.getOrDefault("error", ""));
      }
      t.print(out);
    }
    return problems == 0 ? 0 : WideEcTool.EXIT_FOUND_PROBLEM;
  }

  /** The cap an option gives, bytes/s (0: none); {@link CapsRequest#UNCHANGED} when it is not given. */
  private static long cap(Options o, String name) {
    if (!o.has(name)) {
      return CapsRequest.UNCHANGED;
    }
    String v = o.get(name, null);
    long b;
    try {
      b = StringUtils.TraditionalBinaryPrefix.string2long(v);
    } catch (IllegalArgumentException e) {
      throw new Options.UsageException("--" + name + " " + v + " is not a number of bytes per second (50m, 1g)");
    }
    if (b < 0) {
      throw new Options.UsageException("--" + name + " " + v + " is negative (0: no cap)");
    }
    return b;
  }

  private static String rate(Map<String, Object> r, String key) {
    Object v = r.get(key);
    return v == null ? "" : (Long) v == 0 ? "-" : StringUtils.TraditionalBinaryPrefix.long2String((Long) v, "B/s", 1);
  }

  private static Map<String, Object> row(DatanodeInfo dn) {
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("datanode", dn.getXferAddr());
    r.put("rack", dn.getNetworkLocation());
    return r;
  }

  /** Each DataNode's caps as its JMX bean says. */
  private List<Map<String, Object>> show(List<DatanodeInfo> nodes) {
    List<Map<String, Object>> rows = new ArrayList<>();
    JmxEndpointResolver jmx = new JmxEndpointResolver(conf, 10_000);
    try {
      for (DatanodeInfo dn : nodes) {
        Map<String, Object> r = row(dn);
        try {
          JsonNode bean = jmx.bean(dn);
          String state = ClusterAccess.workerState(bean);
          if (!state.equals("running")) {
            r.put("error", "worker " + state);
          } else {
            r.put("nodeCap", bean.path("BackgroundNodeCap").asLong());
            r.put("rackCap", bean.path("BackgroundRackCap").asLong());
            r.put("nodeCapNow", bean.path("BackgroundNodeCapNow").asLong());
            r.put("rackShareNow", bean.path("BackgroundRackShareNow").asLong());
            r.put("throttleWaits", bean.path("BackgroundThrottleWaits").asLong());
          }
        } catch (IOException e) {
          r.put("error", e.getMessage());
        }
        rows.add(r);
      }
    } finally {
      jmx.close();
    }
    return rows;
  }

  /** Sends the order to each DataNode's slice port, proving the cluster secret; each row has the caps in force after. */
  private List<Map<String, Object>> set(List<DatanodeInfo> nodes, CapsRequest req) throws IOException {
    TransportConf tc = TransportConfReader.from(conf);
    if (tc.secret() == null) {
      throw new IOException("caps set proves the cluster secret to each DataNode, and " + TransportConf.AUTH + "=none"
          + " has none (its DataNodes refuse the order): set the caps through each DataNode's JMX bean"
          + " (BackgroundNodeCap, BackgroundRackCap) instead");
    }
    List<Map<String, Object>> rows = new ArrayList<>();
    String self = "wide-ec caps " + NetUtils.getLocalHostname();
    // A client serves nothing: the executor only satisfies the transport's constructor.
    ExecutorService idle = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "wide-ec-caps-idle");
      t.setDaemon(true);
      return t;
    });
    JmxEndpointResolver jmx = new JmxEndpointResolver(conf, tc.connectTimeoutMs());
    try (SliceTransport transport = new SliceTransport(tc, self, TrafficCounters.NONE, idle)) {
      for (DatanodeInfo dn : nodes) {
        Map<String, Object> r = row(dn);
        try {
          Endpoint at = jmx.resolve(new UnitLocation(-1, new Site(dn.getXferAddr(), dn.getNetworkLocation())), dn);
          long[] caps = order(transport, at, self, req);
          r.put("nodeCap", caps[0]);
          r.put("rackCap", caps[1]);
        } catch (IOException e) {
          r.put("error", e.getMessage());
        }
        rows.add(r);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new java.io.InterruptedIOException("caps set interrupted");
    } finally {
      jmx.close();
      idle.shutdownNow();
    }
    return rows;
  }

  private static long[] order(SliceTransport transport, Endpoint at, String self, CapsRequest req)
      throws IOException, InterruptedException {
    long id = ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE;
    try (PeerStream s = transport.open(at, self, "", id, req.toBytes())) {
      Frame f = s.next(0, CapsRequest.ANSWER_BYTES);
      byte[] answer = new byte[CapsRequest.ANSWER_BYTES];
      try {
        f.payload().getBytes(f.payload().readerIndex(), answer);
      } finally {
        f.release();
        s.credit();
      }
      s.awaitEnd();
      return CapsRequest.caps(answer);
    }
  }
}
