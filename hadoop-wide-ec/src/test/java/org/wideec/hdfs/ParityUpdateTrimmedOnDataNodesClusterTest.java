package org.wideec.hdfs;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.DFSConfigKeys;

/**
 * {@link ParityUpdateTrimmedClusterTest} with block tokens on, so the DataNodes compute the new parity of the trimmed
 * stripe (one replica per data unit, each read where it is kept): the codes' losses are then rebuilt from that parity.
 */
class ParityUpdateTrimmedOnDataNodesClusterTest extends ParityUpdateTrimmedClusterTest {
  @Override
  Configuration baseConf() {
    Configuration c = super.baseConf();
    c.setBoolean(DFSConfigKeys.DFS_BLOCK_ACCESS_TOKEN_ENABLE_KEY, true);
    return c;
  }

  @Override
  String executor() {
    return "datanode";
  }
}
