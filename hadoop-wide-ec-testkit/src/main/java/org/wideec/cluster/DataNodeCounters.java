package org.wideec.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.HdfsConstants.DatanodeReportType;
import org.wideec.datanode.JmxEndpointResolver;

/**
 * What the DataNodes count about reconstruction, summed over the live ones from their /jmx pages: HDFS's own
 * (DataNodeActivity: EcReconstruction*) and our worker's (WideEcRepair-PORT). A DataNode that restarts starts from
 * zero, so callers take differences over phases whose DataNodes stay up, leaving out the ones they kill.
 */
final class DataNodeCounters {
  static final String[] HDFS = {"EcReconstructionTasks", "EcFailedReconstructionTasks", "EcReconstructionBytesRead",
      "EcReconstructionRemoteBytesRead", "EcReconstructionBytesWritten"};
  static final String[] OURS = {"TasksCompleted", "TasksHandedToStock", "TasksAbandoned", "RepairsSucceeded",
      "BytesReadLocally", "BytesSentInRack", "BytesSentCrossRack", "EncodeParityBytesWritten", "EncodeParityBytesCrossRack"};

  private final DistributedFileSystem fs;
  private final JmxEndpointResolver jmx;

  DataNodeCounters(DistributedFileSystem fs, JmxEndpointResolver jmx) {
    this.fs = fs;
    this.jmx = jmx;
  }

  /** Every counter of both sets, summed over the live DataNodes not in {@code leftOut} (transfer addresses). */
  Map<String, Long> sum(Set<String> leftOut) throws IOException {
    Map<String, Long> total = new LinkedHashMap<>();
    for (String k : HDFS) {
      total.put("hdfs" + k, 0L);
    }
    for (String k : OURS) {
      total.put("wideEc" + k, 0L);
    }
    for (DatanodeInfo dn : fs.getDataNodeStats(DatanodeReportType.LIVE)) {
      if (leftOut.contains(dn.getXferAddr())) {
        continue;
      }
      String base = "http://" + dn.getIpAddr() + ":" + dn.getInfoPort() + "/jmx?qry=Hadoop:service=DataNode,name=";
      add(total, "hdfs", jmx.firstBean(base + "DataNodeActivity-*"), HDFS);
      add(total, "wideEc", jmx.firstBean(base + "WideEcRepair-" + dn.getXferPort()), OURS);
    }
    return total;
  }

  /** Whether the DataNode's web UI answers (its counters can be read). */
  boolean serving(DatanodeInfo dn) {
    try {
      jmx.firstBean("http://" + dn.getIpAddr() + ":" + dn.getInfoPort() + "/jmx?qry=Hadoop:service=DataNode,name=DataNodeActivity-*");
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  private static void add(Map<String, Long> total, String prefix, JsonNode bean, String[] names) {
    if (bean == null) {
      return;
    }
    for (String k : names) {
      total.merge(prefix + k, bean.path(k).asLong(), Long::sum);
    }
  }

  /** after - before, key by key. */
  static Map<String, Long> delta(Map<String, Long> before, Map<String, Long> after) {
    Map<String, Long> d = new LinkedHashMap<>();
    after.forEach((k, v) -> d.put(k, v - before.getOrDefault(k, 0L)));
    return d;
  }
}
