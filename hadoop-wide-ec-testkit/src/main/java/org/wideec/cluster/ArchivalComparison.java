package org.wideec.cluster;

import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.tools.DistCp;

/**
 * Archival of a replicated directory on the real cluster, three ways over the same bytes: in place to a wide code
 * with our chain encoder ({@code wide-ec archive --mr --maps N DIR --encoder chain}), sealed with RapidRAID ({@code --encoder
 * rapidraid}, file by file), and the way users convert today: DistCp into a directory of a stock RS policy, then the
 * source deleted. DistCp runs as a real MapReduce job in local mode (LocalJobRunner, maps in parallel threads) in a JVM
 * of its own in the client's namespace, as the archiver does: the cluster has no YARN, and local mode moves the same
 * bytes a YARN job would, through the client's link instead of the DataNodes' (every byte read out of the racks and
 * written back into them).
 */
final class ArchivalComparison {
  /** What to archive and how. */
  record Settings(long dataBytes, long fileBytes, String wideCode, String rapidRaidCode, String distcpPolicy, int maps,
      String placement, String grouping) {
    /**
     * {@code wide-ec archive}'s arguments after PATH: the code, the encoder, the placement when one is forced, and for
     * the chain the stripe grouping (auto: around core racks where that crosses racks less, EAR).
     */
    String[] archiveArgs(String code, String encoder) {
      java.util.List<String> a = new java.util.ArrayList<>(java.util.List.of("--code", code, "--encoder", encoder));
      if (encoder.equals("chain")) {
        a.add("--grouping");
        a.add(grouping);
      }
      if (placement != null) {
        a.add("--placement");
        a.add(placement);
      }
      return a.toArray(new String[0]);
    }
  }

  private final ClusterBed bed;
  private final Settings s;

  ArchivalComparison(ClusterBed bed, Settings s) {
    this.bed = bed;
    this.s = s;
  }

  Map<String, Object> run() throws Exception {
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("dataBytes", files() * s.fileBytes());
    r.put("wideCode", s.wideCode());
    r.put("rapidRaidCode", s.rapidRaidCode());
    r.put("distcpPolicy", s.distcpPolicy());
    r.put("grouping", s.grouping());
    Path root = new Path("/bench-archive");
    bed.stock.delete(root, true);
    Path chain = writeReplicated(new Path(root, "chain"));
    Path rapid = writeReplicated(new Path(root, "rapidraid"));
    Path source = writeReplicated(new Path(root, "src"));
    r.put("warmUp", warmUp(root));

    // As a MapReduce job with as many maps as DistCp gets, so both sides run their stripes or copies in parallel.
    Phase p = bed.phase("archive " + s.wideCode() + " chain");
    String said = ToolProcess.run(bed.timeoutMs, concat(new String[] {"archive", "--mr", "--maps",
        Integer.toString(s.maps()), chain.toString()}, s.archiveArgs(s.wideCode(), "chain")));
    r.put("chain", p.end());
    keep("archive-chain", said);

    r.put("rapidRaid", archiveRapidRaid(rapid));

    Path target = new Path(root, "stock");
    r.put("distcp", distcp(source, target));
    Path copied = new Path(target, "src");
    for (int f = 0; f < files(); f++) {
      var ec = bed.stock.getErasureCodingPolicy(new Path(copied, "f" + f));
      if (ec == null || !ec.getName().equals(s.distcpPolicy())) {
        throw new IOException(new Path(copied, "f" + f) + " is not striped with " + s.distcpPolicy() + " after distcp");
      }
    }

    long lost = 0;
    List<String> mismatches = new ArrayList<>();
    lost += compare(bed.ours, chain, mismatches);
    lost += compare(bed.ours, rapid, mismatches);
    lost += compare(bed.stock, copied, mismatches);
    lost += compare(bed.ours, new Path(root, WARM_CHAIN), 1, mismatches);
    lost += compare(bed.stock, new Path(new Path(root, WARM_STOCK), WARM_SOURCE), 1, mismatches);
    r.put("bytesCompared", (3L * files() + 2) * s.fileBytes());
    r.put("bytesLost", lost);
    r.put("mismatches", mismatches);
    // Deleted as a whole: the bench cluster is thrown away after the run, so the archives' manifests may be orphaned.
    bed.stock.delete(root, true);
    return r;
  }

  private static final String WARM_CHAIN = "warm-chain";
  private static final String WARM_SOURCE = "warm-src";
  private static final String WARM_STOCK = "warm-stock";

