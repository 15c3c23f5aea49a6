package org.wideec.client;

import java.io.Closeable;
import java.io.IOException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.net.NetUtils;
import org.wideec.datanode.JmxEndpointResolver;
import org.wideec.repair.UnitLocation;
import org.wideec.topology.Site;
import org.wideec.transport.SliceTransport;
import org.wideec.transport.TrafficCounters;
import org.wideec.transport.TransportConf;
import org.wideec.transport.hdfs.TransportConfReader;

/**
 * A FileSystem's own end of the DataNodes' slice ports, for the read paths that ask DataNodes to rebuild (pipelined
 * degraded reads, reads of archived blocks): the transport and the endpoint resolver, started on first use (a start
 * that failed is not retried), and this client as a requestor named by host and rack.
 */
final class ClientSlicePort implements Closeable {
  private final Configuration conf;
  private SliceTransport transport;
  private JmxEndpointResolver endpoints;
  private ExecutorService idle;
  private UnitLocation self;
  private IOException startFailure;
  private boolean closed;

  ClientSlicePort(Configuration conf) {
    this.conf = conf;
  }

  synchronized SliceTransport transport() throws IOException {
    if (closed) {
      throw new IOException("the FileSystem is closed");
    }
    if (startFailure != null) {
      throw new IOException(startFailure.getMessage(), startFailure);
    }
    if (transport == null) {
      try {
        TransportConf tc = TransportConfReader.forClient(conf);
        String host = NetUtils.getLocalHostname();
        self = new UnitLocation(-1, new Site("client " + host, ClientRack.of(conf, host)));
        // A client serves nothing: the executor only satisfies the constructor and never starts a thread.
        idle = Executors.newSingleThreadExecutor(r -> {
          Thread th = new Thread(r, "wide-ec-client-idle");
          th.setDaemon(true);
          return th;
        });
        endpoints = new JmxEndpointResolver(conf, tc.connectTimeoutMs());
        transport = new SliceTransport(tc, self.node(), TrafficCounters.NONE, idle);
      } catch (IOException | RuntimeException e) {
        startFailure = new IOException("cannot start the client's wide-ec slice transport: " + e.getMessage(), e);
        release();
        throw startFailure;
      }
    }
    return transport;
  }

  /** This client as the requestor of a repair (known once the transport started). */
  synchronized UnitLocation self() {
    return self;
  }

  synchronized JmxEndpointResolver endpoints() throws IOException {
    if (endpoints == null) {
      throw new IOException("the client's wide-ec slice transport is not running");
    }
    return endpoints;
  }

  synchronized JmxEndpointResolver endpointsOrNull() {
    return endpoints;
  }

  @Override
  public synchronized void close() {
    closed = true;
    release();
  }

  private void release() {
    if (transport != null) {
      transport.close();
      transport = null;
    }
    if (endpoints != null) {
      endpoints.close();
      endpoints = null;
    }
    if (idle != null) {
      idle.shutdownNow();
      idle = null;
    }
  }
}
