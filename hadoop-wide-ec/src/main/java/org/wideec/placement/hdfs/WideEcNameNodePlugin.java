package org.wideec.placement.hdfs;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.server.blockmanagement.WideEcGroupRiskScanner;
import org.apache.hadoop.hdfs.server.namenode.FSNamesystem;
import org.apache.hadoop.hdfs.server.namenode.NameNode;
import org.apache.hadoop.util.ServicePlugin;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.wideec.config.ConfigValues;
import org.wideec.archive.hdfs.TrimProtocol;
import org.wideec.placement.PlacementConf;
import org.wideec.placement.StripedPlacement;

/**
 * NameNode plugin ({@code dfs.namenode.plugins}). It gives {@link
 * org.apache.hadoop.hdfs.server.blockmanagement.WideEcBlockPlacementPolicy} access to the namesystem (from which it
 * learns each file's erasure-coding policy), and every {@code wide-ec.namenode.scan.interval.ms} (default 10000)
 * its {@link NameNodeScanner} checks, off any NameNode thread:
 * <ul>
 *   <li>the policies of our codecs: one clear error per policy whose (k, m) defines no code (HDFS accepts any
 *       registered codec in {@code -addPolicies}; such a group is placed by the stock policy and cannot be
 *       written by clients, but never fails inside the NameNode);</li>
 *   <li>block groups in HDFS's low-redundancy queue whose true remaining tolerance is 0 or less: one log line
 *       each ({@link AtRiskLog}; the placement of a group's repair reports it at once, the scan catches groups
 *       still waiting for a target), the gauges of {@link WideEcNameNodeMetrics}, and a move of the group's
 *       reconstruction to HDFS's highest priority ({@link WideEcGroupRiskScanner#prioritise}).</li>
 *   <li>block groups whose loss HDFS's own reconstructor cannot rebuild and whose reconstruction outlived a pending
 *       timeout unchanged ({@link StockRepairWatch}): one error each with the reason, and a gauge.</li>
 * </ul>
 * With {@code org.apache.hadoop.hdfs.server.blockmanagement.WideEcReplicaPlacementPolicy} as
 * {@code dfs.block.replicator.classname}, it also runs the {@link ArchiveTrimmer} (own thread), which trims archived
 * data blocks to their planned replica once the archiver lowers their files to replication 1. Unless
 * {@code wide-ec.archive.repair.enabled} is false it runs the {@link ArchiveRepairMonitor} (own thread), which rebuilds
 * lost blocks of archived stripes under their original ids through the DataNodes' wide-ec workers, and unless
 * {@code wide-ec.archive.keeper.enabled} is false the {@link ArchivePlacementKeeper} (own thread), which pins archived
 * replicas on plan and moves blocks off plan back. Always (no slice transport, no secret needed) it runs the {@link
 * ArchiveReprotector} (own thread), which raises the other files of a stripe whose members changed since archival
 * until the stripe survives the losses its code claims: protection never waits on the repair monitor's settings. With
 * {@code wide-ec.scrub.enabled} it runs the {@link ContinuousScrubber} (own thread), which checks every stored
 * stripe from its units' summaries and has units at fault rebuilt.
 *
 * <p>It also puts {@link SealedPartsProvider} in force, wrapping the configured attribute provider: a sealed file's
 * codewords and reader's index are readable to whoever may read the sealed file at its current path, decided by the
 * NameNode at each read; once per start it makes every sealed file's parts the superuser's alone and linked.
 */
public final class WideEcNameNodePlugin implements ServicePlugin {
  public static final String SCAN_INTERVAL_KEY = "wide-ec.namenode.scan.interval.ms";
  public static final long SCAN_INTERVAL_DEFAULT = 10_000;
  private static final Logger LOG = LoggerFactory.getLogger(WideEcNameNodePlugin.class);
  private static volatile WideEcNameNodeMetrics current;

  private volatile WideEcNameNodeMetrics metrics;
  private volatile NameNode nn;
  private volatile NameNodeScanner scanner;
  private volatile ArchiveTrimmer trimmer;
  private volatile ArchiveRepairMonitor repairs;
  private volatile ArchivePlacementKeeper keeper;
  private volatile ArchiveReprotector reprotector;
  private volatile SealedPartsProvider sealedParts;
  private volatile ContinuousScrubber scrubber;
  private static volatile ContinuousScrubber currentScrubber;

