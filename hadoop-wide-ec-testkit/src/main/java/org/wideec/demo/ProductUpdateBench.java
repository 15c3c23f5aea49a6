package org.wideec.demo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.util.ToolRunner;
import org.wideec.archive.StripeManifest;
import org.wideec.archive.StripeUpdate;
import org.wideec.archive.UpdateChoice;
import org.wideec.archive.encode.EncodePlan;
import org.wideec.archive.hdfs.ArchiveLayout;
import org.wideec.archive.hdfs.ChainEncoder;
import org.wideec.archive.hdfs.FillUpdate;
import org.wideec.archive.hdfs.ManifestStore;
import org.wideec.archive.hdfs.ParityUpdater;
import org.wideec.cli.WideEcTool;
import org.wideec.datanode.WideEcDataNodePlugin;
import org.wideec.minicluster.MiniClusters;
import org.wideec.minicluster.StripeReadBack;
import org.wideec.transport.TrafficShaper;

/**
 * {@code wide-ec bench update --product}: file churn on directory-level archives of an embedded MiniDFSCluster with
 * racks, through the operator's commands ({@code wide-ec archive}, {@code rm}, {@code replace}, {@code archive --fill})
 * with whichever executor {@code wide-ec.update.executor} selects. Per code (an LRC and an RS stripe of the same k) and
 * per scheme (baseline, cau, rackcu), on a fresh archive of one-block files each time:
 * <ul>
 *   <li>churn: the oldest files removed in one batch, the next oldest replaced, new files filled into the open
 *       stripe's virtual slots; measured: cross-rack bytes per reclaimed GiB (space the namespace consumed before the
 *       removal less after its commit, the grace period 0) and the seconds the removal took; each command beside
 *       its plan (the fill's from the fill's own dry run), and what the updater chooses (the plan, or re-encoding);</li>
 *   <li>sweep: 1, 2, 4, ... and k of a full stripe's data units removed in one batch, rack by rack; per point the
 *       scheme's delta update measured with re-encoding off against the price of re-encoding the stripe instead, the
 *       chain the updater runs ({@link ReEncoding}), and the crossover; beside it what the default run (re-encoding
 *       when cheaper) does.</li>
 * </ul>
 * Cross-rack bytes are the DataNodes' slice-transport counters (the DataNode executor's traffic) plus, when the
 * client executor ran, every byte the tool's process read or wrote through HDFS: that process sits in no rack, so
 * each of its bytes crosses a rack link. Every run ends with every remaining file compared byte for byte and every
 * stripe of the archive checked against an encode and decoded from a random k-subset ({@link StripeReadBack}).
 */
final class ProductUpdateBench {
  static final String LAYER = "product workload, embedded MiniDFSCluster (racks of DataNodes in this process, wide-ec"
      + " commands, slice links shaped node:uplink 10:1)";
  static final List<String> SCHEMES = List.of("baseline", "cau", "rackcu");

  /** Run settings; rates in bytes per second; {@code sweep} false skips the crossover sweep. */
  record Settings(List<String> codes, List<String> schemes, boolean sweep, int racks, int nodesPerRack,
      long blockBytes, String executor, long nodeRate, int oversubscription, long seed) {
    static Settings of(boolean quick, String executor) {
      return quick
          ? new Settings(List.of("azure-lrc:k=6,l=2,g=2", "rs:k=6,m=3"), SCHEMES, true, 6, 3, 1 << 20, executor,
              100_000_000, 10, 1)
          : new Settings(List.of("azure-lrc:k=12,l=2,g=2", "rs:k=12,m=4"), SCHEMES, true, 8, 4, 4 << 20, executor,
              100_000_000, 10, 1);
    }
  }

  private final Settings s;
  private final ProductUpdateReport report;
  private final BenchProgress progress;
  private final ObjectMapper mapper = new ObjectMapper();
  private MiniDFSCluster cluster;
  private DistributedFileSystem fs;
  private Configuration toolConf;
  private ManifestStore store;
  private final Map<Path, long[]> expected = new LinkedHashMap<>(); // live file -> seed and length of its content
  private long bytesCompared;
  private int stripesDecoded;
  private final List<String> executors = new ArrayList<>();

  ProductUpdateBench(Settings s, PrintStream out, PrintStream err) {
    this.s = s;
    this.report = new ProductUpdateReport(out, s);
    int sweepPoints = s.sweep() ? s.codes().stream().mapToInt(c -> ProductCrossover.points(k(c)).size()).sum() : 0;
    this.progress = new BenchProgress(err, "bench update --product", s.schemes().size() * (s.codes().size()
        + sweepPoints));
  }

