package org.wideec.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URL;
import java.net.URLConnection;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.DFSUtil;
import org.apache.hadoop.hdfs.DFSUtilClient;
import org.apache.hadoop.hdfs.HAUtilClient;
import org.apache.hadoop.hdfs.client.HdfsClientConfigKeys;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.web.URLConnectionFactory;
import org.apache.hadoop.net.NetUtils;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.security.authentication.client.AuthenticationException;

/**
 * The live DataNodes as the NameNode's web UI lists them (the NameNodeInfo bean's LiveNodes, which HDFS shows to any
 * user its HTTP server admits): how a client finds a DataNode to ask for a degraded read when the file it reads
 * has no other block, and so no location, of its own. HDFS's datanode report would say the same but is for
 * superusers only. Answers are kept for a minute.
 */
public final class LiveDataNodes {
  static final long TTL_MS = 60_000;
  private static final ObjectMapper JSON = new ObjectMapper();
  private final Configuration conf;
  private final URI fsUri;
  private final URLConnectionFactory connections;
  private List<DatanodeInfo> nodes = List.of();
  private long expires;

  public LiveDataNodes(Configuration conf, URI fsUri, int timeoutMs) {
    this.conf = conf;
    this.fsUri = fsUri;
    this.connections = URLConnectionFactory.newDefaultURLConnectionFactory(timeoutMs, timeoutMs, conf);
  }

  /** Forgets the list: the next {@link #get} asks the NameNode again (a DataNode joined or restarted). */
  public synchronized void invalidate() {
    expires = 0;
  }

  /** Live, in-service DataNodes; the NameNodes are asked in turn (HA: any of them knows every DataNode). */
  public synchronized List<DatanodeInfo> get() throws IOException {
    if (System.currentTimeMillis() < expires) {
      return nodes;
    }
    IOException last = null;
    for (InetSocketAddress nn : nameNodes()) {
      URI web = DFSUtil.getInfoServer(nn, conf, DFSUtil.getHttpClientScheme(conf));
      try {
        nodes = fetch(new URL(web + "/jmx?qry=Hadoop:service=NameNode,name=NameNodeInfo"));
        expires = System.currentTimeMillis() + TTL_MS;
        return nodes;
      } catch (IOException e) {
        last = e;
      }
    }
    throw new IOException("cannot list the live DataNodes from the NameNode's web UI", last);
  }

  private List<InetSocketAddress> nameNodes() throws IOException {
    if (HAUtilClient.isLogicalUri(conf, fsUri)) {
      Map<String, InetSocketAddress> ha = DFSUtilClient.getHaNnRpcAddresses(conf).get(fsUri.getHost());
      return ha == null ? List.of() : new ArrayList<>(ha.values());
    }
    return List.of(NetUtils.createSocketAddr(fsUri.getAuthority(), HdfsClientConfigKeys.DFS_NAMENODE_RPC_PORT_DEFAULT));
  }

  private List<DatanodeInfo> fetch(URL url) throws IOException {
    URLConnection c = null;
    try {
      c = connections.openConnection(url, UserGroupInformation.isSecurityEnabled());
      try (InputStream in = c.getInputStream()) {
        JsonNode beans = JSON.readTree(in).path("beans");
        if (beans.size() == 0 || !beans.get(0).has("LiveNodes")) {
          throw new IOException("no LiveNodes at " + url);
        }
        JsonNode live = JSON.readTree(beans.get(0).get("LiveNodes").asText());
        List<DatanodeInfo> out = new ArrayList<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = live.fields(); it.hasNext(); ) {
          JsonNode n = it.next().getValue();
          if (!"In Service".equalsIgnoreCase(n.path("adminState").asText("In Service"))) {
            continue;
          }
          InetSocketAddress xfer = NetUtils.createSocketAddr(n.path("xferaddr").asText());
          InetSocketAddress info = NetUtils.createSocketAddr(n.path("infoAddr").asText());
          String secure = n.path("infoSecureAddr").asText("");
          int securePort = secure.isEmpty() ? 0 : NetUtils.createSocketAddr(secure).getPort();
          out.add(new DatanodeInfo.DatanodeInfoBuilder().setIpAddr(xfer.getHostString())
              .setHostName(xfer.getHostString()).setXferPort(xfer.getPort()).setInfoPort(info.getPort())
              .setInfoSecurePort(securePort)
              .setNetworkLocation(n.path("location").asText("/default-rack")).setDatanodeUuid(n.path("uuid").asText())
              .build());
        }
        return out;
      }
    } catch (IOException | AuthenticationException | IllegalArgumentException e) {
      throw new IOException("cannot read the live DataNodes at " + url + ": " + e.getMessage(), e);
    } finally {
      if (c instanceof HttpURLConnection h) {
        h.disconnect();
      }
    }
  }

  public void close() {
    connections.destroy();
  }
}
