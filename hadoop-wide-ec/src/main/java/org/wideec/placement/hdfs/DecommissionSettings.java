package org.wideec.placement.hdfs;

import org.apache.hadoop.conf.Configuration;
import org.wideec.config.ConfigValues;
import org.wideec.repair.LinkRates;

/**
 * How the NameNode plugin decommissions by local reconstruction ({@link LeavingNodeUnits}), read once at start.
 *
 * @param enabled whether units on leaving DataNodes are rebuilt by our worker (false: HDFS copies them, stock)
 * @param maxConcurrent rebuild orders for units of block groups on leaving DataNodes running at once
 * @param blocksPerPass blocks of the leaving DataNodes' storages one pass walks, at most: the walk resumes there at the
 *     next pass, so a node with millions of blocks is covered over several passes
 * @param rates the NIC and rack link speeds each unit's copy from its leaving node is priced against its rebuild at;
 *     null (either key 0): every unit the other units can rebuild is rebuilt
 */
public record DecommissionSettings(boolean enabled, int maxConcurrent, int blocksPerPass, LinkRates rates) {
  static final String ENABLED_KEY = "wide-ec.decommission.enabled";
  static final String MAX_CONCURRENT_KEY = "wide-ec.decommission.max-concurrent";
  static final int MAX_CONCURRENT_DEFAULT = 8;
  static final String BLOCKS_PER_PASS_KEY = "wide-ec.decommission.blocks-per-pass";
  /**
   * A pass every 10 s walks at most 300,000 blocks per 30 s, below the 500,000 HDFS's own decommission monitor checks
   * per 30 s interval by default (dfs.namenode.decommission.blocks.per.interval).
   */
  static final int BLOCKS_PER_PASS_DEFAULT = 100_000;
  public static final String NODE_RATE_KEY = "wide-ec.decommission.link.node.bytes-per-second";
  /** A 10 Gbit/s NIC. */
  static final long NODE_RATE_DEFAULT = 1_250_000_000L;
  public static final String RACK_RATE_KEY = "wide-ec.decommission.link.rack.bytes-per-second";
  /** A rack of 20 such nodes behind 1:5 oversubscription: 40 Gbit/s to the core. */
  static final long RACK_RATE_DEFAULT = 5_000_000_000L;

  /** @throws IllegalArgumentException naming the key whose value is wrong */
  static DecommissionSettings from(Configuration conf) {
    return new DecommissionSettings(conf.getBoolean(ENABLED_KEY, true),
        ConfigValues.intIn(conf, MAX_CONCURRENT_KEY, MAX_CONCURRENT_DEFAULT, 1, Integer.MAX_VALUE),
        ConfigValues.intIn(conf, BLOCKS_PER_PASS_KEY, BLOCKS_PER_PASS_DEFAULT, 1, Integer.MAX_VALUE), rates(conf));
  }

  /**
   * The link speeds decommission plans are priced at; null when either key is 0 (every unit the others can rebuild
   * is rebuilt, whatever it costs).
   *
   * @throws IllegalArgumentException naming the key whose value is wrong
   */
  public static LinkRates rates(Configuration conf) {
    long node = ConfigValues.bytesAtLeast(conf, NODE_RATE_KEY, NODE_RATE_DEFAULT, 0);
    long rack = ConfigValues.bytesAtLeast(conf, RACK_RATE_KEY, RACK_RATE_DEFAULT, 0);
    return node == 0 || rack == 0 ? null : new LinkRates(node, rack);
  }
}
