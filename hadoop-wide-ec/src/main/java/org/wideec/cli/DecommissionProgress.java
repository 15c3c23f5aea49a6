package org.wideec.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.DFSUtil;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.HAUtil;
import org.wideec.datanode.JmxEndpointResolver;

/**
 * The decommission by our workers as the active NameNode's WideEc bean says (its /jmx page): DataNodes leaving, units
 * still held only on them, units moved elsewhere and their bytes (those our workers copied from the leaving node
 * among them), units left to HDFS's copy from the leaving node, failed orders. What {@code wide-ec status} and {@code wide-ec decommission} show.
 *
 * @param running whether the NameNode's archive repair monitor runs (the decommission runs within it)
 */
record DecommissionProgress(boolean running, long nodes, long unitsLeft, long unitsRebuilt, long bytesRebuilt,
    long fromLeavingNode, long failures, long unitsCopied) {

  /** The active NameNode's WideEc bean, or null when it has none (the plugin is not configured). */
  static JsonNode wideEcBean(DistributedFileSystem dfs) throws IOException {
    Configuration conf = dfs.getConf();
    JmxEndpointResolver jmx = new JmxEndpointResolver(conf, 10_000);
    try {
      String web = DFSUtil.getInfoServer(HAUtil.getAddressOfActive(dfs), conf, DFSUtil.getHttpClientScheme(conf))
          .toString();
      return jmx.firstBean(web + "/jmx?qry=" + SafeModeNotice.BEAN);
    } finally {
      jmx.close();
    }
  }

  /** @throws IOException when the NameNode's /jmx page cannot be read */
  static DecommissionProgress of(DistributedFileSystem dfs) throws IOException {
    JsonNode b = wideEcBean(dfs);
    if (b == null) {
      return new DecommissionProgress(false, 0, 0, 0, 0, 0, 0, 0);
    }
    return new DecommissionProgress(b.path("ArchiveRepairRunning").asLong(0) == 1 && b.has("DecommissionNodes"),
        b.path("DecommissionNodes").asLong(0), b.path("DecommissionUnitsLeft").asLong(0),
        b.path("DecommissionUnitsRebuilt").asLong(0), b.path("DecommissionBytesRebuilt").asLong(0),
        b.path("DecommissionUnitsFromLeavingNode").asLong(0), b.path("DecommissionRebuildFailures").asLong(0),
        b.path("DecommissionUnitsCopied").asLong(0));
  }

  /** One line for people. */
  String line() {
    if (!running) {
      return "decommission: no wide-ec decommission runs on the NameNode (its archive repair monitor is off, or"
          + " wide-ec.decommission.enabled is false): HDFS copies every unit from a leaving DataNode";
    }
    return String.format("decommission: %d DataNode(s) leaving, %,d unit(s) still only on them; %,d moved elsewhere by"
        + " our workers (%,d bytes; %,d of them copied from the leaving node, the others rebuilt by local"
        + " reconstruction), %,d left to HDFS's copy from the leaving node, %,d failed rebuild(s) (since the NameNode"
        + " started)", nodes, unitsLeft, unitsRebuilt, bytesRebuilt, unitsCopied, fromLeavingNode, failures);
  }

  Map<String, Object> toJson() {
    Map<String, Object> j = new LinkedHashMap<>();
    j.put("running", running);
    j.put("leavingDataNodes", nodes);
    j.put("unitsLeft", unitsLeft);
    j.put("unitsRebuilt", unitsRebuilt);
    j.put("bytesRebuilt", bytesRebuilt);
    j.put("unitsCopied", unitsCopied);
    j.put("unitsFromLeavingNode", fromLeavingNode);
    j.put("rebuildFailures", failures);
    return j;
  }
}
