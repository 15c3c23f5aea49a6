package org.wideec.demo;

import java.io.IOException;
import java.io.PrintStream;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.wideec.topology.Site;
import org.wideec.topology.hdfs.DataNodeSites;
import org.wideec.client.WideEcFileSystem;
import org.wideec.minicluster.StripedGroups;
import org.wideec.repair.BlockRef;
import org.wideec.repair.EndpointResolver;
import org.wideec.engine.RepairEngine;
import org.wideec.repair.RepairScheme;
import org.wideec.repair.SliceSink;
import org.wideec.protocol.StepRequest;
import org.wideec.repair.StripeRepair;
import org.wideec.repair.UnitLocation;
import org.wideec.topology.Endpoint;
import org.wideec.transport.Frame;
import org.wideec.transport.PeerStream;
import org.wideec.transport.SliceTransport;
import org.wideec.transport.TrafficShaper;
import org.wideec.transport.TransportConf;
import org.wideec.transport.hdfs.TransportConfReader;
import org.wideec.demo.RepairBench.Settings;
import org.wideec.demo.RepairBench.Stripe;

/**
 * The repair benchmark's degraded reads (ECPipe applied to reads): one cell of a lost unit read through our
 * FileSystem's chain, against a normal read of a healthy cell, a direct decode at the client (a star of the same
 * helpers) and the cyclic variant, over node links shaped to the benchmark's rate; each the median of {@link #RUNS}
 * runs after {@link #WARM_UP} untimed ones. Prints its lines and puts its figures where {@link RepairBench} reports
 * ({@link DegradedReadReport}).
 */
final class DegradedReadBench {
  private static final int CELL = RepairBench.CELL;
  private final PrintStream out;
  private final Map<String, Object> json;
  private final BenchProgress progress;
  private final Settings s;

  DegradedReadBench(PrintStream out, Map<String, Object> json, BenchProgress progress, Settings s) {
    this.out = out;
    this.json = json;
    this.progress = progress;
    this.s = s;
  }

