package org.wideec.datanode;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URL;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.wideec.repair.EndpointResolver;
import org.wideec.repair.UnitLocation;
import org.wideec.transport.Endpoint;

/**
 * Finds a DataNode's slice port on its /jmx page ({@link SliceEndpointMXBean}); remembers answers for ten
 * minutes, or until a repair blames the node (a restarted DataNode listens on a new port).
 */
public final class JmxEndpointResolver {
  private static final long TTL_MS = 600_000;
  private static final ObjectMapper JSON = new ObjectMapper();
  private final Map<String, long[]> cache = new ConcurrentHashMap<>(); // node -> {port, expiry}
  private final int timeoutMs;

  public JmxEndpointResolver(int timeoutMs) {
    this.timeoutMs = timeoutMs;
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

  public Endpoint resolve(UnitLocation loc, DatanodeInfo dn) throws IOException {
    if (dn == null) {
      throw new IOException("no DataNode known at " + loc.node());
    }
    long now = System.currentTimeMillis();
    long[] hit = cache.get(loc.node());
    if (hit == null || hit[1] < now) {
      hit = new long[] {fetchPort(dn), now + TTL_MS};
      cache.put(loc.node(), hit);
    }
    return new Endpoint(dn.getIpAddr(), (int) hit[0], loc.node(), loc.rack());
  }

  public void forget(String node) {
    cache.remove(node);
  }

  private int fetchPort(DatanodeInfo dn) throws IOException {
    return bean(dn).get("SlicePort").asInt();
  }

  /**
   * The DataNode's {@link SliceEndpointMXBean} as its /jmx page shows it (SlicePort, Authentication, Shaping).
   *
   * @throws IOException when it cannot be read or the DataNode runs no repair worker
   */
  public JsonNode bean(DatanodeInfo dn) throws IOException {
    String url = "http://" + dn.getIpAddr() + ":" + dn.getInfoPort() + "/jmx?qry=Hadoop:service=DataNode,name="
        + beanName(dn.getXferPort());
    HttpURLConnection c = (HttpURLConnection) new URL(url).openConnection();
    c.setConnectTimeout(timeoutMs);
    c.setReadTimeout(timeoutMs);
    try (InputStream in = c.getInputStream()) {
      JsonNode beans = JSON.readTree(in).path("beans");
      if (beans.size() == 0 || !beans.get(0).has("SlicePort")) {
        throw new IOException("DataNode " + dn.getXferAddr() + " runs no wide-ec repair worker (nothing at " + url
            + "); add org.wideec.datanode.WideEcDataNodePlugin to its dfs.datanode.plugins");
      }
      return beans.get(0);
    } catch (IOException e) {
      throw new IOException("cannot discover the slice port of DataNode " + dn.getXferAddr() + ": " + e.getMessage(), e);
    } finally {
      c.disconnect();
    }
  }
}
