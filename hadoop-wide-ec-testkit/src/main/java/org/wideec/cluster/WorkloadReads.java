package org.wideec.cluster;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.wideec.minicluster.StripedGroups;

/**
 * The reads of one striped workload's files on the real cluster: foreground streams (HDFS's client for a stock policy,
 * our FileSystem for ours), and one cell of a lost data unit read through the stock client and through
 * WideEcFileSystem, each beside a healthy cell read the same two ways, bytes checked against what was written. Lost
 * cells are sampled in two moments of a node loss: while the node is down and the NameNode still lists it (the common
 * degraded read, a DataNode briefly unavailable, before any repair starts), and while its units are rebuilt.
 */
final class WorkloadReads {
  /** The first cell of data unit {@code unit} of a full group: its file, its file offset, and its listed holder. */
  record Cell(int file, long offset, int unit, String holder) {}

  /**
   * Rounds read first while a node is down and left out of the medians. The bench's reader is a long-running one (its
   * healthy reads have run for the whole bench), but nothing before this moment made it read degraded, so its first
   * degraded reads (both clients') run code its JIT compiles meanwhile: on this host a fresh client's chain reads of
   * 1 MiB took 76-89% of both cores in the first nine rounds and 62-77% in most later ones, its C2 compiler threads
   * most of the difference (async-profiler: 70% of the client's CPU in the first minute of reads).
   */
  static final int WARMUP_SAMPLES = 3;

  private final ClusterBed bed;
  private final ErasureCodingPolicy policy;
  private final List<Path> files;
  private final int samples;
  private final boolean stockPolicy;

  WorkloadReads(ClusterBed bed, ErasureCodingPolicy policy, List<Path> files, int samples) {
    this.bed = bed;
    this.policy = policy;
    this.files = files;
    this.samples = samples;
    this.stockPolicy = ClusterBed.isStock(policy);
  }

  /**
   * Samples lost cells between the kill of {@code victim} (at {@code killedAt}, System.nanoTime) and the NameNode
   * declaring it dead: the cells are those the NameNode still lists on the victim's address (its port refuses
   * connections), so both clients meet the refusal themselves. The first {@link #WARMUP_SAMPLES} rounds are warm-up,
   * read and checked like the rest but outside the medians. Sampling stops at two thirds of the NameNode's dead-node
   * expiry after the kill, before the drop (the last heartbeat came before the kill); a sample that ended after the
   * victim's units were no longer listed is discarded and ends the sampling.
   */
  Map<String, Object> whileNodeDown(DatanodeInfo victim, long killedAt) throws IOException {
    long expiryMs = bed.deadNodeExpiryMs();
    long until = killedAt + TimeUnit.MILLISECONDS.toNanos(expiryMs * 2 / 3);
    String addr = victim.getXferAddr();
    Samples s = new Samples();
    ReadPaths paths = null;
    int warmups = 0;
    int discarded = 0;
    Double lastEnd = null;
    while (s.taken() < samples && System.nanoTime() < until) {
      Cell lost = first(c -> addr.equals(c.holder()));
      Cell healthy = first(c -> c.holder() != null && !addr.equals(c.holder()));
      if (lost == null || healthy == null) {
        break; // dropped already
      }
      boolean warming = warmups < WARMUP_SAMPLES;
      if (!warming && paths == null) {
        paths = new ReadPaths(bed.ours.readPathCounters()); // the paths of the samples, not of the warm-up
      }
      Sample one = s.read(lost, healthy);
      if (first(c -> addr.equals(c.holder())) == null) {
        discarded++;
        break;
      }
      lastEnd = Phase.round((System.nanoTime() - killedAt) / 1e9);
      if (warming) {
        warmups++;
      } else {
        s.add(one);
      }
    }
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("node", ClusterScript.nodeName(victim));
    m.put("deadNodeExpirySeconds", expiryMs / 1000.0);
    m.put("sampledUntilSeconds", Phase.round(expiryMs * 2 / 3 / 1000.0));
    m.put("warmupSamples", warmups);
    m.put("lastSampleEndSeconds", lastEnd);
    m.put("samplesDiscardedAfterDrop", discarded);
    s.into(m, "while " + ClusterScript.nodeName(victim) + " is down", true);
    m.put("degradedReadOursPaths", paths == null ? null : paths.since(bed.ours.readPathCounters()));
    return m;
  }

