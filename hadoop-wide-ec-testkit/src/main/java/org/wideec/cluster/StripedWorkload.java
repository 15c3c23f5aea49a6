package org.wideec.cluster;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.wideec.code.LinearCode;
import org.wideec.minicluster.StripedGroups;

/**
 * One striped policy on the real cluster: its files written, a DataNode killed with SIGKILL and the time until
 * every group it held is whole again (kernel uplink bytes, HDFS's and our DataNode counters), then a rack lost when
 * the groups' placement survives it, then a DataNode again; during the last two, lost ranges are read through the
 * stock client and through WideEcFileSystem beside healthy ranges, and files are read in the foreground.
 * Every file is compared byte for byte at the end.
 *
 * <p>Stock policies (codec "rs") are HDFS's own end to end: our placement policy leaves groups of codecs that are not
 * ours to HDFS's rack-fault-tolerant policy, our worker takes over only tasks of our codecs, and the cluster's
 * configuration names no coder for "rs" (io.erasurecode.codec.rs.rawcoders unset, so Hadoop's own coders). The run
 * checks it: a stock recovery that our worker touched fails the bench.
 */
final class StripedWorkload {
  /** Sizes and counts of one workload. */
  record Settings(long dataBytes, long fileBytes, int readSamples, double foregroundSeconds) {}

  private final ClusterBed bed;
  private final ErasureCodingPolicy policy;
  private final Settings s;
  private final boolean stockPolicy;
  private final List<Path> files = new ArrayList<>();
  private final LinearCode code;

  StripedWorkload(ClusterBed bed, ErasureCodingPolicy policy, Settings s) {
    this.bed = bed;
    this.policy = policy;
    this.s = s;
    this.stockPolicy = ClusterBed.isStock(policy);
    this.code = ClusterBed.codeOf(policy);
  }

  /** Foreground reads go the way this policy's users read: HDFS's client for stock, our FileSystem for ours. */
  private FileSystem reader() {
    return stockPolicy ? bed.stock : bed.ours;
  }

  Map<String, Object> run() throws IOException, InterruptedException {
    String name = policy.getName();
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("policy", name);
    r.put("stock", stockPolicy);
    Path dir = new Path("/bench-cluster/" + name);
    bed.stock.delete(dir, true);
    bed.stock.mkdirs(dir);
    bed.stock.setErasureCodingPolicy(dir, name);
    int count = (int) Math.max(1, (s.dataBytes() + s.fileBytes() - 1) / s.fileBytes());
    for (int f = 0; f < count; f++) {
      files.add(new Path(dir, "f" + f));
    }
    Phase write = bed.setup(name + " write");
    for (int f = 0; f < count; f++) {
      FileContent.write(bed.stock, files.get(f), seed(f), s.fileBytes());
    }
    bed.awaitWhole(files, policy);
    r.put("write", write.end());
    r.put("dataBytes", count * s.fileBytes());

    Phase read = bed.phase(name + " foreground read");
    long[] fg = readFor(s.foregroundSeconds(), new AtomicBoolean());
    Map<String, Object> readPhase = read.end();
    readPhase.put("bytesPerSecond", fg[0] * 1e9 / fg[1]);
    r.put("foregroundRead", readPhase);

    DatanodeInfo victim = StripedGroups.location(StripedGroups.groups(bed.stock, files.get(0)).get(0), 0);
    r.put("nodeLoss", nodeLoss(victim, false));

    int rack = ClusterScript.rackOf(victim);
    List<DatanodeInfo> rackNodes = bed.rack(rack);
    int width = policy.getNumDataUnits() + policy.getNumParityUnits();
    String rackVerdict = bed.liveDataNodes() - rackNodes.size() < width
        ? "rack" + rack + " holds " + rackNodes.size() + " DataNodes: too few would be left to rebuild " + width
            + "-unit groups on distinct nodes"
        : rackLossSurvivable(rackNodes);
    r.put("rackLossTolerated", rackVerdict == null);
    if (rackVerdict == null) {
      r.put("rackLoss", rackLoss(rack, rackNodes));
    } else {
      r.put("rackLossSkipped", rackVerdict);
    }
    // Lost ranges read while one DataNode's units are rebuilt: the common case, where a lost unit's local group
    // survives. The first victim's units were rebuilt elsewhere and its returning copies deleted: strike today's
    // holder of the same unit.
    DatanodeInfo again = StripedGroups.location(StripedGroups.groups(bed.stock, files.get(0)).get(0), 0);
    r.put("readsDuringNodeRecovery", nodeLoss(again, true));

    compareAll(r, count);
    bed.stock.delete(dir, true);
    return r;
  }