  /**
   * Degraded reads (ECPipe §3.2): one cell of a lost data unit read through WideEcFileSystem, the client being the
   * requestor of a chain of the unit's helpers (its local group, grouped by rack), against a normal read of a healthy
   * unit's cell of the same stripe and a direct decode of the lost one, node links shaped as in the node-links runs.
   * HDFS's own data transfer is not shaped by our shaper, so both baselines are timed as slice streams over the same
   * shaped links and in the same slices as the chain: the normal read as the healthy unit's DataNode sending its cell
   * unchanged (a step of coefficient 1), the direct decode as the conventional star (the same helpers each send their
   * range to the client, which combines them) and, to see whether it pays, the cyclic variant (ECPipe §4.1). Each is
   * warmed up once, then the median of five runs; every read is checked against the bytes read before the loss. The
   * unit's DataNode is stopped with the NameNode's RedundancyMonitor, on a cluster without lost-unit orders, so the
   * unit stays lost: this runs last on its cluster. For orientation the same reads are also timed unshaped through HDFS.
   */
  Map<String, Object> run(MiniDFSCluster cluster, DistributedFileSystem fs, Stripe st) throws Exception {
    Lost lost = Lost.of(cluster, fs, st);
    LocatedStripedBlock g = lost.group();
    Configuration clientConf = lost.clientConf();
    TransportConf tc = TransportConfReader.forClient(clientConf);
    int slice = lost.slice();
    int healthy = lost.healthy();
    long row = lost.row();
    long lostAt = lost.lostAt();
    long healthyAt = lost.healthyAt();
    byte[] lostCell = lost.lostCell();
    byte[] healthyCell = lost.healthyCell();
    UnitLocation me = Lost.client();
    EndpointResolver endpoints = EmbeddedGroups.resolver(cluster, st.requestor());
    DegradedReadReport report = new DegradedReadReport(out, json);
    report.start(CELL, st.label(), st.lost(), slice);
    ExecutorService idle = Executors.newSingleThreadExecutor();
    Configuration directConf = new Configuration(clientConf);
    directConf.set("wide-ec.client.degraded-read", "direct");
    // Only node links are shaped here, racks not: a flat network, where a reader's NIC is no faster than the racks'
    // links, so the client is configured as docs/reads.md says for one (one chain always); the rack star, which takes
    // a range per helper rack on the client's NIC, is timed beside it.
    Configuration flatConf = new Configuration(clientConf);
    flatConf.setBoolean(RACK_STAR_KEY, false);
    try (SliceTransport client = new SliceTransport(tc, "bench client", org.wideec.transport.TrafficCounters.NONE, idle);
        WideEcFileSystem wide = (WideEcFileSystem) org.apache.hadoop.fs.FileSystem.newInstance(fs.getUri(), flatConf);
        WideEcFileSystem direct = (WideEcFileSystem) org.apache.hadoop.fs.FileSystem.newInstance(fs.getUri(), directConf);
        org.apache.hadoop.fs.FSDataInputStream pipelinedIn = wide.open(st.file());
        org.apache.hadoop.fs.FSDataInputStream directIn = direct.open(st.file());
        org.apache.hadoop.fs.FSDataInputStream stockIn = fs.open(st.file())) {
      TrafficShaper.emulate(new long[] {s.nodeRate(), 0});
      double normal = median(() -> normalRead(client, endpoints, me, st, g, healthy, row, slice, healthyCell));
      // Fixed costs, with almost no bytes to move: connecting and authenticating one stream, or a chain hop by hop.
      byte[] healthyProbe = java.util.Arrays.copyOf(healthyCell, PROBE);
      byte[] lostProbe = java.util.Arrays.copyOf(lostCell, PROBE);
      double streamSetup = median(() -> normalRead(client, endpoints, me, st, g, healthy, row, slice, healthyProbe));
      double chainSetup = median(() -> rebuildAtClient(client, endpoints, me, st, g, WideEcFileSystem.CHAIN_SCHEME, row, slice,
          lostProbe));
      double pipelined = median(() -> pread(pipelinedIn, lostAt, lostCell));
      long chains = wide.readPathCounters().pipelinedReads();
      if (chains != RUNS + WARM_UP || wide.readPathCounters().pipelinedFallbacks() != 0) {
        throw new IOException("the degraded reads did not all go through a chain: " + wide.readPathCounters());
      }
      double star = median(() -> rebuildAtClient(client, endpoints, me, st, g, RepairScheme.CONVENTIONAL, row, slice,
          lostCell));
      double cyclic = median(() -> rebuildAtClient(client, endpoints, me, st, g, RepairScheme.CYCLIC, row, slice,
          lostCell));
      double rackStar = median(() -> rebuildAtClient(client, endpoints, me, st, g, RepairScheme.RACK_STAR, row, slice,
          lostCell));
      report.shaped(new DegradedReadReport.Shaped(normal, pipelined, star, cyclic, rackStar, PROBE, streamSetup,
          chainSetup));

      TrafficShaper.emulate(null);
      unshaped(report, direct, stockIn, pipelinedIn, directIn, healthyAt, healthyCell, lostAt, lostCell);
      report.ratios();
      progress.step("degraded reads");

      Cells cells = lost.cells(client, endpoints);
      ReadsDuringRepairs duringRepairs = new ReadsDuringRepairs(out, s);
      report.duringRepair(new DegradedReadDuringRepairBench(duringRepairs).run(cluster, st, clientConf, cells));
      progress.step("degraded reads during a repair");

      report.foreground(new ForegroundDuringRecoveryBench(duringRepairs).run(cluster, st, cells));
    } finally {
      TrafficShaper.emulate(null);
      idle.shutdownNow();
    }
    progress.step("foreground reads during a recovery, with and without caps");
    return report.figures();
  }

