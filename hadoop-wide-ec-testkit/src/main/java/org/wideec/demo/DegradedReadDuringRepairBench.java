package org.wideec.demo;

import static org.wideec.demo.EmbeddedGroups.repairOf;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.wideec.client.ReadPathCounters;
import org.wideec.client.WideEcFileSystem;
import org.wideec.demo.DegradedReadBench.Cells;
import org.wideec.demo.DegradedReadBench.Timed;
import org.wideec.demo.RepairBench.Stripe;
import org.wideec.repair.RepairScheme;
import org.wideec.repair.StripeRepair;

/**
 * Degraded reads while the same unit is being repaired: the case the real-process cluster measured, where the lost
 * unit's local-group helpers and their rack uplinks are busy rebuilding it. The worker's repair of the stripe's lost
 * unit (its rack-aggregated chain, asked by the spare DataNode in the lost unit's rack, as background work, as the
 * worker would) runs again and again, node links and rack uplinks shaped ({@link ReadsDuringRepairs}), while this
 * times a normal read of the healthy cell (one shaped stream), the lost cell through WideEcFileSystem as configured
 * (its policy picks the path, the counters say which), the same through one chain only (no hedge, no rack star: the
 * shape before {@link org.wideec.repair.DegradedReadShape}), and direct decode as the star of the same helpers over
 * the shaped links. HDFS's own data transfer is not shaped, so a read our FileSystem serves by direct decode is timed
 * as the star it amounts to over the links (see {@link #pathOverShapedLinks}); its own time through HDFS is reported
 * beside. The unit stays lost while they read (the cluster runs without the NameNode's lost-unit orders: the load is
 * the rebuild they would order), and a figure is refused unless every read took the degraded path by its
 * FileSystem's own counters.
 */
final class DegradedReadDuringRepairBench {
  private final ReadsDuringRepairs bench;

  DegradedReadDuringRepairBench(ReadsDuringRepairs bench) {
    this.bench = bench;
  }

  /** The reads' median times in seconds; {@code throughHdfs} is our FileSystem's last read as it ran. */
  private record Times(double normal, double wide, double throughHdfs, double chain, double star) {}

  /** The figures; {@code degradedReadDuringRepairOverNormal} is our FileSystem's read over the healthy one. */
  Map<String, Object> run(MiniDFSCluster cluster, Stripe st, Configuration clientConf, Cells c) throws Exception {
    Configuration chainOnly = new Configuration(clientConf);
    chainOnly.set("wide-ec.client.degraded-read.hedge.ms", "0");
    chainOnly.setBoolean(DegradedReadBench.RACK_STAR_KEY, false); // one chain through both racks, as before the star
    return bench.overShapedLinks("degraded reads while unit " + st.lost() + " of " + st.label() + " is repaired", "",
        () -> {
          try (WideEcFileSystem ours = (WideEcFileSystem) FileSystem.newInstance(cluster.getURI(), clientConf);
              WideEcFileSystem chained = (WideEcFileSystem) FileSystem.newInstance(cluster.getURI(), chainOnly);
              FSDataInputStream oursIn = ours.open(st.file());
              FSDataInputStream chainIn = chained.open(st.file())) {
            double hedge = clientConf.getLong("wide-ec.client.degraded-read.hedge.ms", 500) / 1000.0;
            DegradedReadBench.requireLost(cluster.getFileSystem(), st);
            ReadsDuringRepairs.UnderLoad<Times> t = ReadsDuringRepairs.underLoad(
                () -> backgroundRepair(cluster, st, c.slice()), () -> times(st, c, ours, oursIn, chainIn, hedge));
            DegradedReadBench.requireLost(cluster.getFileSystem(), st);
            requireDegraded("WideEcFileSystem's reads", ours.readPathCounters(), st, false);
            requireDegraded("the chain-only reads", chained.readPathCounters(), st, true);
            return figures(st, t.measured(), t.repairs(), ours, chained);
          }
        });
  }

  /** Each read's median while the repair runs: the healthy cell, then the lost one by each path. */
  private static Times times(Stripe st, Cells c, WideEcFileSystem ours, FSDataInputStream oursIn,
      FSDataInputStream chainIn, double hedge) throws Exception {
    double normal = ReadsDuringRepairs.median(() -> DegradedReadBench.normalRead(c.client(), c.endpoints(), c.me(), st,
        c.group(), c.healthy(), c.row(), c.slice(), c.healthyCell()));
    Timed starRead = () -> DegradedReadBench.rebuildAtClient(c.client(), c.endpoints(), c.me(), st, c.group(),
        RepairScheme.CONVENTIONAL, c.row(), c.slice(), c.lostCell());
    double[] throughHdfs = new double[1];
    double wide = ReadsDuringRepairs.median(() -> pathOverShapedLinks(ours, oursIn, c, starRead, hedge, throughHdfs));
    double chain = ReadsDuringRepairs.median(() -> DegradedReadBench.pread(chainIn, c.lostAt(), c.lostCell()));
    double star = ReadsDuringRepairs.median(starRead);
    return new Times(normal, wide, throughHdfs[0], chain, star);
  }

  /** Reads of the lost cell each FileSystem makes: the median's untimed and timed runs. */
  static final int READS = ReadsDuringRepairs.WARM_UP + DegradedReadBench.RUNS;

