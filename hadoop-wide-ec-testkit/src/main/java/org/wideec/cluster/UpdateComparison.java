package org.wideec.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.HdfsConstants;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.wideec.archive.StripeMember;
import org.wideec.archive.StripeUpdate;
import org.wideec.archive.encode.EncodePlan;
import org.wideec.archive.hdfs.ArchiveLayout;
import org.wideec.archive.hdfs.BlockMover;
import org.wideec.archive.hdfs.ChainEncoder;
import org.wideec.archive.hdfs.FillUpdate;
import org.wideec.archive.hdfs.ManifestStore;
import org.wideec.archive.hdfs.ParityUpdater;
import org.wideec.demo.ProductCrossover;
import org.wideec.minicluster.StripeReadBack;

/**
 * File churn in archived directories on the real cluster, through the operator's commands run as their own processes
 * ({@code wide-ec archive}, {@code rm}, {@code replace}, {@code archive --fill}), the parity work on the DataNode
 * daemons as {@code wide-ec.update.executor} says (the product layer of the update bench, RackCU §V, moved from an
 * embedded cluster onto the real one). Per code and scheme (baseline, CAU, RackCU), on a fresh archive of
 * {@code 2k + k/2} one-block files: the oldest k/2 removed in one batch, the next replaced, k/2 new files filled into
 * the open stripe's empty slots. Each command is one measured phase: the bytes the kernel counted on the rack
 * uplinks, those into the racks (a byte from rack to rack once, as the plan counts it) beside the plan's figure
 * (RackCU §III's chunks times the unit length; for the fill, its own dry run's, and the moves of its new blocks onto
 * their slots), and its wall time (the time to reclaim, for {@code rm}: the space is freed at the commit, the grace
 * period 0). Each command is followed by the wait for the deletions it caused, measured as a phase of its own
 * ({@link FreedReplicas}), so they are not counted in the next one. Re-encoding is priced beside, not chosen, so each
 * scheme's own delta traffic is measured; a sweep removes 1, 2, 4, ... and k files of one full stripe and finds where
 * the model's re-encoding of the stripe would cross racks less than the measured delta update, and what the default
 * run (re-encoding when cheaper) does. Every remaining file is then compared byte for byte, every stripe checked
 * against an encode and decoded from a random k-subset.
 */
final class UpdateComparison {
  /** The codes, the schemes churned, the schemes swept, and the size of each file (at most one block). */
  record Settings(List<String> codes, List<String> schemes, List<String> sweepSchemes, long fileBytes) {}

  private static final String GRACE_ZERO = ParityUpdater.GRACE_KEY + "=0";

  private final ClusterBed bed;
  private final Settings s;
  private final ManifestStore store;
  private final ObjectMapper mapper = new ObjectMapper();
  private final Map<Path, Long> expected = new LinkedHashMap<>(); // live file -> seed (every file is fileBytes long)
  private final List<String> executors = new ArrayList<>();
  private final List<String> mismatches = new ArrayList<>();
  private long bytesCompared;
  private long bytesLost;
  private int stripesDecoded;
  private long nextSeed = 21_000;

  UpdateComparison(ClusterBed bed, Settings s) {
    this.bed = bed;
    this.s = s;
    this.store = new ManifestStore(bed.stock, ArchiveLayout.from(bed.conf));
  }

  Map<String, Object> run() throws Exception {
    Map<String, Object> perCode = new LinkedHashMap<>();
    // scheme -> bytes into racks, planned, files changed, nanos, uplink bytes both ways, uplink bytes of the trims,
    // planned bytes of the fill's moves
    Map<String, long[]> totals = new LinkedHashMap<>();
    for (String code : s.codes()) {
      Map<String, Object> schemes = new LinkedHashMap<>();
      for (String scheme : s.schemes()) {
        Map<String, Object> j = churn(code, scheme, totals.computeIfAbsent(scheme, x -> new long[7]));
        if (s.sweepSchemes().contains(scheme)) {
          j.put("crossover", sweep(code, scheme));
        }
        schemes.put(scheme, j);
      }
      perCode.put(code, schemes);
    }
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("executor", String.join(",", executors.stream().distinct().toList()));
    r.put("fileBytes", s.fileBytes());
    r.put("codes", perCode);
    Map<String, Object> schemes = new LinkedHashMap<>();
    totals.forEach((scheme, t) -> {
      Map<String, Object> j = new LinkedHashMap<>();
      j.put("crossRackBytes", t[0]);
      j.put("plannedCrossRackBytes", t[1]);
      j.put("fillMoveCrossRackBytes", t[6]);
      j.put("updateCrossRackBytes", t[0] - t[6]);
      j.put("uplinkBytes", t[4]);
      j.put("trimUplinkBytes", t[5]);
      j.put("filesChanged", t[2]);
      j.put("updatesPerSecond", Phase.round(t[2] / (t[3] / 1e9)));
      schemes.put(scheme, j);
    });
    r.put("schemes", schemes);
    ratios(r, totals);
    r.put("bytesCompared", bytesCompared);
    r.put("stripesDecoded", stripesDecoded);
    r.put("mismatches", mismatches);
    r.put("bytesLost", bytesLost);
    return r;
  }