  /**
   * What a timed read needs: the client's own slice transport and resolver, the group, the healthy unit and the row
   * both cells start at, the slice, and both cells as written with where the lost one starts in the file.
   */
  record Cells(SliceTransport client, EndpointResolver endpoints, UnitLocation me, LocatedStripedBlock group,
      int healthy, long row, int slice, byte[] healthyCell, long lostAt, byte[] lostCell) {}

  /**
   * The stripe after its unit is lost, as the degraded reads see it: the group as the NameNode lists it then, a
   * client's configuration, the slice a read's chain moves, a healthy cell and the lost one (as written, read before
   * the loss) and where each starts. A full stripe inside the group: unit {@code lost} against unit {@code lost + 1}.
   */
  record Lost(LocatedStripedBlock group, Configuration clientConf, int slice, int healthy, long row, long lostAt,
      long healthyAt, byte[] lostCell, byte[] healthyCell) {

    /**
     * Reads both cells, then stops the DataNode of the stripe's lost unit. Nothing may rebuild it while the reads run:
     * the NameNode's RedundancyMonitor is stopped first, and the cluster must run without the NameNode's lost-unit
     * orders ({@link DegradedReadBench#withLostUnitsKept}), which this checks.
     */
    static Lost of(MiniDFSCluster cluster, DistributedFileSystem fs, Stripe st) throws IOException {
      int k = st.policy().getNumDataUnits();
      int stripe = 1; // a full stripe inside the group
      int healthy = st.lost() + 1;
      long lostAt = (long) stripe * k * CELL + (long) st.lost() * CELL;
      long healthyAt = (long) stripe * k * CELL + (long) healthy * CELL;
      long row = (long) stripe * CELL; // where both cells start in their internal blocks
      TrafficShaper.emulate(null);
      byte[] lostCell = readRange(fs, st.file(), lostAt);
      byte[] healthyCell = readRange(fs, st.file(), healthyAt);
      LocatedStripedBlock g = loseUnit(cluster, fs, st);
      Configuration clientConf = DegradedReadBench.clientConf(cluster);
      TransportConf tc = TransportConfReader.forClient(clientConf);
      int chunk = clientConf.getInt(DFSConfigKeys.DFS_BYTES_PER_CHECKSUM_KEY,
          DFSConfigKeys.DFS_BYTES_PER_CHECKSUM_DEFAULT);
      int slice = WideEcFileSystem.chainSliceBytes(CELL, chunk, tc.sliceBytes());
      return new Lost(g, clientConf, slice, healthy, row, lostAt, healthyAt, lostCell, healthyCell);
    }

    /** The benches' client, a requestor in a rack of its own (HDFS's default rack), as the embedded client resolves. */
    static UnitLocation client() {
      return new UnitLocation(-1, new Site("client " + org.apache.hadoop.net.NetUtils.getLocalHostname(),
          org.apache.hadoop.net.NetworkTopology.DEFAULT_RACK));
    }

    /** What a timed read needs, with the client's own slice transport and resolver. */
    Cells cells(SliceTransport client, EndpointResolver endpoints) {
      return new Cells(client, endpoints, client(), group, healthy, row, slice, healthyCell, lostAt, lostCell);
    }
  }

  /**
   * A cluster configuration under which a lost unit stays lost: without the NameNode's lost-unit orders, which
   * rebuild a dead DataNode's units at once (the benches stop its RedundancyMonitor too). The degraded reads stand for
   * those during the unit's rebuild; the bench runs that rebuild itself, again and again, as the load beside them.
   */
  static Configuration withLostUnitsKept(Configuration base) {
    Configuration conf = new Configuration(base);
    conf.setBoolean(LOST_UNIT_ORDERS, false);
    return conf;
  }

  /** The client's choice of a rack star over one chain (ConfigCatalogue). */
  static final String RACK_STAR_KEY = "wide-ec.client.degraded-read.rack-star";

  /** The NameNode's lost-unit orders (ConfigCatalogue). */
  static final String LOST_UNIT_ORDERS = "wide-ec.lost-units.enabled";

