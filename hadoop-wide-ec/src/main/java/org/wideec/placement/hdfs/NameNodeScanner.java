package org.wideec.placement.hdfs;

import java.io.IOException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicyInfo;
import org.apache.hadoop.hdfs.server.blockmanagement.WideEcGroupRiskScanner;
import org.apache.hadoop.hdfs.server.namenode.FSNamesystem;
import org.apache.hadoop.hdfs.server.namenode.NameNode;
import org.apache.hadoop.hdfs.server.namenode.SafeModeException;
import org.apache.hadoop.ipc.RemoteException;
import org.apache.hadoop.ipc.RetriableException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.wideec.archive.hdfs.SealedFiles;
import org.wideec.coder.StripedCodec;
import org.wideec.placement.PlacementConf;
import org.wideec.placement.StripedPlacement;

/**
 * The NameNode plugin's scan ({@link WideEcNameNodePlugin#SCAN_INTERVAL_KEY}), a {@link PeriodicPass} whose first
 * pass runs at start: the policies of our codecs, the block groups at risk and those HDFS's own reconstructor cannot
 * rebuild, and, once per start, sealed files' parts made private. It runs on every running NameNode, standby
 * included (it reads the blocks map; what it writes, it writes only where HDFS lets it). The checks fail
 * independently: a bug in one must not silence the others. Its lines keep the plugin's logger, which operators'
 * logging settings name.
 */
final class NameNodeScanner extends PeriodicPass {
  private static final Logger LOG = LoggerFactory.getLogger(WideEcNameNodePlugin.class);

  private final NameNode nn;
  private final Configuration conf;
  private final WideEcNameNodeMetrics metrics;
  private final Set<String> reportedPolicies = new HashSet<>();
  private final Map<Long, String> prioritised = new HashMap<>();
  private final WideEcGroupRiskScanner scanner = new WideEcGroupRiskScanner();
  private final StockRepairWatch stockRepairs;
  private final RateLimitedWarning unprivate = new RateLimitedWarning(LOG, 10 * 60_000L);
  /** Opened on first use: a wrong layout key fails that step only. */
  private ManifestReader client;
  /** Parts of every sealed file made the superuser's and linked, once per start ({@link #privatizeSealedParts}). */
  private boolean partsPrivate;

  NameNodeScanner(NameNode nn, FSNamesystem fsn, Configuration conf, WideEcNameNodeMetrics metrics, long interval) {
    super(fsn, "wide-ec-namenode-scanner", interval, true, LOG);
    this.nn = nn;
    this.conf = conf;
    this.metrics = metrics;
    this.stockRepairs = new StockRepairWatch(conf.getTimeDuration(
        DFSConfigKeys.DFS_NAMENODE_RECONSTRUCTION_PENDING_TIMEOUT_SEC_KEY,
        DFSConfigKeys.DFS_NAMENODE_RECONSTRUCTION_PENDING_TIMEOUT_SEC_DEFAULT, TimeUnit.SECONDS,
        TimeUnit.MILLISECONDS));
  }

  /** On a standby too: the checks read the blocks map. */
  @Override
  boolean mayRun() {
    return fsn.isRunning();
  }

  @Override
  void runPass() {
    try {
      if (client == null) {
        client = new ManifestReader(nn, conf);
      }
      privatizeSealedParts(client);
    } catch (IOException e) {
      if (startingUp(e)) {
        // The first passes run while the NameNode still starts (RPC refused as retriable, or in safe mode): the
        // next pass does it, so this is not worth a warning.
        LOG.debug("sealed files' parts are made private once the NameNode serves: {}", e.toString());
      } else {
        unprivate.warn("wide-ec could not make sealed files' parts private yet: {}", e.toString(), e);
      }
    } catch (RuntimeException | LinkageError e) {
      unprivate.warn("wide-ec could not make sealed files' parts private yet: {}", e.toString(), e);
    }
    try {
      checkPolicies();
    } catch (RuntimeException | LinkageError e) {
      metrics.scanFailures.incr();
      failed.warn("wide-ec policy check failed: {}", e.toString(), e);
    }
    try {
      checkGroups();
      metrics.scans.incr();
    } catch (RuntimeException | LinkageError e) {
      metrics.scanFailures.incr();
      failed.warn("wide-ec scan of low-redundancy groups failed: {}", e.toString(), e);
    }
  }