  /**
   * The running plugin's continuous scrubber (one NameNode per JVM in production; the last started in tests), or null
   * when it is off: {@link ContinuousScrubber#passNow} runs a pass at once.
   */
  public static ContinuousScrubber scrubber() {
    return currentScrubber;
  }

  /** The running plugin's metrics (one NameNode per JVM in production; the last started in tests), or null. */
  public static WideEcNameNodeMetrics metrics() {
    return current;
  }

  @Override
  public void start(Object service) {
    if (!(service instanceof NameNode node)) {
      LOG.error("WideEcNameNodePlugin runs in a NameNode, not in {}; it stays off", service);
      return;
    }
    try {
      nn = node;
      Configuration conf = nn.getConf();
      FSNamesystem fsn = nn.getNamesystem();
      NamespaceAccess.set(fsn);
      org.wideec.config.UnknownKeys.warn(conf, "NameNode");
      sealedParts = SealedPartsProvider.install(fsn, conf);
      long interval = scanInterval(conf);
      try {
        PlacementConf.scheme(conf.get(StripedPlacement.SCHEME_KEY));
      } catch (RuntimeException e) {
        LOG.error("{}; block groups of our codecs are placed by the stock policy", e.getMessage());
      }
      AtRiskLog.reset();
      metrics = WideEcNameNodeMetrics.registerReplacing();
      current = metrics;
      NameNodeScanner sc = new NameNodeScanner(nn, fsn, conf, metrics, interval);
      sc.start(null);
      scanner = sc;
      startTrimmer(nn, fsn, conf);
      startRepairMonitor(nn, fsn, conf);
      startKeeper(nn, fsn, conf);
      startReprotector(nn, fsn, conf);
      startScrubber(nn, fsn, conf);
      LOG.info("wide-ec placement sees the namesystem; block groups of our codecs are placed by plan and checked"
          + " every {} ms", interval);
    } catch (RuntimeException | LinkageError e) {
      LOG.error("WideEcNameNodePlugin failed to start; placement is stock and groups are not checked", e);
    }
  }

  /** The archive trimmer, unless turned off or misconfigured (then archived data keeps its replicas). */
  private void startTrimmer(NameNode nn, FSNamesystem fsn, Configuration conf) {
    if (!conf.getBoolean(TrimProtocol.ENABLED_KEY, true)) {
      LOG.info("{} = false: archived data is not trimmed by this NameNode", TrimProtocol.ENABLED_KEY);
      return;
    }
    try {
      ArchiveTrimmer t = new ArchiveTrimmer(nn, fsn, conf, metrics,
          positiveMillis(conf, TrimProtocol.INTERVAL_KEY, TrimProtocol.INTERVAL_DEFAULT));
      t.start();
      trimmer = t;
    } catch (RuntimeException e) {
      LOG.error("the wide-ec archive trimmer is off ({}); archived data keeps its replicas", e.getMessage(), e);
    }
  }

  /** The archive repair monitor, unless turned off or misconfigured (then lost archived blocks stay missing). */
  private void startRepairMonitor(NameNode nn, FSNamesystem fsn, Configuration conf) {
    ArchiveRepairMonitor r = (ArchiveRepairMonitor) startPass(conf, ArchiveRepairSettings.ENABLED_KEY,
        "archive repair monitor", "missing blocks of archived stripes stay missing",
        () -> new ArchiveRepairMonitor(nn, fsn, conf, metrics,
            positiveMillis(conf, ArchiveRepairSettings.INTERVAL_KEY, ArchiveRepairSettings.INTERVAL_DEFAULT)));
    if (r != null) {
      r.start();
      repairs = r;
    }
  }

  /** The archive placement keeper, unless turned off or misconfigured (then archived replicas are not pinned). */
  private void startKeeper(NameNode nn, FSNamesystem fsn, Configuration conf) {
    ArchivePlacementKeeper k = (ArchivePlacementKeeper) startPass(conf, ArchivePlacementKeeper.ENABLED_KEY,
        "archive placement keeper", "archived replicas are not pinned, and blocks off plan stay there",
        () -> new ArchivePlacementKeeper(nn, fsn, conf, metrics,
            positiveMillis(conf, ArchivePlacementKeeper.INTERVAL_KEY, ArchivePlacementKeeper.INTERVAL_DEFAULT)));
    if (k != null) {
      k.start();
      keeper = k;
    }
  }

