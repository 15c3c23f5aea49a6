package org.wideec.placement.hdfs;

import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.wideec.config.ConfigValues;
import org.wideec.datanode.RepairWorkerConf;
import org.wideec.repair.RepairScheme;
import org.wideec.repair.UnusableHelpers;

/**
 * The archive repair monitor's settings: how many rebuild orders at once, how long a failed block waits, how long a
 * rebuilt block may take to show up live, how long after a start it rebuilds in safe mode, and how the DataNodes
 * repair (which only costs orders here). Read and checked once, when the monitor starts.
 *
 * @param maxConcurrent rebuild orders at once
 * @param backoff the first wait after a failed rebuild, ms
 * @param maxBackoff the longest wait after repeated failures, ms
 * @param confirmTimeout how long a stored unit may take to be listed live at the NameNode, ms
 * @param safeModeWait how long after the start the monitor waits before it rebuilds in startup safe mode, ms
 * @param avoidMs how long a DataNode found unusable is left out of orders, ms
 */
record ArchiveRepairSettings(int maxConcurrent, long backoff, long maxBackoff, long confirmTimeout, long safeModeWait,
    long avoidMs) {
  static final String ENABLED_KEY = "wide-ec.archive.repair.enabled";
  static final String INTERVAL_KEY = "wide-ec.archive.repair.interval.ms";
  static final long INTERVAL_DEFAULT = 10_000;
  static final String MAX_CONCURRENT_KEY = "wide-ec.archive.repair.max-concurrent";
  static final int MAX_CONCURRENT_DEFAULT = 4;
  static final String BACKOFF_KEY = "wide-ec.archive.repair.backoff.ms";
  static final long BACKOFF_DEFAULT = 30_000;
  static final String CONFIRM_KEY = "wide-ec.archive.repair.confirm.timeout.ms";
  static final long CONFIRM_DEFAULT = 30_000;
  static final String MAX_BACKOFF_KEY = "wide-ec.archive.repair.backoff.max.ms";
  static final long MAX_BACKOFF_DEFAULT = 3_600_000;
  static final String SAFEMODE_WAIT_KEY = "wide-ec.archive.repair.safemode.wait.ms";
  private static final Logger LOG = LoggerFactory.getLogger(ArchiveRepairMonitor.class);

  /**
   * The settings, checked before anything starts.
   *
   * @throws IllegalArgumentException naming the key whose value is wrong
   */
  static ArchiveRepairSettings from(Configuration conf) {
    int max = ConfigValues.intIn(conf, MAX_CONCURRENT_KEY, MAX_CONCURRENT_DEFAULT, 1, Integer.MAX_VALUE);
    long backoff = ConfigValues.positiveMillis(conf, BACKOFF_KEY, BACKOFF_DEFAULT);
    long confirm = ConfigValues.positiveMillis(conf, CONFIRM_KEY, CONFIRM_DEFAULT);
    long maxBackoff = maxBackoff(conf);
    if (maxBackoff < backoff) {
      throw new IllegalArgumentException(MAX_BACKOFF_KEY + " (" + maxBackoff + ") must be at least " + BACKOFF_KEY
          + " (" + backoff + ")");
    }
    return new ArchiveRepairSettings(max, backoff, maxBackoff, confirm, safeModeWait(conf),
        conf.getLong(UnusableHelpers.AVOID_KEY, UnusableHelpers.AVOID_DEFAULT_MS));
  }

  /**
   * How long after the NameNode started the monitor waits before it rebuilds in startup safe mode: a block the
   * registered DataNodes do not list may still be on a node that has not registered yet. The key, or unset, the
   * time HDFS takes to declare a silent DataNode dead (2 x dfs.namenode.heartbeat.recheck-interval + 10 x
   * dfs.heartbeat.interval, 10.5 minutes by default): a node not heard from for that long is dead by HDFS's own rule.
   */
  static long safeModeWait(Configuration conf) {
    long set = conf.getLong(SAFEMODE_WAIT_KEY, -1);
    if (set >= 0) {
      return set;
    }
    long recheck = conf.getInt(DFSConfigKeys.DFS_NAMENODE_HEARTBEAT_RECHECK_INTERVAL_KEY,
        DFSConfigKeys.DFS_NAMENODE_HEARTBEAT_RECHECK_INTERVAL_DEFAULT);
    long heartbeat = conf.getTimeDuration(DFSConfigKeys.DFS_HEARTBEAT_INTERVAL_KEY,
        DFSConfigKeys.DFS_HEARTBEAT_INTERVAL_DEFAULT, TimeUnit.SECONDS);
    return 2 * recheck + 10_000 * heartbeat;
  }

  /**
   * The DataNodes' repair scheme, which only costs orders here. A value the DataNodes themselves refuse (their worker
   * then stays off, each saying why) must not turn the repair monitor off too: the default is costed instead.
   */
  static RepairScheme dataNodeScheme(Configuration conf) {
    try {
      return ConfigValues.oneOf(conf, RepairWorkerConf.SCHEME, RepairWorkerConf.DEFAULT_SCHEME);
    } catch (IllegalArgumentException e) {
      LOG.warn("wide-ec archive repair costs rebuild orders by the default {} repair scheme: {}",
          RepairWorkerConf.DEFAULT_SCHEME, e.getMessage());
      return RepairWorkerConf.DEFAULT_SCHEME;
    }
  }

  /**
   * The longest back-off: the key, or unset, an hour, or the first back-off if that is longer (a site that waited
   * more than an hour between attempts before this key existed keeps working). At most a year, so that doubling it
   * and adding it to System.nanoTime() never wrap.
   */
  static long maxBackoff(Configuration conf) {
    long set = conf.getLong(MAX_BACKOFF_KEY, -1);
    long max = set >= 0 ? set : Math.max(MAX_BACKOFF_DEFAULT, conf.getLong(BACKOFF_KEY, BACKOFF_DEFAULT));
    return Math.min(max, TimeUnit.DAYS.toMillis(365));
  }
}