  /**
   * Stops the DataNode of the stripe's lost unit, with the NameNode's RedundancyMonitor stopped first so that the unit
   * stays lost; the group as the NameNode lists it then.
   */
  private static LocatedStripedBlock loseUnit(MiniDFSCluster cluster, DistributedFileSystem fs, Stripe st)
      throws IOException {
    if (cluster.getConfiguration(0).getBoolean(LOST_UNIT_ORDERS, true)) {
      throw new IOException(LOST_UNIT_ORDERS + " is on in this cluster: the NameNode would have unit " + st.lost()
          + " of " + st.label() + " rebuilt at once, and the degraded reads would read a healthy unit");
    }
    org.apache.hadoop.hdfs.server.blockmanagement.BlockManagerTestUtil.stopRedundancyThread(
        cluster.getNamesystem().getBlockManager());
    DatanodeInfo lostOn = StripedGroups.location(st.group(), st.lost());
    DataNode dn = cluster.getDataNodes().stream().filter(d -> d.getXferPort() == lostOn.getXferPort()).findFirst()
        .orElseThrow();
    cluster.stopDataNode(cluster.getDataNodes().indexOf(dn));
    cluster.setDataNodeDead(dn.getDatanodeId());
    LocatedStripedBlock g = StripedGroups.groups(fs, st.file()).get(0);
    requireLost(fs, st);
    return g;
  }

  /** Fails unless the NameNode lists the stripe's unit as lost: a read of it would take the healthy path. */
  static void requireLost(DistributedFileSystem fs, Stripe st) throws IOException {
    LocatedStripedBlock g = StripedGroups.groups(fs, st.file()).get(0);
    if (!StripedGroups.missingUnits(g, st.policy()).contains(st.lost())) {
      throw new IOException("the NameNode lists unit " + st.lost() + " of " + st.label() + " as live: something "
          + "rebuilt it (units rebuilt on the NameNode's lost-unit orders so far: "
          + org.wideec.placement.hdfs.WideEcNameNodePlugin.metrics().lostUnitsRebuilt() + "), and reads of its cells "
          + "would not be degraded");
    }
  }

  /** A client's configuration: only what the NameNode gives it (block tokens), and our file system. */
  private static Configuration clientConf(MiniDFSCluster cluster) {
    Configuration clientConf = new Configuration(cluster.getConfiguration(0));
    clientConf.unset("wide-ec.transport.secret"); // a client holds only what the NameNode gives it: block tokens
    clientConf.set("fs.hdfs.impl", WideEcFileSystem.class.getName());
    return clientConf;
  }

  /** The same reads unshaped through HDFS, for orientation: stock, pipelined and direct-decoding clients. */
  private static void unshaped(DegradedReadReport report, WideEcFileSystem direct,
      org.apache.hadoop.fs.FSDataInputStream stockIn, org.apache.hadoop.fs.FSDataInputStream pipelinedIn,
      org.apache.hadoop.fs.FSDataInputStream directIn, long healthyAt, byte[] healthyCell, long lostAt, byte[] lostCell)
      throws Exception {
    double normal = median(() -> pread(stockIn, healthyAt, healthyCell));
    double pipelined = median(() -> pread(pipelinedIn, lostAt, lostCell));
    double decoded = median(() -> pread(directIn, lostAt, lostCell));
    if (direct.readPathCounters().pipelinedReads() != 0 || direct.readPathCounters().degradedReads() != RUNS + WARM_UP) {
      throw new IOException("the direct reads did not all decode at the client: " + direct.readPathCounters());
    }
    report.unshaped(normal, pipelined, decoded);
  }

  static final int RUNS = 5;
  /**
   * Untimed runs before each timed path. A DataNode that has served for a while runs the transport and helper code
   * compiled; one warm-up left most of it interpreted, and a five-hop chain then paid that cost five times (about
   * 11 ms of a 4 KiB chain's fixed costs, against under 1 ms once compiled).
   */
  static final int WARM_UP = 20;
  /** Bytes read to time a path's fixed costs (eight checksum chunks). */
  static final int PROBE = 4096;