  /**
   * Refuses a during-repair figure from reads that did not all take the degraded path (by the FileSystem's own
   * counters): a read of a unit that is back is a healthy read, and its time says nothing of a degraded one. With
   * {@code chainOnly}, every read must also have been served by a chain, without falling back.
   */
  static void requireDegraded(String what, ReadPathCounters c, Stripe st, boolean chainOnly) throws IOException {
    boolean chains = c.pipelinedReads() == READS && c.pipelinedFallbacks() == 0;
    if (c.degradedReads() != READS || (chainOnly && !chains)) {
      throw new IOException(what + " of unit " + st.lost() + " of " + st.label() + " during its repair did not all "
          + (c.degradedReads() != READS ? "take the degraded path (" + c.degradedReads() + " of " + READS
              + "; the others read a healthy unit)" : "go through a chain") + ", so no during-repair ratio is "
          + "reported: " + c);
    }
  }

  /** The figures of the reads, printed. */
  private Map<String, Object> figures(Stripe st, Times t, int repairs, WideEcFileSystem ours,
      WideEcFileSystem chained) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("normalReadSeconds", t.normal());
    m.put("wideEcFileSystemSeconds", t.wide());
    m.put("wideEcFileSystemThroughUnshapedHdfsSeconds", t.throughHdfs());
    m.put("chainOnlySeconds", t.chain());
    m.put("directStarSeconds", t.star());
    m.put("repairsDuringReads", repairs);
    m.put("reads", READS);
    m.put("paths", paths(ours.readPathCounters()));
    m.put("chainOnlyTiming", chainTiming(chained.readPathCounters()));
    m.put("degradedReadDuringRepairOverNormal", t.wide() / t.normal());
    bench.printf("  %-44s %7.3f s%n", "normal read (healthy unit, one stream)", t.normal());
    bench.printf("  %-44s %7.3f s  %5.2fx normal  (%s)%n", "WideEcFileSystem's path, over the links", t.wide(),
        t.wide() / t.normal(), m.get("paths"));
    bench.printf("  %-44s %7.3f s  %5.2fx normal  (%s)%n", "one chain only (no hedge, no rack star)", t.chain(),
        t.chain() / t.normal(),
        m.get("chainOnlyTiming"));
    bench.printf("  %-44s %7.3f s  %5.2fx normal%n", "direct decode (star of the same helpers)", t.star(),
        t.star() / t.normal());
    bench.printf("  %d repairs of unit %d completed meanwhile; the last WideEcFileSystem read took %.3f s with its "
        + "direct decode's fetches through HDFS, which is not shaped here%n", repairs, st.lost(), t.throughHdfs());
    return m;
  }

  /**
   * One read of the lost cell through our FileSystem, timed over the shaped links by the path it took: a chain is
   * shaped and timed as it ran; direct decode fetches over HDFS, which the emulation does not shape, so a read served
   * by it costs a star of the same helpers over the links (once the hedge delay has passed, when the chain was asked
   * first). {@code throughHdfs} gets the read's own time.
   */
  private static double pathOverShapedLinks(WideEcFileSystem fs, FSDataInputStream in, Cells c, Timed star,
      double hedgeSeconds, double[] throughHdfs) throws Exception {
    ReadPathCounters k = fs.readPathCounters();
    long direct = k.directFirstReads();
    long hedged = k.hedgedReads();
    long fallbacks = k.pipelinedFallbacks();
    double secs = DegradedReadBench.pread(in, c.lostAt(), c.lostCell());
    throughHdfs[0] = secs;
    if (k.directFirstReads() > direct) {
      return star.run();
    }
    if (k.hedgedReads() > hedged) {
      return hedgeSeconds + star.run();
    }
    return k.pipelinedFallbacks() > fallbacks ? secs + star.run() : secs;
  }

  /** Which path served our FileSystem's degraded reads. */
  private static Map<String, Object> paths(ReadPathCounters c) {
    Map<String, Object> p = new LinkedHashMap<>();
    p.put("degradedReads", c.degradedReads());
    p.put("pipelinedReads", c.pipelinedReads());
    p.put("hedgedReads", c.hedgedReads());
    p.put("directFirstReads", c.directFirstReads());
    p.put("pipelinedFallbacks", c.pipelinedFallbacks());
    return p;
  }

  /** Where the chains' time went, averaged over the chains that delivered. */
  private static Map<String, Object> chainTiming(ReadPathCounters c) {
    Map<String, Object> t = new LinkedHashMap<>();
    long n = Math.max(1, c.chainsTimed());
    t.put("chains", c.chainsTimed());
    t.put("hops", (double) c.chainHops() / n);
    t.put("setupSeconds", c.chainSetupMicros() / 1e6 / n);
    t.put("firstSliceSeconds", c.chainFirstSliceMicros() / 1e6 / n);
    t.put("chainSeconds", c.chainMicros() / 1e6 / n);
    return t;
  }

  /** The worker's repair of the stripe's lost unit, as background work, run again and again until stopped. */
  static RepeatedRepairs backgroundRepair(MiniDFSCluster cluster, Stripe st, int slice) throws IOException {
    StripeRepair r = repairOf(st.policy(), st.group(), st.lost(), RepairScheme.RACK_AGGREGATED);
    return new RepeatedRepairs().add("bench background repair", cluster, st.requestor(), r, slice);
  }
}