  Map<String, Object> run() throws Exception {
    File dir = Files.createTempDirectory("wide-ec-bench-update-product").toFile();
    Configuration c = DemoArchive.light(MiniClusters.withWideEcRepair(MiniClusters.withWideEcArchiveTrim(
        new Configuration(), 300)));
    c.setLong(ParityUpdater.GRACE_KEY, 0); // reclaimed means freed at the commit
    if (s.executor() != null) {
      c.set("wide-ec.update.executor", s.executor());
      // Each scheme's own delta traffic is measured; re-encoding is priced by the model beside it.
      c.setBoolean("wide-ec.update.reencode.when-cheaper", false);
    }
    report.header();
    cluster = MiniClusters.start(c, dir, s.racks(), s.nodesPerRack(), s.blockBytes());
    try {
      fs = cluster.getFileSystem();
      toolConf = new Configuration(cluster.getConfiguration(0));
      store = new ManifestStore(fs, ArchiveLayout.from(toolConf));
      TrafficShaper.emulate(new long[] {s.nodeRate(), s.nodeRate() / s.oversubscription()});
      Map<String, Object> perCode = new LinkedHashMap<>();
      for (String code : s.codes()) {
        Map<String, Object> schemes = new LinkedHashMap<>();
        for (String scheme : s.schemes()) {
          Map<String, Object> j = churn(code, scheme);
          if (s.sweep()) {
            j.put("crossover", sweep(code, scheme));
          }
          schemes.put(scheme, j);
        }
        perCode.put(code, schemes);
      }
      return report.summary(perCode, executors, bytesCompared, stripesDecoded);
    } finally {
      TrafficShaper.emulate(null);
      cluster.shutdown();
      org.apache.hadoop.fs.FileUtil.fullyDelete(dir);
    }
  }

  /** The churn on a fresh archive of {@code 2k + k/2} one-block files; the last stripe has k/2 open slots. */
  private Map<String, Object> churn(String code, String scheme) throws Exception {
    int k = k(code);
    Path dir = new Path("/product/" + tag(code) + "/" + scheme + "/churn");
    List<Path> files = writeFiles(dir, 0, 2 * k + k / 2);
    archive(dir, code);
    int removed = Math.max(1, k / 2);
    List<Path> oldest = files.subList(0, removed);
    long planned = planned(oldest, scheme);
    Map<String, Long> chosen = chosen(oldest);
    boolean reEncodes = reEncodes(updater().preview(oldest), scheme);
    long spaceBefore = fs.getContentSummary(new Path("/")).getSpaceConsumed();
    long t0 = System.nanoTime();
    long rmBytes = measured(() -> rm(oldest, scheme));
    double reclaimSeconds = (System.nanoTime() - t0) / 1e9;
    long reclaimed = spaceBefore - fs.getContentSummary(new Path("/")).getSpaceConsumed();
    oldest.forEach(expected::remove);

    Path replaced = files.get(removed);
    Path src = new Path("/product/src/" + tag(code) + "-" + scheme);
    long[] content = write(src, s.blockBytes());
    long replaceBytes = measured(() -> tool("replace", replaced.toString(), src.toString(), "--scheme", scheme,
        "--json"));
    expected.remove(src);
    expected.put(replaced, content);

    List<Path> added = writeFiles(dir, files.size(), k / 2);
    Map<StripeManifest, List<StripeUpdate>> fillPreview = fillPreview(dir);
    long fillPlanned = ProductCrossover.plannedBytes(fillPreview, scheme);
    long fillChosen = ProductCrossover.chosenBytes(fillPreview, scheme, ChainEncoder.shapeOf(toolConf),
        toolConf.getBoolean(ParityUpdater.REENCODE_KEY, ParityUpdater.REENCODE_DEFAULT));
    boolean fillReEncodes = reEncodes(fillPreview, scheme);
    long fillBytes = measured(() -> tool("archive", "--fill", dir.toString(), "--scheme", scheme, "--json"));
    int stripes = checkArchive(dir);

    Map<String, Object> j = report.churn(code, scheme, new ProductUpdateReport.Churn(removed, reclaimed, rmBytes,
        planned, chosen, reEncodes, reclaimSeconds, replaceBytes, added.size(), fillBytes, fillPlanned, fillChosen,
        fillReEncodes, stripes));
    progress.step(code + " " + scheme + " churn");
    return j;
  }

