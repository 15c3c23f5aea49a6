package org.wideec.datanode;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URL;
import java.net.URLConnection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.DFSUtil;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.web.URLConnectionFactory;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.security.authentication.client.AuthenticationException;
import org.wideec.engine.SliceDial;
import org.wideec.repair.EndpointResolver;
import org.wideec.repair.UnitLocation;
import org.wideec.topology.Endpoint;
import org.wideec.topology.Site;

/**
 * Finds a DataNode's slice port on its /jmx page ({@link SliceEndpointMXBean}); remembers answers for ten
 * minutes, or until a repair blames the node (a restarted DataNode listens on a new port: a port that moved is logged,
 * one line a minute at most). The page is read
 * the way HDFS's own tools read web UIs: over HTTPS when {@code dfs.http.policy} is HTTPS_ONLY (trusting
 * ssl-client.xml), with SPNEGO when Kerberos security is on.
 */
public final class JmxEndpointResolver {
  private static final long TTL_MS = 600_000;
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(JmxEndpointResolver.class);
  private final Map<String, long[]> cache = new ConcurrentHashMap<>(); // node -> {port, expiry}
  private final Map<String, Integer> lastSeen = new ConcurrentHashMap<>(); // node -> port, kept when forgotten
  private final org.wideec.placement.hdfs.RateLimitedWarning moves =
      new org.wideec.placement.hdfs.RateLimitedWarning(LOG, 60_000);
  private final URLConnectionFactory connections;
  private final boolean https;

  public JmxEndpointResolver(Configuration conf, int timeoutMs) {
    this.connections = URLConnectionFactory.newDefaultURLConnectionFactory(timeoutMs, timeoutMs, conf);
    this.https = DFSUtil.getHttpPolicy(conf).isHttpsEnabled() && !DFSUtil.getHttpPolicy(conf).isHttpEnabled();
  }

  public static String beanName(int xferPort) {
    return "WideEcTransport-" + xferPort;
  }

  /** A resolver over the given DataNodes (by transfer address). */
  public EndpointResolver over(Function<String, DatanodeInfo> datanodes) {
    return new EndpointResolver() {
      @Override
      public Endpoint resolve(UnitLocation loc) throws IOException {
        return JmxEndpointResolver.this.resolve(loc, datanodes.apply(loc.node()));
      }

      @Override
      public void forget(String node) {
        JmxEndpointResolver.this.forget(node);
      }
    };
  }

  /**
   * {@code attempt} at the DataNode's slice port, and once more where it listens now when it failed there and moved
   * ({@link SliceDial}: a DataNode restarted on a new slice port).
   */
  public <T> T dial(DatanodeInfo dn, Site site, SliceDial.Attempt<T> attempt) throws IOException, InterruptedException {
    UnitLocation loc = new UnitLocation(-1, site);
    return SliceDial.following(resolve(loc, dn), over(node -> node.equals(loc.node()) ? dn : null), attempt);
  }

  public Endpoint resolve(UnitLocation loc, DatanodeInfo dn) throws IOException {
    if (dn == null) {
      throw new IOException("no DataNode known at " + loc.node());
    }
    long now = System.currentTimeMillis();
    long[] hit = cache.get(loc.node());
    if (hit == null || hit[1] < now) {
      hit = new long[] {fetchPort(dn), now + TTL_MS};
      cache.put(loc.node(), hit);
      Integer before = lastSeen.put(loc.node(), (int) hit[0]);
      if (before != null && before != hit[0]) {
        moves.warn("wide-ec: DataNode {} moved its slice port from {} to {} (it restarted); its peers dial it there",
            loc.node(), before, hit[0]);
      }
    }
    return new Endpoint(dn.getIpAddr(), (int) hit[0], loc.site());
  }

  public void forget(String node) {
    cache.remove(node);
  }

  private int fetchPort(DatanodeInfo dn) throws IOException {
    JsonNode b = bean(dn);
    int port = b.get("SlicePort").asInt();
    if (port == 0) {
      throw new IOException("the wide-ec worker of DataNode " + dn.getXferAddr() + " is off: "
          + b.path("DisabledReason").asText());
    }
    return port;
  }

  /**
   * The DataNode's {@link SliceEndpointMXBean} as its /jmx page shows it (SlicePort, Authentication, Shaping).
   *
   * @throws IOException when it cannot be read or the DataNode runs no repair worker
   */
  public JsonNode bean(DatanodeInfo dn) throws IOException {
    String url = (https ? "https://" : "http://") + dn.getIpAddr() + ":" + (https ? dn.getInfoSecurePort() : dn.getInfoPort())
        + "/jmx?qry=Hadoop:service=DataNode,name=" + beanName(dn.getXferPort());
    JsonNode b;
    try {
      b = firstBean(url);
    } catch (IOException e) {
      throw new IOException("cannot discover the slice port of DataNode " + dn.getXferAddr() + ": " + e.getMessage(), e);
    }
    if (b == null || !b.has("SlicePort")) {
      throw new IOException("cannot discover the slice port of DataNode " + dn.getXferAddr() + ": DataNode "
          + dn.getXferAddr() + " runs no wide-ec repair worker (nothing at " + url + "); add"
          + " org.wideec.datanode.WideEcDataNodePlugin to its dfs.datanode.plugins");
    }
    return b;
  }

  /**
   * The first bean a /jmx query URL answers (a daemon's web UI, read as HDFS's tools read it), or null when none
   * matches.
   *
   * @throws IOException when the page cannot be read
   */
  public JsonNode firstBean(String url) throws IOException {
    URLConnection c = null;
    try {
      c = connections.openConnection(new URL(url), UserGroupInformation.isSecurityEnabled());
      try (InputStream in = c.getInputStream()) {
        JsonNode beans = JSON.readTree(in).path("beans");
        return beans.size() == 0 ? null : beans.get(0);
      }
    } catch (AuthenticationException e) {
      throw new IOException(url + ": " + e.getMessage(), e);
    } finally {
      if (c instanceof HttpURLConnection h) {
        h.disconnect();
      }
    }
  }

  /** Releases the HTTPS trust material, if any. */
  public void close() {
    connections.destroy();
  }
}