  /** Every file read back through our FileSystem against what was written: bytes compared, lost, and each mismatch. */
  private void compareAll(Map<String, Object> r, int count) throws IOException {
    long lost = 0;
    List<String> mismatches = new ArrayList<>();
    for (int f = 0; f < count; f++) {
      String m = FileContent.mismatch(bed.ours, files.get(f), seed(f), s.fileBytes());
      if (m != null) {
        mismatches.add(m);
        lost += s.fileBytes();
      }
    }
    r.put("bytesCompared", count * s.fileBytes());
    r.put("bytesLost", lost);
    r.put("mismatches", mismatches);
  }

  private long seed(int file) {
    return policy.getName().hashCode() * 31L + file;
  }

  /**
   * Kills {@code victim} with SIGKILL and waits until every group is whole; with {@code reads}, lost ranges and
   * foreground reads are measured while the rebuild runs (their traffic then mixes with the recovery's).
   */
  private Map<String, Object> nodeLoss(DatanodeInfo victim, boolean reads) throws IOException, InterruptedException {
    String node = ClusterScript.nodeName(victim);
    int units = unitsOn(Set.of(victim.getXferAddr()));
    Set<String> leftOut = Set.of(victim.getXferAddr());
    Map<String, Long> before = bed.counters.sum(leftOut);
    Phase p = bed.phase(policy.getName() + (reads ? " reads during node recovery" : " node loss") + " (" + node + ")");
    bed.cluster.kill(node);
    bed.awaitDropped(List.of(victim), files);
    double dropped = p.seconds();
    Map<String, Object> during = reads ? readWhileRecovering() : Map.of();
    bed.awaitWhole(files, policy);
    double whole = p.seconds();
    Map<String, Object> m = p.end();
    Map<String, Long> counters = DataNodeCounters.delta(before, bed.counters.sum(leftOut));
    m.put("node", node);
    m.put("unitsLost", units);
    m.put("killToDroppedSeconds", Phase.round(dropped));
    m.put("repairSeconds", Phase.round(whole - dropped));
    m.putAll(during);
    m.put("counters", counters);
    checkReconstructor(counters);
    int nodes = bed.liveDataNodes() + 1;
    bed.startDataNode(node);
    bed.awaitLive(nodes);
    bed.awaitWhole(files, policy); // its old replicas come back as excess, and the NameNode deletes them
    return m;
  }

  private Map<String, Object> rackLoss(int rack, List<DatanodeInfo> nodes) throws IOException, InterruptedException {
    Set<String> leftOut = new HashSet<>();
    nodes.forEach(d -> leftOut.add(d.getXferAddr()));
    int units = unitsOn(leftOut);
    Map<String, Long> before = bed.counters.sum(leftOut);
    int live = bed.liveDataNodes();
    Phase p = bed.phase(policy.getName() + " rack loss (rack" + rack + ", " + nodes.size() + " DataNodes)");
    bed.cluster.rack(rack, false);
    Map<String, Object> m;
    try {
      bed.awaitDropped(nodes, files);
      double dropped = p.seconds();
      Map<String, Object> during = readWhileRecovering();
      bed.awaitWhole(files, policy);
      double whole = p.seconds();
      m = p.end();
      m.put("rack", rack);
      m.put("unitsLost", units);
      m.put("killToDroppedSeconds", Phase.round(dropped));
      m.put("repairSeconds", Phase.round(whole - dropped));
      m.putAll(during);
      Map<String, Long> counters = DataNodeCounters.delta(before, bed.counters.sum(leftOut));
      m.put("counters", counters);
      checkReconstructor(counters);
    } finally {
      bed.cluster.rack(rack, true);
    }
    bed.awaitLive(live);
    bed.awaitWhole(files, policy);
    return m;
  }

  /** Stock recoveries must be HDFS's alone, ours our worker's: say so loudly when not. */
  private void checkReconstructor(Map<String, Long> c) throws IOException {
    long ourTasks = c.get("wideEcTasksCompleted") + c.get("wideEcTasksHandedToStock");
    if (stockPolicy && ourTasks != 0) {
      throw new IOException(policy.getName() + ": our worker touched " + ourTasks + " tasks of a stock policy");
    }
    if (!stockPolicy && c.get("wideEcTasksHandedToStock") != 0) {
      throw new IOException(policy.getName() + ": our worker handed " + c.get("wideEcTasksHandedToStock")
          + " tasks to HDFS's reconstructor");
    }
  }

  private int unitsOn(Set<String> addrs) throws IOException {
    int n = 0;
    for (Path f : files) {
      for (LocatedStripedBlock g : StripedGroups.groups(bed.stock, f)) {
        n += (int) Arrays.stream(g.getLocations()).filter(d -> addrs.contains(d.getXferAddr())).count();
      }
    }
    return n;
  }

