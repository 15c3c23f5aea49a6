package org.wideec.placement.hdfs;

import org.apache.hadoop.conf.Configuration;
import org.wideec.config.ConfigValues;

/**
 * How the NameNode plugin decommissions by local reconstruction ({@link LeavingUnitRebuilds}), read once at start.
 *
 * @param enabled whether units on leaving DataNodes are rebuilt by our worker (false: HDFS copies them, stock)
 * @param maxConcurrent rebuild orders for units of block groups on leaving DataNodes running at once
 */
record DecommissionSettings(boolean enabled, int maxConcurrent) {
  static final String ENABLED_KEY = "wide-ec.decommission.enabled";
  static final String MAX_CONCURRENT_KEY = "wide-ec.decommission.max-concurrent";
  static final int MAX_CONCURRENT_DEFAULT = 8;

  /** @throws IllegalArgumentException naming the key whose value is wrong */
  static DecommissionSettings from(Configuration conf) {
    return new DecommissionSettings(conf.getBoolean(ENABLED_KEY, true),
        ConfigValues.intIn(conf, MAX_CONCURRENT_KEY, MAX_CONCURRENT_DEFAULT, 1, Integer.MAX_VALUE));
  }
}