  /** One timed action. */
  @FunctionalInterface
  interface Timed {
    double run() throws Exception;
  }

  /** The median of {@link #RUNS} runs after {@link #WARM_UP} untimed ones (connections, slice port discovery, JIT). */
  private static double median(Timed t) throws Exception {
    return median(WARM_UP, t);
  }

  /** The median of {@link #RUNS} runs after {@code warmUp} untimed ones. */
  static double median(int warmUp, Timed t) throws Exception {
    for (int i = 0; i < warmUp; i++) {
      t.run();
    }
    double[] times = new double[RUNS];
    for (int i = 0; i < RUNS; i++) {
      times[i] = t.run();
    }
    java.util.Arrays.sort(times);
    return times[RUNS / 2];
  }

  private static byte[] readRange(DistributedFileSystem fs, Path file, long at) throws IOException {
    byte[] b = new byte[CELL];
    try (org.apache.hadoop.fs.FSDataInputStream in = fs.open(file)) {
      in.readFully(at, b);
    }
    return b;
  }

  static double pread(org.apache.hadoop.fs.FSDataInputStream in, long at, byte[] expected) throws IOException {
    byte[] b = new byte[expected.length];
    long t0 = System.nanoTime();
    in.readFully(at, b);
    double secs = (System.nanoTime() - t0) / 1e9;
    check(expected, b, "read at " + at);
    return secs;
  }

  private static void check(byte[] expected, byte[] got, String what) throws IOException {
    if (!java.util.Arrays.equals(expected, got)) {
      throw new IOException(what + " returned other bytes than were written");
    }
  }

  /** A normal read over the shaped links: the unit's DataNode streams its cell to the client, unchanged. */
  static double normalRead(SliceTransport client, EndpointResolver endpoints, UnitLocation me, Stripe st,
      LocatedStripedBlock g, int unit, long row, int slice, byte[] expected) throws Exception {
    DatanodeInfo at = StripedGroups.location(g, unit);
    Endpoint e = endpoints.resolve(new UnitLocation(unit, DataNodeSites.of(at)));
    BlockRef b = EmbeddedGroups.ref(g, unit, EmbeddedGroups.unitLength(st.policy(), g, unit));
    StepRequest req = new StepRequest(b, 1, row, expected.length, slice, 0, 1, List.of(), false);
    byte[] got = new byte[expected.length];
    long t0 = System.nanoTime();
    try (PeerStream in = client.open(e, me.node(), me.rack(), 1, req.toBytes(), client.credentialFor(b.token()))) {
      for (int sl = 0; sl < req.slices(); sl++) {
        Frame f = in.next(sl);
        try {
          f.payload().getBytes(f.payload().readerIndex(), got, sl * slice, req.sliceLength(sl));
        } finally {
          f.release();
        }
        in.credit();
      }
      in.awaitEnd();
    }
    double secs = (System.nanoTime() - t0) / 1e9;
    check(expected, got, "normal read of unit " + unit);
    return secs;
  }

  /** The lost cell rebuilt at the client with a scheme: the client is the requestor (proving each helper's token). */
  static double rebuildAtClient(SliceTransport client, EndpointResolver endpoints, UnitLocation me, Stripe st,
      LocatedStripedBlock g, RepairScheme scheme, long row, int slice, byte[] expected) throws Exception {
    StripeRepair r = EmbeddedGroups.repairOf(st.policy(), g, st.lost(), scheme);
    byte[] got = new byte[expected.length];
    SliceSink sink = SliceSink.into(got);
    long t0 = System.nanoTime();
    new RepairEngine(client, endpoints, org.wideec.engine.RepairCounters.NONE, 1).repair(r, me, (u, len) -> sink, slice,
        row, expected.length);
    double secs = (System.nanoTime() - t0) / 1e9;
    check(expected, got, scheme.name().toLowerCase() + " rebuild of unit " + st.lost());
    return secs;
  }

  /** Time to send the lost unit's worth of bytes from one helper to the requestor (cross-rack if asked). */
}