  /**
   * The update bench's ratios over the churn (every code's rm, replace and fill): baselineOverRackcuTraffic and
   * cauOverRackcuTraffic by the bytes into racks less the fill's planned moves, rackcuOverBaselineThroughput by files
   * changed per second. The moves bring a filled file's block into its slot's rack from wherever HDFS wrote it, a
   * draw each scheme's run makes anew and no scheme chooses (one run: 16.8 MB of moves for CAU, 41.9 MB for RackCU,
   * the same update plan), so they stay out of the schemes' traffic.
   */
  static void ratios(Map<String, Object> r, Map<String, long[]> totals) {
    long[] rackcu = totals.get("rackcu");
    long[] baseline = totals.get("baseline");
    long[] cau = totals.get("cau");
    r.put("baselineOverRackcuTraffic", rackcu == null || baseline == null || updateBytes(rackcu) == 0 ? null
        : Phase.round((double) updateBytes(baseline) / updateBytes(rackcu)));
    r.put("cauOverRackcuTraffic", rackcu == null || cau == null || updateBytes(rackcu) == 0 ? null
        : Phase.round((double) updateBytes(cau) / updateBytes(rackcu)));
    r.put("rackcuOverBaselineThroughput", rackcu == null || baseline == null || rackcu[3] == 0 || baseline[2] == 0
        ? null : Phase.round(((double) rackcu[2] / rackcu[3]) / ((double) baseline[2] / baseline[3])));
  }

  /** A scheme's bytes into racks less its fill's planned moves (totals as {@link #run} keeps them). */
  private static long updateBytes(long[] t) {
    return t[0] - (t.length > 6 ? t[6] : 0);
  }

  /** The churn on a fresh archive; adds to {@code total} its cross-rack bytes, planned bytes, files and nanos. */
  private Map<String, Object> churn(String code, String scheme, long[] total) throws Exception {
    int k = org.wideec.code.Codes.pinnedFromSpec(code).k();
    Path dir = new Path("/bench-updates/" + tag(code) + "/" + scheme);
    List<Path> files = write(dir, 0, 2 * k + k / 2);
    archive(dir, code);
    int removed = Math.max(1, k / 2);
    List<Path> oldest = files.subList(0, removed);
    long planned = ProductCrossover.plannedBytes(updater().preview(oldest), scheme);
    long spaceBefore = bed.stock.getContentSummary(new Path("/")).getSpaceConsumed();
    Map<String, Object> rm = command(code + " " + scheme + " rm of " + removed + " files", rm(oldest, scheme, false));
    long reclaimed = spaceBefore - bed.stock.getContentSummary(new Path("/")).getSpaceConsumed();
    oldest.forEach(expected::remove);
    rm.put("filesRemoved", removed);
    rm.put("plannedCrossRackBytes", planned);
    rm.put("reclaimedBytes", reclaimed);
    rm.put("crossRackBytesPerReclaimedGiB", reclaimed <= 0 ? null
        : Phase.round(ProductCrossover.perReclaimedGiB((Long) rm.get("uplinkBytesDown"), reclaimed)));

    Path replaced = files.get(removed);
    Path src = new Path("/bench-updates/src/" + tag(code) + "-" + scheme);
    long seed = writeOne(src);
    long replacePlanned = ProductCrossover.plannedBytes(updater().previewReplace(replaced, src), scheme);
    Map<String, Object> replace = command(code + " " + scheme + " replace", args(false, "replace", replaced.toString(),
        src.toString(), "--scheme", scheme, "--json"));
    expected.remove(src);
    expected.put(replaced, seed);
    replace.put("plannedCrossRackBytes", replacePlanned);

    List<Path> added = write(dir, files.size(), k / 2);
    FillUpdate.Preview fp = new FillUpdate(bed.stock, store, updater()).preview(dir);
    long fillPlanned = ProductCrossover.chosenBytes(Map.of(fp.manifest(), fp.updates()), scheme,
        ChainEncoder.shapeOf(bed.conf), false);
    long fillMoves = plannedMoveBytes(fp);
    Map<String, Object> fill = command(code + " " + scheme + " fill of " + added.size() + " files",
        args(false, "archive", "--fill", dir.toString(), "--scheme", scheme, "--json"));
    fill.put("filesFilled", added.size());
    fill.put("plannedCrossRackBytes", fillPlanned);
    fill.put("plannedMoveCrossRackBytes", fillMoves);
    int stripes = check(dir);

    for (Map<String, Object> m : List.of(rm, replace, fill)) {
      // Into the racks: a byte from rack to rack once (as the plan counts it), and what the tool writes; the way up
      // also carries the tool's reads (its verification's decode), which no scheme's plan prices.
      total[0] += (Long) m.get("uplinkBytesDown");
      total[3] += (long) ((Double) m.get("seconds") * 1e9);
      total[4] += (Long) m.get("crossRackBytes");
      @SuppressWarnings("unchecked")
      Map<String, Object> trims = (Map<String, Object>) m.get("trims");
      total[5] += (Long) trims.get("crossRackBytes");
      long plan = (Long) m.get("plannedCrossRackBytes") + (Long) m.getOrDefault("plannedMoveCrossRackBytes", 0L);
      m.put("overPlanBytes", (Long) m.get("uplinkBytesDown") - plan);
    }
    total[1] += planned + replacePlanned + fillPlanned + fillMoves;
    total[6] += fillMoves;
    total[2] += removed + 1 + added.size();
    Map<String, Object> j = new LinkedHashMap<>();
    j.put("rm", rm);
    j.put("reclaimSeconds", rm.get("seconds"));
    j.put("replace", replace);
    j.put("fill", fill);
    j.put("stripesChecked", stripes);
    return j;
  }

