package org.wideec.demo;

import static org.wideec.demo.DemoFiles.human;
import static org.wideec.demo.DemoFiles.readAll;
import static org.wideec.demo.DemoFiles.require;
import static org.wideec.demo.DemoFiles.wideEcReader;
import static org.wideec.demo.DemoFiles.write;
import static org.wideec.demo.PlannedPlacementCheck.checkPlacement;
import static org.wideec.demo.PlannedPlacementCheck.locations;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.mapreduce.v2.MiniMRYarnCluster;
import org.wideec.archive.StripeManifest;
import org.wideec.archive.hdfs.ArchiveLayout;
import org.wideec.archive.hdfs.ManifestStore;
import org.wideec.cli.Json;
import org.wideec.code.LinearCode;
import org.wideec.minicluster.MiniClusters;

/**
 * {@code wide-ec demo archive}: the archival layout end to end on an embedded cluster. Writes a
 * directory of mixed file sizes and one large file at replication 3, plans and archives both into wide Azure-LRC
 * stripes (k = 64) under combined locality, trims to one planned replica per data block, loses the rack that holds
 * the most units of a stripe, reads every byte back through the code-aware FileSystem while the rack is down, waits
 * for the archived blocks to be rebuilt under their own ids, checks placement and fsck, and unarchives the large
 * file. Then it archives one more directory with {@code archive --mr} on a MiniMRYarnCluster and seals one
 * object with RapidRAID's pipeline, reading both back. Its last line is one JSON object.
 */
final class DemoArchive {
  static final String CODE = "azure-lrc:k=64,l=4,g=4";
  static final long BLOCK = 1024 * 1024;
  /**
   * Combined locality puts the 72 units of a stripe on 17 racks, at most 5 (the faults tolerated) in a rack and one
   * per node; an 18th rack and a spare node per rack take what is rebuilt while a rack is down.
   */
  static final int RACKS = 18;
  static final int NODES_PER_RACK = 6;
  static final int DIRECTORY_FILES = 48;
  /** The directory the MapReduce job archives: small files, most under a block, 84 blocks (two stripes of k = 64). */
  static final int JOB_FILES = 72;
  /** The sealed object: one stripe of RapidRAID (16, 11), its k = 11 pieces whole blocks. */
  static final String SEALED_CODE = "rapidraid:n=16,k=11";

  private final Configuration conf;
  private final DemoConsole console;
  /**
   * The cluster's block size: {@link #BLOCK} for the demo. The file sizes are counted in blocks (all but the few
   * under one block), so a smaller one keeps the racks, nodes, codes and stripes, about as many blocks, and moves less
   * data; the suite's test runs the demo so.
   */
  private final long block;
  private final ObjectMapper json = new ObjectMapper();

  DemoArchive(Configuration conf, DemoConsole console) {
    this(conf, console, BLOCK);
  }

  DemoArchive(Configuration conf, DemoConsole console, long block) {
    // The files under one block are up to 200,000 bytes here and 400,000 in the MapReduce stage's directory.
    if (block < 512 * 1024) {
      throw new IllegalArgumentException("the archival demo needs blocks of at least 512 KiB, not " + block);
    }
    this.conf = conf;
    this.console = console;
    this.block = block;
  }

  /** Many DataNodes in one process: fewer threads each, no periodic scans the demo does not need; block tokens on. */
  static Configuration light(Configuration base) {
    Configuration c = new Configuration(base);
    c.setInt(DFSConfigKeys.DFS_DATANODE_HANDLER_COUNT_KEY, 2);
    c.setInt(DFSConfigKeys.DFS_NAMENODE_HANDLER_COUNT_KEY, 20);
    c.setInt(DFSConfigKeys.DFS_DATANODE_DIRECTORYSCAN_INTERVAL_KEY, -1);
    c.setInt(DFSConfigKeys.DFS_DATANODE_SCAN_PERIOD_HOURS_KEY, -1);
    c.setBoolean(DFSConfigKeys.DFS_DATANODE_PEER_STATS_ENABLED_KEY, false);
    c.setInt("dfs.client.block.write.locateFollowingBlock.initial.delay.ms", 20);
    // As on a production cluster: every replica read, moved or rebuilt is authorized by a block token.
    c.setBoolean(DFSConfigKeys.DFS_BLOCK_ACCESS_TOKEN_ENABLE_KEY, true);
    return c;
  }

