package org.wideec.scrub.hdfs;

import org.apache.hadoop.conf.Configuration;
import org.wideec.config.ConfigValues;

/**
 * The continuous scrubber's settings, read and checked once when the NameNode plugin starts it. How fast a pass reads
 * is not here: each DataNode paces its own summaries per volume ({@code wide-ec.scrub.bytes-per-second}), so a disk
 * gives scrubs at most that rate whoever asks.
 *
 * @param enabled whether the NameNode runs the scrubber at all
 * @param interval ms from the end of one pass over every stripe to the start of the next
 * @param repair whether a unit at fault is reported corrupt so it is rebuilt from the units that agree
 */
public record ScrubSettings(boolean enabled, long interval, boolean repair) {
  public static final String ENABLED_KEY = "wide-ec.scrub.enabled";
  /** Off by default: a pass reads every stored unit once, which an operator schedules knowingly. */
  public static final boolean ENABLED_DEFAULT = false;
  public static final String INTERVAL_KEY = "wide-ec.scrub.interval.ms";
  /** A week between passes: HDFS's own block scanner revisits a volume every three weeks by default. */
  public static final long INTERVAL_DEFAULT = 7L * 24 * 3600 * 1000;
  public static final String REPAIR_KEY = "wide-ec.scrub.repair";
  /**
   * On by default: a named unit is one whose summary alone breaks the code's relations, and its repair only reports
   * the replicas that disagree (never rewrites one), as HDFS's readers report a checksum failure.
   */
  public static final boolean REPAIR_DEFAULT = true;

  /** @throws IllegalArgumentException naming the key whose value is wrong */
  public static ScrubSettings from(Configuration conf) {
    return new ScrubSettings(ConfigValues.bool(conf, ENABLED_KEY, ENABLED_DEFAULT),
        ConfigValues.positiveMillis(conf, INTERVAL_KEY, INTERVAL_DEFAULT),
        ConfigValues.bool(conf, REPAIR_KEY, REPAIR_DEFAULT));
  }
}
