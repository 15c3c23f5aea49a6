package org.wideec.hdfs;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.DFSConfigKeys;

/**
 * {@link FillTrimmedClusterTest} with block tokens on, so the DataNodes compute the fill's new parity over the trimmed
 * stripe (one replica per old data unit, read where it is kept): the filled file's loss is then rebuilt from it.
 */
class FillTrimmedOnDataNodesClusterTest extends FillTrimmedClusterTest {
  @Override
  Configuration baseConf() {
    Configuration c = super.baseConf();
    c.setBoolean(DFSConfigKeys.DFS_BLOCK_ACCESS_TOKEN_ENABLE_KEY, true);
    return c;
  }
}