  int run(File dir) throws Exception {
    long t0 = System.nanoTime();
    console.step("starting an HDFS mini cluster: " + RACKS + " racks x " + NODES_PER_RACK + " DataNodes in " + dir
        + ", with our replica placement policy and trimmer on the NameNode and our repair worker on every DataNode");
    Configuration c = light(MiniClusters.withWideEcRepair(MiniClusters.withWideEcArchiveTrim(conf, 300)));
    MiniDFSCluster cluster = MiniClusters.start(c, dir, RACKS, NODES_PER_RACK, block);
    try {
      return demo(cluster, dir, t0);
    } finally {
      cluster.shutdown();
    }
  }

  private int demo(MiniDFSCluster cluster, File dir, long t0) throws Exception {
    DistributedFileSystem fs = cluster.getFileSystem();
    Random rnd = new Random(2026);
    Path data = new Path("/data");
    Path big = new Path("/big.bin");
    Map<Path, byte[]> written = writeData(fs, data, big, rnd);
    long bytesWritten = written.values().stream().mapToLong(b -> b.length).sum();
    Archived archived = archive(cluster, data, big);

    ManifestStore store = new ManifestStore(fs, ArchiveLayout.from(cluster.getConfiguration(0)));
    List<StripeManifest> manifests = List.of(store.covering(data), store.covering(big));
    Map<Long, String> rackOfBlock = checkPlannedPlacement(fs, manifests);
    readAll(console, fs, written, "stock HDFS client, healthy cluster");

    RackLossStage rackLoss = new RackLossStage(console);
    RackLossStage.LostRack lost = rackLoss.loseRack(cluster, manifests.get(0).stripes().get(0), rackOfBlock);
    long bytesReadBack;
    try (FileSystem reader = wideEcReader(cluster)) {
      bytesReadBack = readAll(console, reader, written, "WideEcFileSystem (fs.hdfs.impl), rack down, nothing repaired yet");
    }
    long crossRackRepair = rackLoss.repair(cluster, manifests, lost.blocks());
    rackLoss.fsckAfterRepair(cluster, data, lost.rack());
    readAll(console, fs, written, "stock HDFS client, after the repair");

    unarchive(cluster, big, written.get(big));

    MapReduceArchiveStage.JobRun job =
        new MapReduceArchiveStage(console, block).archiveWithMapReduce(cluster, new File(dir, "yarn"), store, rnd, lost.rack());
    RapidRaidSealStage.SealRun seal = new RapidRaidSealStage(console, block).seal(cluster, rnd);

    LinearCode code = manifests.get(0).stripes().get(0).code();
    Map<String, Object> j = new LinkedHashMap<>();
    j.put("code", CODE);
    j.put("stripes", manifests.get(0).stripes().size() + manifests.get(1).stripes().size());
    j.put("k", code.k());
    j.put("n", code.n());
    j.put("redundancyAfter", archived.redundancyAfter());
    j.put("bytesWritten", bytesWritten);
    j.put("bytesReadBack", bytesReadBack);
    j.put("bytesLost", 0);
    j.put("blocksRepaired", lost.blocks().size());
    j.put("crossRackBytesArchive", archived.crossRackBytes());
    j.put("crossRackBytesRepair", crossRackRepair);
    j.put("racksLost", 1);
    j.put("mrPaths", job.paths());
    j.put("mrStripes", job.stripes());
    j.put("sealedBytes", seal.bytes());
    j.put("sealedReadBack", seal.readBack());
    j.put("stockOpenRefused", seal.stockOpenRefused());
    j.put("seconds", Math.round((System.nanoTime() - t0) / 1e9));
    console.out().println();
    console.out().println(Json.write(j));
    return 0;
  }

  /** The rack of every stored unit, after checking each is on its planned rack, alone, within the code's tolerance. */
  private Map<Long, String> checkPlannedPlacement(DistributedFileSystem fs, List<StripeManifest> manifests)
      throws IOException {
    Map<Long, String> rackOfBlock = locations(fs, manifests);
    int members = checkPlacement(manifests, rackOfBlock);
    console.step("placement: all " + members + " stored units of every stripe on their planned racks, one replica each,"
        + " no rack holding more units of a stripe than the code tolerates");
    return rackOfBlock;
  }

  /** Unarchives the large file: back at three replicas, every byte equal. */
  private void unarchive(MiniDFSCluster cluster, Path big, byte[] bytes) throws Exception {
    DistributedFileSystem fs = cluster.getFileSystem();
    DemoConsole.Run un = console.tool(cluster, "unarchive", big.toString());
    console.show(un, 10);
    require(un.rc() == 0, "unarchive " + big + " failed");
    require(fs.getFileStatus(big).getReplication() == 3, big + " is not back at replication 3");
    readAll(console, fs, Map.of(big, bytes), "stock HDFS client, " + big + " unarchived");
  }

