package org.wideec.placement.hdfs;

import org.apache.hadoop.conf.Configuration;
import org.wideec.config.ConfigValues;

/**
 * How the NameNode plugin rebuilds the lost units of our block groups ({@link DeadNodeUnits}), read once at start.
 *
 * @param enabled whether our workers rebuild them on the NameNode's order (false: HDFS's RedundancyMonitor schedules
 *     their reconstruction, stock)
 * @param maxConcurrent rebuild orders for lost units running at once
 */
record LostUnitSettings(boolean enabled, int maxConcurrent) {
  static final String ENABLED_KEY = "wide-ec.lost-units.enabled";
  static final String MAX_CONCURRENT_KEY = "wide-ec.lost-units.max-concurrent";
  /**
   * A lost node's units at once on a cluster of a few dozen DataNodes: each order is one requestor and its local
   * group's helpers, least recently selected, so 32 orders keep every node busy without queueing helper threads
   * (wide-ec.repair.helper.threads, 64 per DataNode).
   */
  static final int MAX_CONCURRENT_DEFAULT = 32;

  /** @throws IllegalArgumentException naming the key whose value is wrong */
  static LostUnitSettings from(Configuration conf) {
    return new LostUnitSettings(ConfigValues.bool(conf, ENABLED_KEY, true),
        ConfigValues.intIn(conf, MAX_CONCURRENT_KEY, MAX_CONCURRENT_DEFAULT, 1, Integer.MAX_VALUE));
  }
}