  /**
   * While units are missing (the NameNode dropped them, a rebuild runs): lost and healthy cells sampled, then
   * foreground reads until every group is whole.
   */
  Map<String, Object> whileRecovering() throws IOException, InterruptedException {
    Samples s = new Samples();
    ReadPaths paths = new ReadPaths(bed.ours.readPathCounters());
    while (s.taken() < samples) {
      Cell lost = first(c -> c.holder() == null);
      Cell healthy = first(c -> c.holder() != null);
      if (lost == null || healthy == null) {
        break; // rebuilt before all samples were taken
      }
      s.add(s.read(lost, healthy));
    }
    Map<String, Object> m = new LinkedHashMap<>();
    s.into(m, "while units are rebuilt", false);
    m.put("degradedReadOursPaths", paths.since(bed.ours.readPathCounters()));
    AtomicBoolean whole = new AtomicBoolean();
    Thread watcher = new Thread(() -> {
      try {
        bed.awaitWhole(files, policy);
      } catch (IOException e) {
        bed.log.println("cluster bench: " + e.getMessage());
      }
      whole.set(true);
    });
    watcher.start();
    long[] fg = readFor(Double.MAX_VALUE, whole);
    watcher.join();
    m.put("foregroundBytesPerSecondDuringRecovery", fg[1] == 0 ? null : fg[0] * 1e9 / fg[1]);
    m.put("foregroundBytesDuringRecovery", fg[0]);
    return m;
  }

  /**
   * Reads the files in turn until {@code stop} is set or {@code seconds} pass, the way this policy's users read:
   * HDFS's client for stock, our FileSystem for ours. Returns {bytes, nanoseconds}.
   */
  long[] readFor(double seconds, AtomicBoolean stop) throws IOException {
    FileSystem reader = stockPolicy ? bed.stock : bed.ours;
    AtomicLong bytes = new AtomicLong();
    byte[] buf = new byte[1 << 20];
    long start = System.nanoTime();
    outer:
    for (int f = 0; ; f = (f + 1) % files.size()) {
      try (FSDataInputStream in = reader.open(files.get(f))) {
        for (int n; (n = in.read(buf)) > 0; ) {
          bytes.addAndGet(n);
          if (stop.get() || (System.nanoTime() - start) / 1e9 >= seconds) {
            break outer;
          }
        }
      }
    }
    return new long[] {bytes.get(), System.nanoTime() - start};
  }

  /** The first data cell of a full group, in file and offset order, that {@code pick} accepts; null when none. */
  private Cell first(Predicate<Cell> pick) throws IOException {
    int k = policy.getNumDataUnits();
    for (int f = 0; f < files.size(); f++) {
      for (LocatedStripedBlock g : StripedGroups.groups(bed.stock, files.get(f))) {
        if (g.getBlockSize() < (long) k * policy.getCellSize()) {
          continue;
        }
        for (int unit = 0; unit < k; unit++) {
          Cell c = new Cell(f, g.getStartOffset() + (long) unit * policy.getCellSize(), unit, holder(g, unit));
          if (pick.test(c)) {
            return c;
          }
        }
      }
    }
    return null;
  }

  /** The transfer address the NameNode lists for a unit of a group (the first, if two), or null. */
  private static String holder(LocatedStripedBlock g, int unit) {
    for (int i = 0; i < g.getBlockIndices().length; i++) {
      if (g.getBlockIndices()[i] == unit) {
        return g.getLocations()[i].getXferAddr();
      }
    }
    return null;
  }

  /**
   * One sample's seconds: the healthy cell through ours and stock, the lost one through stock (null: failed), ours;
   * and the host's CPU during our two reads and the stock client's lost one (null: failed).
   */
  private record Sample(double normal, double normalStock, Double stock, String stockFailure, double ours,
      double normalCpu, double oursCpu, Double stockCpu) {}