  /**
   * Per point the delta update on a fresh archive of one full stripe of k one-block files, {@code c} of them removed
   * at once with re-encoding off, and the default run where it differs ({@link ProductCrossover#measure}).
   */
  private Map<String, Object> sweep(String code, String scheme) throws Exception {
    int k = org.wideec.code.Codes.pinnedFromSpec(code).k();
    EncodePlan.Shape shape = ChainEncoder.shapeOf(bed.conf);
    List<ProductCrossover.Point> points = new ArrayList<>();
    for (int c : ProductCrossover.points(k)) {
      points.add(ProductCrossover.measure(k, c, scheme, shape, (changed, run) -> trial(code, scheme, changed, run)));
    }
    return ProductCrossover.toJson(points);
  }

  /**
   * A sweep point's fresh one-stripe archive of k files, the first {@code c} of its data units rack by rack to be
   * removed in one batch ({@link ProductCrossover#batch}).
   */
  private ProductCrossover.Trial trial(String code, String scheme, int c, String run) throws IOException {
    int k = org.wideec.code.Codes.pinnedFromSpec(code).k();
    Path dir = new Path("/bench-updates/" + tag(code) + "/" + scheme + "-sweep-" + c + "-" + run);
    List<Path> files = write(dir, 0, k);
    archive(dir, code);
    List<Path> batch = ProductCrossover.batch(updater().preview(files), files, store::inodeOf, c);
    String name = code + " " + scheme + " sweep (" + run + "): rm of " + c + " of " + k;
    return new ProductCrossover.Trial(() -> updater().preview(batch), reEncodeWhenCheaper -> {
      long bytes = (Long) command(name, rm(batch, scheme, reEncodeWhenCheaper)).get("uplinkBytesDown");
      batch.forEach(expected::remove);
      if (c < k) {
        check(dir);
      }
      return bytes;
    });
  }

  /**
   * The cross-rack bytes of moving the fill's new blocks onto their slots' planned nodes before its update, as the
   * fill moves them ({@link BlockMover#candidates}: none when the planned node holds a replica, from within the
   * planned rack when a replica is there, else a whole block across racks). The plan prices the update from the
   * planned nodes, so these bytes come on top of it.
   */
  private long plannedMoveBytes(FillUpdate.Preview p) throws IOException {
    Map<String, DatanodeInfo> live = new java.util.HashMap<>();
    for (DatanodeInfo d : bed.stock.getDataNodeStats(HdfsConstants.DatanodeReportType.LIVE)) {
      live.put(d.getXferAddr(), d);
    }
    long bytes = 0;
    for (StripeUpdate u : p.updates()) {
      for (int unit : u.changedUnits()) {
        StripeMember m = u.after(unit);
        DatanodeInfo target = live.get(m.plannedNode());
        String file = ArchiveLayout.inodePath(m.inodeId()).toUri().getPath();
        LocatedBlock lb = null;
        for (LocatedBlock b : bed.stock.getClient().getLocatedBlocks(file, 0, Long.MAX_VALUE).getLocatedBlocks()) {
          lb = b.getBlock().getBlockId() == m.blockId() ? b : lb;
        }
        if (target == null || lb == null) {
          throw new IOException("the fill's slot for block blk_" + m.blockId() + " of " + file + " is planned on "
              + m.plannedNode() + ", " + (target == null ? "not a live DataNode" : "and the block is gone"));
        }
        bytes += crossRackMoveBytes(file, lb, target);
      }
    }
    return bytes;
  }

