package org.wideec.datanode;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URL;
import java.net.URLConnection;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
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
 * ssl-client.xml), with SPNEGO when Kerberos security is on. Threads asking for the same DataNode at once share one
 * read of its page, and {@link #prefetch} looks many DataNodes up at once.
 */
public final class JmxEndpointResolver {
  private static final long TTL_MS = 600_000;
  /**
   * The most pages {@link #prefetch} reads at once: a NameNode's few threads, which read the 24 DataNodes of a
   * node-loss recovery in three rounds rather than one page after the other. They end when idle.
   */
  static final int LOOKUP_THREADS = 8;
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(JmxEndpointResolver.class);
  private final Map<String, long[]> cache = new ConcurrentHashMap<>(); // node -> {port, expiry}
  private final Map<String, Integer> lastSeen = new ConcurrentHashMap<>(); // node -> port, kept when forgotten
  /** The reads of a node's page under way, by node: a thread that needs the same node waits for that one. */
  private final Map<String, CompletableFuture<Integer>> reading = new ConcurrentHashMap<>();
  private final org.wideec.placement.hdfs.RateLimitedWarning moves =
      new org.wideec.placement.hdfs.RateLimitedWarning(LOG, 60_000);
  private final URLConnectionFactory connections;
  private final boolean https;
  private final int timeoutMs;
  private final PortLookup lookup;
  private final ThreadPoolExecutor lookups;

  /** Reads a DataNode's slice port (from its /jmx page; a test answers instead). */
  @FunctionalInterface
  interface PortLookup {
    int port(DatanodeInfo dn) throws IOException;
  }

  /** @param timeoutMs how long a page's connect, and then its read, may take */
  public JmxEndpointResolver(Configuration conf, int timeoutMs) {
    this.connections = URLConnectionFactory.newDefaultURLConnectionFactory(timeoutMs, timeoutMs, conf);
    this.https = DFSUtil.getHttpPolicy(conf).isHttpsEnabled() && !DFSUtil.getHttpPolicy(conf).isHttpEnabled();
    this.timeoutMs = timeoutMs;
    this.lookup = this::fetchPort;
    this.lookups = lookupPool();
  }

  /** A resolver whose ports {@code lookup} reads, each within {@code timeoutMs} twice (tests). */
  JmxEndpointResolver(PortLookup lookup, int timeoutMs) {
    this.connections = null;
    this.https = false;
    this.timeoutMs = timeoutMs;
    this.lookup = lookup;
    this.lookups = lookupPool();
  }

  private static ThreadPoolExecutor lookupPool() {
    ThreadPoolExecutor pool = new ThreadPoolExecutor(LOOKUP_THREADS, LOOKUP_THREADS, 30, TimeUnit.SECONDS,
        new LinkedBlockingQueue<>(), r -> {
          Thread t = new Thread(r, "wide-ec-slice-port-lookup");
          t.setDaemon(true);
          return t;
        });
    pool.allowCoreThreadTimeOut(true);
    return pool;
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
    return new Endpoint(dn.getIpAddr(), port(loc.node(), dn), loc.site());
  }

  /** The node's slice port: remembered, or read now, or read by another thread that asked for it first. */
  private int port(String node, DatanodeInfo dn) throws IOException {
    long[] hit = cache.get(node);
    if (hit != null && hit[1] >= System.currentTimeMillis()) {
      return (int) hit[0];
    }
    CompletableFuture<Integer> mine = new CompletableFuture<>();
    CompletableFuture<Integer> other = reading.putIfAbsent(node, mine);
    if (other != null) {
      return awaitRead(node, other);
    }
    try {
      int port = lookup.port(dn);
      remember(node, port);
      mine.complete(port);
      return port;
    } catch (IOException | RuntimeException e) {
      mine.completeExceptionally(e);
      throw e;
    } finally {
      reading.remove(node, mine);
    }
  }

  private void remember(String node, int port) {
    cache.put(node, new long[] {port, System.currentTimeMillis() + TTL_MS});
    Integer before = lastSeen.put(node, port);
    if (before != null && before != port) {
      moves.warn("wide-ec: DataNode {} moved its slice port from {} to {} (it restarted); its peers dial it there",
          node, before, port);
    }
  }

  /** Another thread's read of the node's page, waited for at most as long as one read may take. */
  private int awaitRead(String node, CompletableFuture<Integer> read) throws IOException {
    long ms = readMs(1);
    try {
      return read.get(ms, TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      throw e.getCause() instanceof IOException io ? io : new IOException(notFound(node, e.getCause().toString()), e);
    } catch (TimeoutException e) {
      throw new IOException(notFound(node, "its page did not answer within " + ms + " ms"));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new java.io.InterruptedIOException(notFound(node, "interrupted"));
    }
  }

  /**
   * Reads the slice ports of {@code dns} that are not remembered, at once on at most {@link #LOOKUP_THREADS} threads,
   * so that {@link #resolve} then answers each from memory: a NameNode pass whose orders name a few dozen DataNodes
   * otherwise reads their pages one after the other (45 reads, 0.7 s, before the first order of a cold node-loss
   * recovery could leave). Waits at most as long as the reads may take; a page that answers later is still remembered.
   *
   * @return why each DataNode whose port was not found was not, by transfer address; nothing else is thrown
   * @throws InterruptedException when interrupted while waiting
   */
  public Map<String, IOException> prefetch(Collection<DatanodeInfo> dns) throws InterruptedException {
    Map<String, Future<Integer>> asked = new LinkedHashMap<>();
    Map<String, IOException> failed = new HashMap<>();
    long now = System.currentTimeMillis();
    for (DatanodeInfo dn : dns) {
      String node = dn.getXferAddr();
      long[] hit = cache.get(node);
      if (asked.containsKey(node) || (hit != null && hit[1] >= now)) {
        continue;
      }
      try {
        asked.put(node, lookups.submit(() -> port(node, dn)));
      } catch (RejectedExecutionException e) {
        failed.put(node, new IOException(notFound(node, "this resolver is closed")));
      }
    }
    long ms = readMs((asked.size() + LOOKUP_THREADS - 1) / LOOKUP_THREADS);
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ms);
    for (Map.Entry<String, Future<Integer>> a : asked.entrySet()) {
      try {
        a.getValue().get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      } catch (ExecutionException e) {
        failed.put(a.getKey(), e.getCause() instanceof IOException io ? io
            : new IOException(notFound(a.getKey(), e.getCause().toString()), e.getCause()));
      } catch (TimeoutException e) {
        failed.put(a.getKey(), new IOException(notFound(a.getKey(), "no answer within " + ms + " ms")));
      }
    }
    return failed;
  }

  /** How long {@code rounds} reads one after the other may take: each a connect and a read, within the timeout each. */
  private long readMs(int rounds) {
    return 2L * timeoutMs * Math.max(1, rounds) + 1000;
  }

  private static String notFound(String node, String why) {
    return "cannot discover the slice port of DataNode " + node + ": " + why;
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

  /** Releases the HTTPS trust material, if any, and the lookup threads. */
  public void close() {
    lookups.shutdownNow();
    if (connections != null) {
      connections.destroy();
    }
  }
}
