package org.wideec.placement.hdfs;

import org.apache.hadoop.conf.Configuration;
import org.wideec.config.ConfigValues;

/**
 * How the NameNode plugin decommissions by local reconstruction ({@link LeavingNodeUnits}), read once at start.
 *
 * @param enabled whether units on leaving DataNodes are rebuilt by our worker (false: HDFS copies them, stock)
 * @param maxConcurrent rebuild orders for units of block groups on leaving DataNodes running at once
 * @param blocksPerPass blocks of the leaving DataNodes' storages one pass walks, at most: the walk resumes there at the
 *     next pass, so a node with millions of blocks is covered over several passes
 */
record DecommissionSettings(boolean enabled, int maxConcurrent, int blocksPerPass) {
  static final String ENABLED_KEY = "wide-ec.decommission.enabled";
  static final String MAX_CONCURRENT_KEY = "wide-ec.decommission.max-concurrent";
  static final int MAX_CONCURRENT_DEFAULT = 8;
  static final String BLOCKS_PER_PASS_KEY = "wide-ec.decommission.blocks-per-pass";
  /**
   * A pass every 10 s walks at most 300,000 blocks per 30 s, below the 500,000 HDFS's own decommission monitor checks
   * per 30 s interval by default (dfs.namenode.decommission.blocks.per.interval).
   */
  static final int BLOCKS_PER_PASS_DEFAULT = 100_000;

  /** @throws IllegalArgumentException naming the key whose value is wrong */
  static DecommissionSettings from(Configuration conf) {
    return new DecommissionSettings(conf.getBoolean(ENABLED_KEY, true),
        ConfigValues.intIn(conf, MAX_CONCURRENT_KEY, MAX_CONCURRENT_DEFAULT, 1, Integer.MAX_VALUE),
        ConfigValues.intIn(conf, BLOCKS_PER_PASS_KEY, BLOCKS_PER_PASS_DEFAULT, 1, Integer.MAX_VALUE));
  }
}