  /**
   * Per point the delta update on a fresh archive of exactly one full stripe of one-block files, {@code c} of them
   * removed at once with re-encoding off, and the default run where it differs ({@link ProductCrossover#measure}).
   */
  private Map<String, Object> sweep(String code, String scheme) throws Exception {
    int k = k(code);
    EncodePlan.Shape shape = ChainEncoder.shapeOf(toolConf);
    List<ProductCrossover.Point> points = new ArrayList<>();
    for (int c : ProductCrossover.points(k)) {
      points.add(ProductCrossover.measure(k, c, scheme, shape, (changed, run) -> trial(code, scheme, changed, run)));
      progress.step(code + " " + scheme + " sweep " + c + "/" + k);
    }
    return report.sweep(code, scheme, points);
  }

  /**
   * A sweep point's fresh one-stripe archive of k files, the first c of its data units rack by rack to be removed in
   * one batch ({@link ProductCrossover#batch}): the same shape of update on every archive, wherever HDFS put the
   * blocks, so the delta run and the default run of a point (two archives) price the same update, and every run the
   * same.
   */
  private ProductCrossover.Trial trial(String code, String scheme, int c, String run) throws Exception {
    int k = k(code);
    Path dir = new Path("/product/" + tag(code) + "/" + scheme + "/sweep-" + c + "-" + run);
    List<Path> files = writeFiles(dir, 0, k);
    archive(dir, code);
    List<Path> batch = ProductCrossover.batch(updater().preview(files), files, store::inodeOf, c);
    return new ProductCrossover.Trial(() -> updater().preview(batch), reEncodeWhenCheaper -> {
      long bytes = measured(() -> rm(batch, scheme, reEncodeWhenCheaper));
      batch.forEach(expected::remove);
      if (c < k) {
        checkArchive(dir);
      }
      return bytes;
    });
  }

  /**
   * Archives the directory with combined locality (ECWide §3.4) for both codes: an RS stripe then has up to m units
   * per rack, as the seed's RS(12,4) over 8 racks of 2, so rack coordination has units to gather.
   */
  private void archive(Path dir, String code) throws Exception {
    tool("archive", dir.toString(), "--code", code, "--placement", "cl", "--json");
  }

  /** The scheme's planned cross-rack bytes of removing these files now (the dry run's stripe updates). */
  private long planned(List<Path> files, String scheme) throws IOException {
    return ProductCrossover.plannedBytes(updater().preview(files), scheme);
  }

  /**
   * What each scheme's run of this removal would send across racks on this archive, re-encoding where the updater
   * would (the measured run is one of them; comparing schemes on one archive keeps the random placement out of it).
   */
  private Map<String, Long> chosen(List<Path> files) throws IOException {
    Map<StripeManifest, List<StripeUpdate>> preview = updater().preview(files);
    EncodePlan.Shape shape = ChainEncoder.shapeOf(toolConf);
    boolean whenCheaper = toolConf.getBoolean(ParityUpdater.REENCODE_KEY, ParityUpdater.REENCODE_DEFAULT);
    Map<String, Long> out = new LinkedHashMap<>();
    java.util.Set<String> schemes = new java.util.LinkedHashSet<>(List.of("baseline", "cau", "rackcu"));
    schemes.addAll(s.schemes());
    for (String scheme : schemes) {
      out.put(scheme, ProductCrossover.chosenBytes(preview, scheme, shape, whenCheaper));
    }
    return out;
  }

  /**
   * Whether the updater re-encodes a stripe of these updates under the scheme: its chain's streams then carry every
   * row at the parity length (the longest kept unit), shorter units read as zeros past their end.
   */
  private boolean reEncodes(Map<StripeManifest, List<StripeUpdate>> preview, String scheme) {
    return ProductCrossover.choices(preview, scheme, ChainEncoder.shapeOf(toolConf),
        toolConf.getBoolean(ParityUpdater.REENCODE_KEY, ParityUpdater.REENCODE_DEFAULT)).stream()
        .anyMatch(UpdateChoice::reEncodes);
  }

  /** The fill's stripe updates as the updater will plan them ({@code archive --fill --dry-run}), changing nothing. */
  private Map<StripeManifest, List<StripeUpdate>> fillPreview(Path dir) throws IOException {
    FillUpdate.Preview p = new FillUpdate(fs, store, updater()).preview(dir);
    return Map.of(p.manifest(), p.updates());
  }

  private ParityUpdater updater() {
    return ParityUpdater.from(fs, store, toolConf, ParityUpdater.Hook.NONE);
  }

  private JsonNode rm(List<Path> files, String scheme) throws Exception {
    return rm(files, scheme, toolConf.getBoolean(ParityUpdater.REENCODE_KEY, ParityUpdater.REENCODE_DEFAULT));
  }