  /** A directory of files of mixed sizes and one large file, three replicas each; what was written. */
  private Map<Path, byte[]> writeData(DistributedFileSystem fs, Path data, Path big, Random rnd) throws IOException {
    Map<Path, byte[]> written = new LinkedHashMap<>();
    for (int i = 0; i < DIRECTORY_FILES; i++) {
      // Mostly files of a few blocks, some under one block, a few large: what a directory of logs looks like.
      long size = switch (i % 6) {
        case 0 -> 1 + rnd.nextInt(200_000);
        case 5 -> 3 * block + rnd.nextInt((int) (2 * block));
        default -> block / 2 + rnd.nextInt((int) (2 * block));
      };
      written.put(new Path(data, String.format("part-%05d", i)), write(fs, new Path(data, String.format("part-%05d", i)),
          size, rnd));
    }
    written.put(big, write(fs, big, 20 * block + 12345, rnd));
    long bytesWritten = written.values().stream().mapToLong(b -> b.length).sum();
    console.step(String.format("wrote %d files under %s (%s .. %s) and %s (%s), %.1f MiB in all, 3 replicas of every block",
        DIRECTORY_FILES, data, human(written.entrySet().stream().filter(e -> !e.getKey().equals(big))
            .mapToLong(e -> e.getValue().length).min().orElse(0)),
        human(written.entrySet().stream().filter(e -> !e.getKey().equals(big)).mapToLong(e -> e.getValue().length)
            .max().orElse(0)), big, human(written.get(big).length), bytesWritten / 1048576.0));
    return written;
  }

  /** What archiving the directory and the large file gave: the directory's redundancy, the planned rack crossings. */
  private record Archived(double redundancyAfter, long crossRackBytes) {}

  /** The plan, then archiving the directory and the large file, each said in a few lines. */
  private Archived archive(MiniDFSCluster cluster, Path data, Path big) throws Exception {
    console.step("the plan: which replica of each block to keep so every stripe meets combined locality, and its cost");
    DemoConsole.Run plan = console.tool(cluster, "archive", data.toString(), "--code", CODE, "--dry-run", "--json");
    JsonNode p = json.readTree(plan.out());
    require(plan.rc() == 0, "dry run failed: " + plan.err());
    console.step(String.format("  %d data blocks in %d stripes of n=%d, k=%d (%s); %d blocks to move (%,d bytes across"
            + " racks); classic encoding moves %,d bytes across racks, a chain %,d; redundancy after %.4f, padding of"
            + " the short last stripe %d virtual units (never stored)", p.get("dataBlocks").asInt(),
        p.get("stripes").size(), p.get("n").asInt(), p.get("k").asInt(), p.get("placement").asText(),
        p.get("blocksMoved").asInt(), p.get("crossRackBytesMoved").asLong(), p.get("crossRackBytesClassic").asLong(),
        p.get("crossRackBytesChain").asLong(), p.get("redundancyAfter").asDouble(), p.get("paddingUnits").asInt()));
    long crossRackArchive = p.get("crossRackBytesMoved").asLong() + p.get("crossRackBytesClassic").asLong();

    console.step("archive the directory: encode, verify, commit, then trim each data block to its planned replica");
    DemoConsole.Run archived = console.tool(cluster, "archive", data.toString(), "--code", CODE, "--json");
    require(archived.rc() == 0, "archive " + data + " failed (exit " + archived.rc() + "): " + archived.out() + archived.err());
    JsonNode a = json.readTree(archived.out());
    console.step(String.format("  %d stripes, %d trimmed; %,d data bytes encoded, %,d parity bytes written; redundancy"
            + " %.4f", a.get("stripes").asInt(), a.get("trimmed").asInt(), a.get("bytesEncoded").asLong(),
        a.get("parityBytesWritten").asLong(), a.get("redundancyAfter").asDouble()));
    DemoConsole.Run bigPlan = console.tool(cluster, "archive", big.toString(), "--code", CODE, "--dry-run", "--json");
    crossRackArchive += json.readTree(bigPlan.out()).get("crossRackBytesMoved").asLong()
        + json.readTree(bigPlan.out()).get("crossRackBytesClassic").asLong();
    DemoConsole.Run archivedBig = console.tool(cluster, "archive", big.toString(), "--code", CODE, "--json");
    require(archivedBig.rc() == 0, "archive " + big + " failed: " + archivedBig.out() + archivedBig.err());
    JsonNode b = json.readTree(archivedBig.out());
    console.step(String.format("  %s: %d stripe(s) of its own blocks, redundancy %.4f (a short stripe: its padding is"
        + " virtual, the parity is what costs)", big, b.get("stripes").asInt(), b.get("redundancyAfter").asDouble()));
    console.show(console.tool(cluster, "status", data.toString()), 20);
    return new Archived(a.get("redundancyAfter").asDouble(), crossRackArchive);
  }
}