  /**
   * The archive reprotection pass, whatever the other passes' settings: it orders no DataNode, so neither the cluster
   * secret nor the repair monitor is needed for a changed member never to lower the others' protection.
   */
  private void startReprotector(NameNode nn, FSNamesystem fsn, Configuration conf) {
    ArchiveReprotector r = (ArchiveReprotector) startPass(conf, null, "archive reprotection",
        "stripes whose members changed since archival keep one replica per unit and survive fewer losses than their"
            + " code claims",
        () -> new ArchiveReprotector(nn, fsn, conf, metrics,
            positiveMillis(conf, ArchiveReprotector.INTERVAL_KEY, ArchiveReprotector.INTERVAL_DEFAULT)));
    if (r != null) {
      r.start();
      reprotector = r;
    }
  }

  /** The continuous scrubber, only when turned on (then a wrong setting is one error and it stays off). */
  private void startScrubber(NameNode nn, FSNamesystem fsn, Configuration conf) {
    try {
      org.wideec.scrub.hdfs.ScrubSettings settings = org.wideec.scrub.hdfs.ScrubSettings.from(conf);
      if (!settings.enabled()) {
        return;
      }
      ContinuousScrubber s = new ContinuousScrubber(nn, fsn, conf, metrics, settings);
      s.start();
      scrubber = s;
      currentScrubber = s;
    } catch (IllegalArgumentException e) {
      LOG.error("the wide-ec scrubber is off: {}", e.getMessage());
    } catch (RuntimeException e) {
      LOG.error("the wide-ec scrubber is off", e);
    }
  }

  /** Builds an archive pass; its constructor checks the settings. */
  private interface PassFactory {
    ArchivePass create() throws java.io.IOException;
  }

  /**
   * One {@link ArchivePass}, unless its enabled key (null: none) is false or a setting is wrong: then one line says
   * so and what follows ({@code whenOff}), and the NameNode runs on without it.
   */
  private static ArchivePass startPass(Configuration conf, String enabledKey, String what, String whenOff,
      PassFactory factory) {
    if (enabledKey != null && !conf.getBoolean(enabledKey, true)) {
      LOG.info("{} = false: the wide-ec {} does not run here; {}", enabledKey, what, whenOff);
      return null;
    }
    try {
      return factory.create();
    } catch (java.io.IOException | IllegalArgumentException e) { // a setting: the message says which
      LOG.error("the wide-ec {} is off ({}); {}", what, e.getMessage(), whenOff);
    } catch (RuntimeException e) {
      LOG.error("the wide-ec " + what + " is off; " + whenOff, e);
    }
    return null;
  }

  private static long scanInterval(Configuration conf) {
    return positiveMillis(conf, SCAN_INTERVAL_KEY, SCAN_INTERVAL_DEFAULT);
  }

  /** A pass's interval: a wrong value is reported and the default used, so the pass still runs. */
  private static long positiveMillis(Configuration conf, String key, long dflt) {
    try {
      return ConfigValues.positiveMillis(conf, key, dflt);
    } catch (IllegalArgumentException e) {
      LOG.error("{}; using {}", e.getMessage(), dflt);
      return dflt;
    }
  }

  @Override
  public void stop() {
    ContinuousScrubber cs = scrubber;
    scrubber = null;
    if (cs != null) {
      if (currentScrubber == cs) {
        currentScrubber = null;
      }
      cs.stop();
    }
    ArchiveReprotector rp = reprotector;
    reprotector = null;
    if (rp != null) {
      rp.stop();
    }
    ArchivePlacementKeeper k = keeper;
    keeper = null;
    if (k != null) {
      k.stop();
    }
    ArchiveRepairMonitor rm = repairs;
    repairs = null;
    if (rm != null) {
      rm.stop();
    }
    ArchiveTrimmer tr = trimmer;
    trimmer = null;
    if (tr != null) {
      tr.stop();
    }
    NameNodeScanner sc = scanner;
    scanner = null;
    if (sc != null) {
      sc.stop();
    }
    SealedPartsProvider sp = sealedParts;
    sealedParts = null;
    if (sp != null) {
      sp.uninstall();
    }
    if (metrics != null) {
      metrics.unregister();
      if (current == metrics) {
        current = null;
      }
      metrics = null;
    }
    NamespaceAccess.set(null);
  }

  @Override
  public void close() {
    stop();
  }
}
