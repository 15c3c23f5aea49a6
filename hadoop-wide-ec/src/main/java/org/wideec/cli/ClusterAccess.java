package org.wideec.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hdfs.DistributedFileSystem;

/** What the cluster commands share: the HDFS they talk to, and how a DataNode's worker bean reads. */
final class ClusterAccess {
  private ClusterAccess() {}

  /** fs.defaultFS as HDFS, or an error naming the command and what it got. */
  static DistributedFileSystem hdfs(Configuration conf, String command) throws IOException {
    FileSystem fs = FileSystem.get(conf);
    if (!(fs instanceof DistributedFileSystem dfs)) {
      throw new IllegalArgumentException(command + " needs HDFS as fs.defaultFS, not " + fs.getUri());
    }
    return dfs;
  }

  /** The worker's state from its bean: "running", or "off: " and why. */
  static String workerState(JsonNode bean) {
    String off = bean.path("DisabledReason").asText("");
    return off.isEmpty() ? "running" : "off: " + off;
  }
}