  private static boolean startingUp(IOException e) {
    IOException cause = e instanceof RemoteException r
        ? r.unwrapRemoteException(RetriableException.class,
            SafeModeException.class)
        : e;
    return cause instanceof RetriableException
        || cause instanceof SafeModeException;
  }

  @Override
  void passFailed(Throwable e) {
    metrics.scanFailures.incr();
    failed.warn("wide-ec scan failed: {}", e.toString(), e);
  }

  @Override
  void afterLastPass() {
    if (client != null) {
      client.close();
    }
  }

  /**
   * Once per start, on the active NameNode out of safe mode: every sealed file's parts made the archiving superuser's
   * alone and linked to their sealed file ({@link SealedFiles#privatizeAll}). Parts sealed by earlier builds carried
   * copies of the file's ACL (which a later chmod or rename never reached) and no link, so without this their readers
   * would be refused and, with this plugin removed, the old copies would decide again.
   */
  private void privatizeSealedParts(ManifestReader client) throws java.io.IOException {
    if (partsPrivate || fsn.isInSafeMode() || fsn.isInStandbyState()) {
      return;
    }
    int n = new SealedFiles(client.fs(), client.layout()).privatizeAll();
    partsPrivate = true;
    if (n > 0) {
      LOG.info("the parts of {} sealed file(s) are the superuser's alone, read through their files' paths", n);
    }
  }

  /** One error per policy of our codecs that defines no code or no plan. */
  private void checkPolicies() {
    WideEcNameNodeMetrics m = metrics;
    String scheme;
    try {
      scheme = PlacementConf.scheme(conf.get(StripedPlacement.SCHEME_KEY));
    } catch (RuntimeException e) {
      scheme = StripedPlacement.AUTO;
    }
    long bad = 0;
    for (ErasureCodingPolicyInfo info : fsn.getErasureCodingPolicyManager().getPolicies()) {
      ErasureCodingPolicy p = info.getPolicy();
      if (!StripedCodec.names().contains(p.getCodecName())) {
        continue;
      }
      String problem = PolicyCheck.problem(p.getCodecName(), p.getNumDataUnits(), p.getNumParityUnits(), scheme);
      if (problem != null && problem.startsWith(PolicyCheck.UNBUILDABLE)) {
        bad++;
      }
      if (problem != null && reportedPolicies.add(p.getName())) {
        LOG.error("erasure-coding policy {} ({}): {}", p.getName(), info.getState(), problem);
      }
    }
    m.unbuildablePolicies.set(bad);
  }

  private void checkGroups() {
    WideEcNameNodeMetrics m = metrics;
    StockRepairWatch watch = stockRepairs;
    WideEcGroupRiskScanner.Scan scan = scanner.scan(fsn, watch.watched());
    for (StockRepairWatch.Stuck s : watch.observe(scan.losses(), System.currentTimeMillis())) {
      m.groupsStockRepairStuckReported.incr();
      LOG.error("block group blk_{} of {} ({}) has lost units {} and HDFS's own reconstruction cannot rebuild them: {}",
          s.loss().blockId(), WideEcGroupRiskScanner.fileOf(fsn, s.loss().fileId()), s.loss().policy(),
          java.util.Arrays.toString(s.loss().lost()), s.reason());
    }
    m.groupsStockRepairStuck.set(watch.stuck());
    Map<Long, String> now = new HashMap<>();
    for (WideEcGroupRiskScanner.AtRisk r : scan.atRisk()) {
      AtRiskLog.report(r.blockId(), r.file(), r.policy(), r.lost(), r.remaining());
      String pattern = java.util.Arrays.toString(r.lost());
      now.put(r.blockId(), pattern);
      // Once per loss pattern: HDFS re-ranks the group by its own count whenever it changes.
      if (!r.remaining().dataLost() && !pattern.equals(prioritised.get(r.blockId()))
          && WideEcGroupRiskScanner.prioritise(fsn, r.blockId())) {
        m.groupsPrioritised.incr();
        LOG.info("block group blk_{} of {}: reconstruction moved to HDFS's highest priority", r.blockId(), r.file());
      }
    }
    prioritised.clear();
    prioritised.putAll(now);
    m.groupsExamined.set(scan.examined());
    m.groupsAtRisk.set(scan.atRisk().size() - scan.lost());
    m.groupsLost.set(scan.lost());
  }
}