  /** The bytes moving the block onto {@code target} sends across racks: none, or the block from another rack. */
  static long crossRackMoveBytes(String file, LocatedBlock lb, DatanodeInfo target) {
    List<BlockMover.Move> ways = BlockMover.candidates(file, lb, target, null);
    return !ways.isEmpty() && !ways.get(0).source().getNetworkLocation().equals(target.getNetworkLocation())
        ? lb.getBlockSize() : 0;
  }

  /** Runs one command as a measured phase: its uplink bytes and seconds, and what its JSON reports. */
  private Map<String, Object> command(String name, String[] args) throws IOException {
    FreedReplicas freed = FreedReplicas.before(bed);
    Phase p = bed.phase(name);
    String output = ToolProcess.run(bed.timeoutMs, args);
    Map<String, Object> m = p.end();
    m.put("trims", freed.await(name));
    JsonNode j = lastJson(output);
    String executor = j.path("executor").asText("client");
    executors.add(executor);
    m.put("executor", executor);
    return m;
  }

  /**
   * The command's JSON (the last line that is one; its log lines share the output). The client executor's bytes
   * cross an uplink too: the tool runs in the client's namespace, on the core switch.
   */
  private JsonNode lastJson(String output) throws IOException {
    List<String> lines = output.lines().filter(l -> l.startsWith("{")).toList();
    if (lines.isEmpty()) {
      throw new IOException("the command printed no JSON: " + output);
    }
    return mapper.readTree(lines.get(lines.size() - 1));
  }

  private void archive(Path dir, String code) throws IOException {
    FreedReplicas freed = FreedReplicas.before(bed);
    String name = "archive " + dir + " (" + code + ")";
    Phase p = bed.setup(name);
    // Combined locality (ECWide §3.4) for both codes: an RS stripe then has up to m units per rack, so rack
    // coordination has units to gather, as on the seed's racks.
    ToolProcess.run(bed.timeoutMs, args(false, "archive", dir.toString(), "--code", code, "--placement", "cl",
        "--json"));
    p.end();
    freed.await(name); // its trim's excess replicas gone before the next step is measured
  }

  private String[] rm(List<Path> files, String scheme, boolean reEncodeWhenCheaper) {
    List<String> a = new ArrayList<>(List.of("rm"));
    files.forEach(f -> a.add(f.toString()));
    a.addAll(List.of("--scheme", scheme, "--json"));
    return args(reEncodeWhenCheaper, a.toArray(new String[0]));
  }

  /**
   * The command with the bench's configuration: space freed at the commit, and re-encoding when cheaper on or off
   * (off: the scheme's own delta update runs, re-encoding is priced beside it).
   */
  static String[] args(boolean reEncodeWhenCheaper, String... command) {
    List<String> a = new ArrayList<>(List.of("-D", GRACE_ZERO, "-D", ParityUpdater.REENCODE_KEY + "="
        + reEncodeWhenCheaper));
    a.addAll(List.of(command));
    return a.toArray(new String[0]);
  }

  private ParityUpdater updater() {
    return ParityUpdater.from(bed.stock, store, bed.conf, ParityUpdater.Hook.NONE);
  }

  /** Files {@code dir/f<first>..} of fileBytes each, oldest first. */
  private List<Path> write(Path dir, int first, int count) throws IOException {
    Phase p = bed.setup("write " + count + " files into " + dir);
    List<Path> out = new ArrayList<>();
    for (int i = first; i < first + count; i++) {
      Path f = new Path(dir, String.format("f%05d", i));
      writeOne(f);
      out.add(f);
    }
    p.end();
    return out;
  }

  private long writeOne(Path f) throws IOException {
    long seed = nextSeed++;
    FileContent.write(bed.stock, f, seed, s.fileBytes());
    expected.put(f, seed);
    return seed;
  }

  /** Every remaining file of the directory byte for byte (through our FileSystem), and every stripe of its archive. */
  private int check(Path dir) throws IOException {
    for (Map.Entry<Path, Long> e : expected.entrySet()) {
      if (e.getKey().getParent().equals(dir)) {
        String m = FileContent.mismatch(bed.ours, e.getKey(), e.getValue(), s.fileBytes());
        bytesCompared += s.fileBytes();
        if (m != null) {
          mismatches.add(m);
          bytesLost += s.fileBytes();
        }
      }
    }
    int n = new StripeReadBack(bed.stock).check(store.find(store.inodeOf(dir)), new Random(stripesDecoded + 1));
    stripesDecoded += n;
    return n;
  }

  private static String tag(String code) {
    return code.replaceAll("[^A-Za-z0-9]+", "-");
  }
}