  /** {@code wide-ec rm} of the files in one batch, re-encoding when cheaper or never (the tool's {@code -D}). */
  private JsonNode rm(List<Path> files, String scheme, boolean reEncodeWhenCheaper) throws Exception {
    List<String> args = new ArrayList<>(List.of("-D", ParityUpdater.REENCODE_KEY + "=" + reEncodeWhenCheaper, "rm"));
    files.forEach(p -> args.add(p.toString()));
    args.addAll(List.of("--scheme", scheme, "--json"));
    return tool(args.toArray(new String[0]));
  }

  @FunctionalInterface
  private interface Command {
    JsonNode run() throws Exception;
  }

  /**
   * The bytes that crossed racks while the command ran: the DataNodes' slice-transport counters, plus the client
   * executor's HDFS reads and writes (this process is in no rack). Notes which executor the command reports.
   */
  private long measured(Command c) throws Exception {
    long before = dataNodeCrossRack();
    JsonNode j = c.run();
    long client = 0;
    String executor = j.path("executor").asText("client");
    executors.add(executor);
    if (executor.equals("client")) {
      List<JsonNode> runs = new ArrayList<>();
      if (j.has("archives")) {
        j.get("archives").forEach(runs::add);
      } else {
        runs.add(j);
      }
      for (JsonNode r : runs) {
        client += r.path("bytesRead").asLong() + r.path("bytesWritten").asLong();
      }
    }
    return dataNodeCrossRack() - before + client;
  }

  private long dataNodeCrossRack() {
    long sum = 0;
    for (DataNode d : cluster.getDataNodes()) {
      WideEcDataNodePlugin p = WideEcDataNodePlugin.running(d.getXferPort());
      sum += p == null || p.metrics() == null ? 0 : p.metrics().bytesSentCrossRack();
    }
    return sum;
  }

  /** Runs the operator's command against the cluster; its JSON, or an IOException with what it printed. */
  private JsonNode tool(String... args) throws Exception {
    ByteArrayOutputStream o = new ByteArrayOutputStream();
    ByteArrayOutputStream e = new ByteArrayOutputStream();
    int rc = ToolRunner.run(new Configuration(toolConf), new WideEcTool(new PrintStream(o, true,
        StandardCharsets.UTF_8), new PrintStream(e, true, StandardCharsets.UTF_8)), args);
    String text = o.toString(StandardCharsets.UTF_8);
    if (rc != 0) {
      throw new IOException("wide-ec " + String.join(" ", args) + " exited " + rc + ": " + text
          + e.toString(StandardCharsets.UTF_8));
    }
    String[] lines = text.strip().split("\n");
    return mapper.readTree(lines[lines.length - 1]);
  }

  /** Files {@code dir/f<first>..}, one block each (every third a short block), oldest first. */
  private List<Path> writeFiles(Path dir, int first, int count) throws IOException {
    List<Path> out = new ArrayList<>();
    for (int i = first; i < first + count; i++) {
      Path p = new Path(dir, String.format("f%05d", i));
      write(p, i % 3 == 2 ? s.blockBytes() / 2 + i : s.blockBytes());
      out.add(p);
    }
    return out;
  }

  /** Writes a file of {@code length} seeded random bytes and remembers them; returns its seed and length. */
  private long[] write(Path p, long length) throws IOException {
    long seed = s.seed() * 1_000_003L + expected.size() * 7919L + p.hashCode();
    try (FSDataOutputStream o = fs.create(p, true)) {
      o.write(content(seed, length));
    }
    long[] written = {seed, length};
    expected.put(p, written);
    return written;
  }

  private static byte[] content(long seed, long length) {
    byte[] b = new byte[(int) length];
    new Random(seed).nextBytes(b);
    return b;
  }

  /** Every remaining file of the directory byte for byte, and every stripe of its archive; returns the stripes. */
  private int checkArchive(Path dir) throws IOException {
    for (Map.Entry<Path, long[]> e : expected.entrySet()) {
      if (!e.getKey().getParent().equals(dir)) {
        continue;
      }
      byte[] got;
      try (FSDataInputStream in = fs.open(e.getKey())) {
        got = in.readAllBytes();
      }
      byte[] want = content(e.getValue()[0], e.getValue()[1]);
      if (!Arrays.equals(want, got)) {
        throw new IOException(e.getKey() + ": the " + got.length + " bytes read back differ from the " + want.length
            + " written");
      }
      bytesCompared += got.length;
    }
    int n = new StripeReadBack(fs).check(store.find(store.inodeOf(dir)), new Random(s.seed()));
    stripesDecoded += n;
    return n;
  }

  private static int k(String code) {
    return org.wideec.code.Codes.pinnedFromSpec(code).k();
  }

  private static String tag(String code) {
    return code.replaceAll("[^A-Za-z0-9]+", "-");
  }
}