  /**
   * Both sides' DataNode paths run once before the timed runs, untimed: one file archived by our chain, one copied by
   * DistCp, each through its own tool JVM as the timed runs are. A production cluster's DataNodes are long-running
   * daemons that have archived and written before. Here DistCp's paths (block reads and writes) are already warm from
   * writing the data and ours (the encode trees' steps, collectors and digests) are not: their first run compiles them
   * in every DataNode at once, about 3 of the host's CPU seconds on the 24-DataNode development cluster (13-14 CPU
   * seconds in the DataNodes for a warm archival of 512 MiB against 16.6 for the first). The recoveries are compared
   * warm the same way ({@link StripedWorkload}). The tools themselves start cold in every run.
   *
   * @return the warm-up runs' seconds
   */
  private Map<String, Object> warmUp(Path root) throws Exception {
    Path chain = new Path(root, WARM_CHAIN);
    Path source = new Path(root, WARM_SOURCE);
    writeReplicated(chain, 1);
    writeReplicated(source, 1);
    bed.log.println("cluster bench: warming both sides' DataNode paths (untimed): " + chain + " archived, " + source
        + " copied by distcp");
    Map<String, Object> w = new LinkedHashMap<>();
    long start = System.nanoTime();
    ToolProcess.run(bed.timeoutMs, concat(new String[] {"archive", "--mr", "--maps", Integer.toString(s.maps()),
        chain.toString()}, s.archiveArgs(s.wideCode(), "chain")));
    w.put("chainSeconds", Math.round((System.nanoTime() - start) / 1e6) / 1e3);
    Path target = new Path(root, WARM_STOCK);
    bed.stock.mkdirs(target);
    bed.stock.setErasureCodingPolicy(target, s.distcpPolicy());
    start = System.nanoTime();
    ToolProcess.finish(ToolProcess.startMain(DistCp.class.getName(), "distcp", distcpArgs(source, target)),
        bed.timeoutMs);
    w.put("distcpSeconds", Math.round((System.nanoTime() - start) / 1e6) / 1e3);
    return w;
  }

  /** Archives the files under {@code rapid} with RapidRAID, by a list of paths as a batch job would; the phase's figures. */
  private Map<String, Object> archiveRapidRaid(Path rapid) throws Exception {
    java.nio.file.Path list = Files.createTempFile("rapidraid-paths", ".txt");
    List<String> paths = new ArrayList<>();
    for (int f = 0; f < files(); f++) {
      paths.add(new Path(rapid, "f" + f).toString());
    }
    Files.write(list, paths);
    Phase p = bed.phase("archive " + s.rapidRaidCode() + " rapidraid");
    String said = ToolProcess.run(bed.timeoutMs, concat(new String[] {"archive", "--paths-from", "file://" + list},
        s.archiveArgs(s.rapidRaidCode(), "rapidraid")));
    Map<String, Object> figures = p.end();
    keep("archive-rapidraid", said);
    Files.delete(list);
    return figures;
  }

  /** Copies {@code source} into the stock striped policy with distcp, then deletes the source; the phase's figures. */
  private Map<String, Object> distcp(Path source, Path target) throws Exception {
    bed.stock.mkdirs(target);
    bed.stock.setErasureCodingPolicy(target, s.distcpPolicy());
    Phase p = bed.phase("distcp into " + s.distcpPolicy());
    // Its own JVM, as `hadoop distcp` runs and as our archiver runs beside it: neither side's client starts warm.
    String said = ToolProcess.finish(ToolProcess.startMain(DistCp.class.getName(), "distcp",
        distcpArgs(source, target)), bed.timeoutMs);
    bed.stock.delete(source, true);
    Map<String, Object> figures = p.end();
    keep("distcp", said);
    return figures;
  }

  /** DistCp as users run it into a striped directory, in local mode with as many maps as the archiver. */
  private String[] distcpArgs(Path source, Path target) {
    return new String[] {"-D", "mapreduce.framework.name=local", "-D", "mapreduce.local.map.tasks.maximum=" + s.maps(),
        // Replicated and striped files have comparable checksums only as composite CRCs (HDFS-13056).
        "-D", "dfs.checksum.combine.mode=COMPOSITE_CRC",
        "-m", Integer.toString(s.maps()), source.toString(), target.toString()};
  }

  /**
   * A timed tool's output kept beside the daemons' logs ({@code logs/bench-NAME.txt} in the cluster's directory, which
   * {@code cluster.sh down} leaves): where a phase's time went is read from it, as from the DataNodes' step lines.
   */
  private void keep(String name, String output) {
    java.nio.file.Path file = java.nio.file.Path.of(bed.cluster.dir(), "logs", "bench-" + name + ".txt");
    try {
      Files.createDirectories(file.getParent());
      Files.writeString(file, output);
      bed.log.println("cluster bench: " + name + "'s output is in " + file);
    } catch (IOException e) {
      bed.log.println("cluster bench: could not keep " + name + "'s output in " + file + ": " + e);
    }
  }

  static String[] concat(String[] a, String[] b) {
    String[] c = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, c, a.length, b.length);
    return c;
  }

  private int files() {
    return (int) Math.max(1, (s.dataBytes() + s.fileBytes() - 1) / s.fileBytes());
  }

  private Path writeReplicated(Path dir) throws IOException {
    return writeReplicated(dir, files());
  }

  private Path writeReplicated(Path dir, int files) throws IOException {
    bed.stock.mkdirs(dir);
    bed.log.println("cluster bench: writing " + dir + " (replicated)");
    for (int f = 0; f < files; f++) {
      FileContent.write(bed.stock, new Path(dir, "f" + f), 7000 + f, s.fileBytes());
    }
    return dir;
  }

  private long compare(FileSystem fs, Path dir, List<String> mismatches) throws IOException {
    return compare(fs, dir, files(), mismatches);
  }

  private long compare(FileSystem fs, Path dir, int files, List<String> mismatches) throws IOException {
    long lost = 0;
    for (int f = 0; f < files; f++) {
      String m = FileContent.mismatch(fs, new Path(dir, "f" + f), 7000 + f, s.fileBytes());
      if (m != null) {
        mismatches.add(m);
        lost += s.fileBytes();
      }
    }
    return lost;
  }
}
