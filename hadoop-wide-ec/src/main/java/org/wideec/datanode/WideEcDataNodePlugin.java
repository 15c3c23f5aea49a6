package org.wideec.datanode;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import javax.management.ObjectName;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.metrics2.util.MBeans;
import org.apache.hadoop.util.Daemon;
import org.apache.hadoop.util.ServicePlugin;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.wideec.repair.HelperService;
import org.wideec.transport.SliceTransport;
import org.wideec.transport.TransportConf;

/**
 * The wide-ec repair worker inside a DataNode ({@code dfs.datanode.plugins}): serves as helper for repairs
 * (slice service over the local replicas), publishes its endpoint and metrics, and takes over the NameNode's
 * reconstruction tasks for block groups of our codecs. Misconfiguration disables it with one warning; the
 * DataNode then runs exactly as stock HDFS.
 */
public final class WideEcDataNodePlugin implements ServicePlugin {
  public static final String HELPER_THREADS = "wide-ec.repair.helper.threads";
  private static final Logger LOG = LoggerFactory.getLogger(WideEcDataNodePlugin.class);
  private static final Map<Integer, WideEcDataNodePlugin> RUNNING = new ConcurrentHashMap<>();
  private DataNode dn;
  private SliceTransport transport;
  private ThreadPoolExecutor helpers;
  private RepairMetrics metrics;
  private ObjectName bean;
  private int xferPort;
  private boolean takenOver;
  private JmxEndpointResolver endpoints;

  @Override
  public void start(Object service) {
    dn = (DataNode) service;
    xferPort = dn.getXferPort();
    TransportConf conf;
    try {
      conf = TransportConf.from(dn.getConf());
    } catch (java.io.IOException | IllegalArgumentException e) {
      LOG.warn("wide-ec repair worker disabled on {}: {}", dn.getDisplayName(), e.getMessage());
      return;
    }
    try {
      metrics = RepairMetrics.register("WideEcRepair-" + xferPort);
      helpers = new ThreadPoolExecutor(0, dn.getConf().getInt(HELPER_THREADS, 64), 60, TimeUnit.SECONDS,
          new SynchronousQueue<>(), r -> {
            Thread t = new Daemon(r);
            t.setName("wide-ec-helper-" + xferPort + "-" + t.getId());
            return t;
          });
      transport = new SliceTransport(conf, dn.getDisplayName(), metrics, helpers);
      int port = transport.start(new HelperService(transport, new FsDatasetUnitStore(dn), metrics));
      bean = MBeans.register("DataNode", JmxEndpointResolver.beanName(xferPort), new SliceEndpointMXBean() {
        @Override
        public int getSlicePort() {
          return port;
        }

        @Override
        public String getAuthentication() {
          return conf.handshake().authenticates() ? "hmac" : "none";
        }

        @Override
        public boolean isShaping() {
          return conf.shaper().enabled();
        }
      });
      endpoints = new JmxEndpointResolver(dn.getConf(), conf.connectTimeoutMs());
      RepairWorker worker = new RepairWorker(dn, transport, endpoints, metrics);
      takenOver = ReconstructionTakeover.install(dn, RepairWorker::ours, worker);
      RUNNING.put(xferPort, this);
    } catch (Exception e) {
      LOG.warn("wide-ec repair worker disabled on {}: {}", dn.getDisplayName(), e.toString());
      stop();
    }
  }

  @Override
  public void stop() {
    RUNNING.remove(xferPort, this);
    if (bean != null) {
      MBeans.unregister(bean);
      bean = null;
    }
    if (transport != null) {
      transport.close();
      transport = null;
    }
    if (helpers != null) {
      helpers.shutdownNow();
    }
    if (endpoints != null) {
      endpoints.close();
      endpoints = null;
    }
    if (metrics != null) {
      metrics.unregister();
      metrics = null;
    }
  }

  @Override
  public void close() {
    stop();
  }

  public RepairMetrics metrics() {
    return metrics;
  }

  /** This DataNode's slice transport (null when disabled): what in-process tools use to act as requestor. */
  public SliceTransport transport() {
    return transport;
  }

  public JmxEndpointResolver endpoints() {
    return endpoints;
  }

  public boolean tookOverReconstruction() {
    return takenOver;
  }

  /** The plugin running in the DataNode with this transfer port (in this JVM), or null. */
  public static WideEcDataNodePlugin running(int xferPort) {
    return RUNNING.get(xferPort);
  }
}