  /** A read's seconds and the host's CPU during it. */
  private record Timed(double seconds, double cpu) {}

  /** The samples of one moment, reported as medians. */
  private final class Samples {
    private final List<Sample> list = new ArrayList<>();

    int taken() {
      return list.size();
    }

    Sample read(Cell lost, Cell healthy) throws IOException {
      Timed normal = timed(bed.ours, healthy);
      double normalStock = timedRead(bed.stock, healthy);
      Timed stock = null;
      String failure = null;
      try {
        stock = timed(bed.stock, lost);
      } catch (IOException e) {
        failure = e.getMessage();
      }
      Timed ours = timed(bed.ours, lost);
      return new Sample(normal.seconds(), normalStock, stock == null ? null : stock.seconds(), failure,
          ours.seconds(), normal.cpu(), ours.cpu(), stock == null ? null : stock.cpu());
    }

    private Timed timed(FileSystem fs, Cell c) throws IOException {
      HostCpu before = HostCpu.sample();
      double seconds = timedRead(fs, c);
      return new Timed(seconds, HostCpu.sample().busySince(before));
    }

    void add(Sample s) {
      list.add(s);
    }

    /**
     * The medians into {@code m}, with the host's CPU during our reads. With {@code judged} (the reads a target is
     * about), our degraded reads are held to the phases' rule: when the host's CPU during them was above
     * {@link HostCpu#LIMIT} (a chain's helpers and the client each a JVM on this host's cores), they measured the CPU,
     * not the network, and the run lists them among its invalid phases. Reads beside a rebuild share the CPU with it.
     */
    void into(Map<String, Object> m, String when, boolean judged) {
      List<String> failures = list.stream().map(Sample::stockFailure).filter(f -> f != null).toList();
      m.put("rangeBytes", policy.getCellSize());
      m.put("normalReadSeconds", median(list.stream().map(Sample::normal).toList()));
      m.put("normalReadStockSeconds", median(list.stream().map(Sample::normalStock).toList()));
      m.put("degradedReadStockSeconds", median(list.stream().map(Sample::stock).filter(v -> v != null).toList()));
      m.put("degradedReadOursSeconds", median(list.stream().map(Sample::ours).toList()));
      m.put("degradedSamples", list.size());
      Double oursCpu = median(list.stream().map(Sample::oursCpu).toList());
      m.put("normalReadHostCpu", median(list.stream().map(Sample::normalCpu).toList()));
      m.put("degradedReadOursHostCpu", oursCpu);
      m.put("degradedReadStockHostCpu", median(list.stream().map(Sample::stockCpu).filter(v -> v != null).toList()));
      if (judged && !stockPolicy) {
        boolean valid = oursCpu == null || oursCpu <= HostCpu.LIMIT;
        m.put("degradedReadOursValid", valid);
        if (!valid) {
          bed.invalid.add(policy.getName() + " degraded reads (ours) " + when);
        }
      }
      if (!failures.isEmpty()) {
        m.put("degradedReadStockFailures", failures);
      }
    }
  }

  private double timedRead(FileSystem fs, Cell c) throws IOException {
    int len = policy.getCellSize();
    byte[] buf = new byte[len];
    long start = System.nanoTime();
    try (FSDataInputStream in = fs.open(files.get(c.file()))) {
      in.readFully(c.offset(), buf);
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    if (!Arrays.equals(buf, FileContent.range(StripedWorkload.seed(policy, c.file()), c.offset(), len))) {
      throw new IOException(files.get(c.file()) + ": bytes [" + c.offset() + ", " + (c.offset() + len) + ") of unit "
          + c.unit() + " read wrong");
    }
    return seconds;
  }

  private static Double median(List<Double> v) {
    if (v.isEmpty()) {
      return null;
    }
    List<Double> sorted = new ArrayList<>(v);
    sorted.sort(null);
    return Phase.round(sorted.get(sorted.size() / 2));
  }
}