  /** Null when every group's units in those nodes form a pattern the code decodes; else why not. */
  private String rackLossSurvivable(List<DatanodeInfo> nodes) throws IOException {
    Set<String> addrs = new HashSet<>();
    nodes.forEach(d -> addrs.add(d.getXferAddr()));
    for (Path f : files) {
      for (LocatedStripedBlock g : StripedGroups.groups(bed.stock, f)) {
        List<Integer> lost = new ArrayList<>();
        for (int i = 0; i < g.getLocations().length; i++) {
          if (addrs.contains(g.getLocations()[i].getXferAddr())) {
            lost.add((int) g.getBlockIndices()[i]);
          }
        }
        if (!code.isDecodable(lost.stream().mapToInt(Integer::intValue).toArray())) {
          return "group " + g.getBlock().getBlockName() + " keeps units " + lost + " in that rack, which "
              + policy.getName() + " cannot decode without";
        }
      }
    }
    return null;
  }

  /**
   * While units are missing: one cell of a lost data unit read through the stock client and through WideEcFileSystem,
   * each beside a healthy cell read the same way, then foreground reads until the groups are whole.
   */
  private Map<String, Object> readWhileRecovering() throws IOException, InterruptedException {
    int cell = policy.getCellSize();
    List<Double> normal = new ArrayList<>();
    List<Double> stockDegraded = new ArrayList<>();
    List<Double> oursDegraded = new ArrayList<>();
    List<String> stockFailures = new ArrayList<>();
    ReadPaths paths = new ReadPaths(bed.ours.readPathCounters());
    for (int sample = 0; sample < s.readSamples(); sample++) {
      long[] lost = rangeOf(true);
      long[] healthy = rangeOf(false);
      if (lost == null || healthy == null) {
        break; // rebuilt before all samples were taken
      }
      normal.add(timedRead(bed.ours, healthy, cell));
      try {
        stockDegraded.add(timedRead(bed.stock, lost, cell));
      } catch (IOException e) {
        stockFailures.add(e.getMessage());
      }
      oursDegraded.add(timedRead(bed.ours, lost, cell));
    }
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("rangeBytes", cell);
    m.put("normalReadSeconds", median(normal));
    m.put("degradedReadStockSeconds", median(stockDegraded));
    m.put("degradedReadOursSeconds", median(oursDegraded));
    m.put("degradedSamples", oursDegraded.size());
    if (!stockFailures.isEmpty()) {
      m.put("degradedReadStockFailures", stockFailures);
    }
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
   * {file index, offset} of the first cell of a data unit that is missing now ({@code lost}) or present, in a full
   * group; null when there is none.
   */
  private long[] rangeOf(boolean lost) throws IOException {
    int k = policy.getNumDataUnits();
    for (int f = 0; f < files.size(); f++) {
      for (LocatedStripedBlock g : StripedGroups.groups(bed.stock, files.get(f))) {
        if (g.getBlockSize() < (long) k * policy.getCellSize()) {
          continue;
        }
        List<Integer> missing = StripedGroups.missingUnits(g, policy);
        for (int i = 0; i < k; i++) {
          if (missing.contains(i) == lost) {
            return new long[] {f, g.getStartOffset() + (long) i * policy.getCellSize()};
          }
        }
      }
    }
    return null;
  }

  private double timedRead(FileSystem fs, long[] range, int len) throws IOException {
    int f = (int) range[0];
    byte[] buf = new byte[len];
    long start = System.nanoTime();
    try (FSDataInputStream in = fs.open(files.get(f))) {
      in.readFully(range[1], buf);
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    if (!Arrays.equals(buf, FileContent.range(seed(f), range[1], len))) {
      throw new IOException(files.get(f) + ": bytes [" + range[1] + ", " + (range[1] + len) + ") read wrong");
    }
    return seconds;
  }

  /** Reads the files in turn until {@code stop} is set or {@code seconds} pass: {bytes, nanoseconds}. */
  private long[] readFor(double seconds, AtomicBoolean stop) throws IOException {
    AtomicLong bytes = new AtomicLong();
    byte[] buf = new byte[1 << 20];
    long start = System.nanoTime();
    outer:
    for (int f = 0; ; f = (f + 1) % files.size()) {
      try (FSDataInputStream in = reader().open(files.get(f))) {
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

  private static Double median(List<Double> v) {
    if (v.isEmpty()) {
      return null;
    }
    List<Double> sorted = new ArrayList<>(v);
    sorted.sort(null);
    return Phase.round(sorted.get(sorted.size() / 2));
  }
}
