package org.wideec.demo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.CreateFlag;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.HdfsConstants;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.io.IOUtils;
import org.apache.hadoop.mapreduce.v2.MiniMRYarnCluster;
import org.apache.hadoop.net.NetUtils;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.StripeManifest;
import org.wideec.archive.StripeMember;
import org.wideec.archive.StripeState;
import org.wideec.archive.hdfs.ArchiveLayout;
import org.wideec.archive.hdfs.ManifestStore;
import org.wideec.cli.Json;
import org.wideec.code.Codes;
import org.wideec.code.LinearCode;
import org.wideec.datanode.WideEcDataNodePlugin;
import org.wideec.minicluster.MiniClusters;
import org.wideec.time.Backoff;

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
  private final ObjectMapper json = new ObjectMapper();

  DemoArchive(Configuration conf, DemoConsole console) {
    this.conf = conf;
    this.console = console;
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
    MiniDFSCluster cluster = MiniClusters.start(c, dir, RACKS, NODES_PER_RACK, BLOCK);
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
    Map<Long, String> rackOfBlock = locations(fs, manifests);
    int members = checkPlacement(manifests, rackOfBlock);
    console.step("placement: all " + members + " stored units of every stripe on their planned racks, one replica each,"
        + " no rack holding more units of a stripe than the code tolerates");
    readAll(fs, written, "stock HDFS client, healthy cluster");

    LostRack lost = loseRack(cluster, manifests.get(0).stripes().get(0), rackOfBlock);
    long bytesReadBack;
    try (FileSystem reader = wideEcReader(cluster)) {
      bytesReadBack = readAll(reader, written, "WideEcFileSystem (fs.hdfs.impl), rack down, nothing repaired yet");
    }
    long crossRackRepair = repair(cluster, manifests, lost.blocks());
    fsckAfterRepair(cluster, data, lost.rack());
    readAll(fs, written, "stock HDFS client, after the repair");

    DemoConsole.Run un = console.tool(cluster, "unarchive", big.toString());
    console.show(un, 10);
    require(un.rc() == 0, "unarchive " + big + " failed");
    require(fs.getFileStatus(big).getReplication() == 3, big + " is not back at replication 3");
    readAll(fs, Map.of(big, written.get(big)), "stock HDFS client, " + big + " unarchived");

    JobRun job = archiveWithMapReduce(cluster, new File(dir, "yarn"), store, rnd, lost.rack());
    SealRun seal = seal(cluster, rnd);

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

  /** A directory of files of mixed sizes and one large file, three replicas each; what was written. */
  private Map<Path, byte[]> writeData(DistributedFileSystem fs, Path data, Path big, Random rnd) throws IOException {
    Map<Path, byte[]> written = new LinkedHashMap<>();
    for (int i = 0; i < DIRECTORY_FILES; i++) {
      // Mostly files of a few blocks, some under one block, a few large: what a directory of logs looks like.
      long size = switch (i % 6) {
        case 0 -> 1 + rnd.nextInt(200_000);
        case 5 -> 3 * BLOCK + rnd.nextInt((int) (2 * BLOCK));
        default -> BLOCK / 2 + rnd.nextInt((int) (2 * BLOCK));
      };
      written.put(new Path(data, String.format("part-%05d", i)), write(fs, new Path(data, String.format("part-%05d", i)),
          size, rnd));
    }
    written.put(big, write(fs, big, 20 * BLOCK + 12345, rnd));
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

  /** The rack lost, and the archived blocks whose only replica was there. */
  private record LostRack(String rack, List<Long> blocks) {}

  /** Stops every DataNode of the rack holding the most units of {@code first}: the worst single-rack loss for it. */
  private LostRack loseRack(MiniDFSCluster cluster, ArchivedStripe first, Map<Long, String> rackOfBlock)
      throws IOException {
    Map<String, Integer> perRack = new TreeMap<>();
    for (StripeMember m : first.members()) {
      if (!m.padding()) {
        perRack.merge(m.plannedRack(), 1, Integer::sum);
      }
    }
    String rack = perRack.entrySet().stream().max(Map.Entry.comparingByValue()).orElseThrow().getKey();
    List<DataNode> lost = new ArrayList<>();
    for (DataNode d : cluster.getDataNodes()) {
      if (rack.equals(cluster.getNamesystem().getBlockManager().getDatanodeManager().getDatanode(d.getDatanodeId())
          .getNetworkLocation())) {
        lost.add(d);
      }
    }
    List<Long> lostBlocks = new ArrayList<>();
    rackOfBlock.forEach((blk, r) -> {
      if (r.equals(rack)) {
        lostBlocks.add(blk);
      }
    });
    for (DataNode d : lost) {
      cluster.stopDataNode(d.getDatanodeId().getXferAddr());
    }
    for (DataNode d : lost) {
      cluster.setDataNodeDead(d.getDatanodeId());
    }
    console.step("lost rack " + rack + ": stopped all " + lost.size() + " of its DataNodes; " + perRack.get(rack)
        + " units of stripe 0 and " + lostBlocks.size() + " archived blocks in all had their only replica there");
    return new LostRack(rack, lostBlocks);
  }

  /** Waits until the plugins have rebuilt every lost block; the bytes that crossed racks for it. */
  private long repair(MiniDFSCluster cluster, List<StripeManifest> manifests, List<Long> lostBlocks) throws Exception {
    DistributedFileSystem fs = cluster.getFileSystem();
    console.step("repair: the NameNode plugin finds the missing archived blocks and DataNodes rebuild them under their"
        + " own block ids (local group first, partial sums within a rack)");
    long tr = System.nanoTime();
    awaitLive(fs, manifests, lostBlocks, 300_000);
    long crossRackRepair = 0;
    for (DataNode d : cluster.getDataNodes()) {
      WideEcDataNodePlugin plugin = WideEcDataNodePlugin.running(d.getXferPort());
      if (plugin != null && plugin.metrics() != null) {
        crossRackRepair += plugin.metrics().bytesSentCrossRack();
      }
    }
    console.step(String.format("  all %d lost blocks are live again under their own ids, in %.1f s; %,d bytes crossed"
        + " racks for it", lostBlocks.size(), (System.nanoTime() - tr) / 1e9, crossRackRepair));
    Map<Long, String> after = locations(fs, manifests);
    checkTolerance(manifests, after);
    console.step("placement after repair: every stripe still within what the code tolerates in any one rack");
    return crossRackRepair;
  }

  /** fsck after the repair: nothing missing or stale, only the rebuilt units off plan while their rack is down. */
  private void fsckAfterRepair(MiniDFSCluster cluster, Path data, String rack) throws Exception {
    DemoConsole.Run fsck = console.tool(cluster, "fsck", data.toString());
    console.show(fsck, 8);
    JsonNode archivedFsck = json.readTree(console.tool(cluster, "fsck", data.toString(), "--json").out()).get("archived");
    java.util.Set<String> problems = new java.util.TreeSet<>();
    archivedFsck.get("findingsByProblem").fields().forEachRemaining(e -> {
      if (e.getValue().asInt() > 0) {
        problems.add(e.getKey());
      }
    });
    require(archivedFsck.get("stripesNotDecodable").asLong() == 0 && java.util.Set.of("off-plan").containsAll(problems),
        "wide-ec fsck " + data + " after the repair finds " + problems + ", more than the off-plan units of the lost rack");
    console.step("fsck: nothing missing, nothing stale, every stripe whole; the units rebuilt while " + rack + " is down are"
        + " off plan (their planned rack is gone), each on the rack of its stripe with the most room");
  }

  /** What the archival MapReduce job did: the archive units it was given and the stripes their manifests hold. */
  private record JobRun(int paths, int stripes) {}

  /** The sealed object's length, the bytes read back equal through WideEcFileSystem, and whether a stock open failed. */
  private record SealRun(long bytes, long readBack, boolean stockOpenRefused) {}

  /**
   * One more directory of small files, archived by {@code archive --mr}: a real MapReduce job on a MiniMRYarnCluster
   * next to the HDFS one, its map tasks running the same orchestrator as the plain command in JVMs of their own.
   */
  private JobRun archiveWithMapReduce(MiniDFSCluster cluster, File yarnDir, ManifestStore store, Random rnd,
      String rackDown)
      throws Exception {
    DistributedFileSystem fs = cluster.getFileSystem();
    Path events = new Path("/events");
    Map<Path, byte[]> written = new LinkedHashMap<>();
    for (int i = 0; i < JOB_FILES; i++) {
      // Small files, as a day of events is: a few tiny, most of some hundred KiB, a few just over one block.
      long size = switch (i % 6) {
        case 0 -> 1 + rnd.nextInt(20_000);
        case 5 -> BLOCK + 1 + rnd.nextInt(100_000);
        default -> 30_000 + rnd.nextInt(370_000);
      };
      Path p = new Path(events, String.format("event-%05d", i));
      written.put(p, write(fs, p, size, rnd));
    }
    long bytes = written.values().stream().mapToLong(b -> b.length).sum();
    console.step(String.format("wrote %d small files under %s, %.1f MiB at replication 3, to archive with a MapReduce"
        + " job", JOB_FILES, events, bytes / 1048576.0));

    console.step("starting a MapReduce mini cluster on this HDFS: a ResourceManager, one NodeManager and a job history"
        + " server; the job's tasks run in JVMs of their own, as on a real cluster");
    MiniMRYarnCluster yarn = startYarn(cluster, yarnDir);
    List<String> paths = List.of(events.toString());
    try {
      Configuration jobConf = new Configuration(yarn.getConfig());
      console.step("the job's listing: one archive unit per PATH (a directory is one manifest), planned on the racks"
          + " that are up (" + rackDown + " is still down), with the host where its encoding starts");
      DemoConsole.Run listed = console.toolShowingProgress(jobConf, "archive", events.toString(), "--code", CODE, "--mr",
          "--dry-run", "--json");
      require(listed.rc() == 0, "archive --mr --dry-run failed: " + listed.out() + listed.err());
      JsonNode listing = json.readTree(listed.out());
      int planned = 0;
      for (JsonNode item : listing.get("listing")) {
        planned += item.get("stripes").asInt();
        console.step(String.format("  %s: %d stripes, %,d data bytes, encoding starts on %s, %,d bytes across racks"
                + " planned; %d map task(s)", item.get("path").asText(), item.get("stripes").asInt(),
            item.get("dataBytes").asLong(), item.get("host").asText(), item.get("crossRackBytesEncoding").asLong(),
            listing.get("maps").size()));
      }
      require(listing.get("listing").size() == paths.size(), "the listing has " + listing.get("listing").size()
          + " items for " + paths);

      console.step("archive it as a MapReduce job: each map task encodes, verifies, commits and trims its units; the"
          + " job id and its progress come on stderr, the counters' summary at the end");
      DemoConsole.Run ran = console.toolShowingProgress(jobConf, "archive", events.toString(), "--code", CODE, "--mr");
      console.show(ran, 10);
      require(ran.rc() == 0, "archive --mr " + events + " failed (exit " + ran.rc() + "): " + ran.out() + ran.err());
      StripeManifest m = store.covering(events);
      require(m != null, events + " has no manifest after the job");
      require(m.stripes().size() == planned, events + " has " + m.stripes().size() + " stripes, the listing planned "
          + planned);
      for (ArchivedStripe s : m.stripes()) {
        require(s.state() == StripeState.TRIMMED, "stripe " + s.stripeId() + " of " + events + " is " + s.state());
      }
      int members = checkPlacement(List.of(m), locations(fs, List.of(m)));
      console.step("the job's " + m.stripes().size() + " stripes are TRIMMED as planned; all " + members + " stored units"
          + " on their planned racks, one replica each");
      readAll(fs, written, "stock HDFS client, " + events + " archived by the job");
      return new JobRun(paths.size(), m.stripes().size());
    } finally {
      yarn.stop();
    }
  }

  /** YARN with one NodeManager on the cluster's HDFS, heartbeats as short as the demo's job is. */
  private static MiniMRYarnCluster startYarn(MiniDFSCluster cluster, File workDir) {
    Configuration c = new Configuration(cluster.getConfiguration(0));
    c.setInt("yarn.nodemanager.resource.memory-mb", 4096);
    c.setInt("yarn.scheduler.minimum-allocation-mb", 128);
    c.setInt("mapreduce.map.memory.mb", 512);
    c.setInt("yarn.app.mapreduce.am.resource.mb", 512);
    // Two short-lived JVMs on a host already running 108 DataNodes: one GC thread each, and the application master,
    // which computes little, compiles with C1 only so that it starts sooner.
    c.set("mapreduce.map.java.opts", "-Xmx400m -XX:+UseSerialGC");
    c.set("yarn.app.mapreduce.am.command-opts", "-Xmx400m -XX:+UseSerialGC -XX:TieredStopAtLevel=1");
    c.setInt("yarn.resourcemanager.nodemanagers.heartbeat-interval-ms", 200);
    c.setInt("yarn.app.mapreduce.am.scheduler.heartbeat.interval-ms", 200);
    c.setInt("yarn.nodemanager.sleep-delay-before-sigkill.ms", 100);
    // MiniYARNCluster puts its work directories under test.build.data (else ./target/test/data): the demo's instead.
    String was = System.getProperty("test.build.data");
    System.setProperty("test.build.data", workDir.getAbsolutePath());
    try {
      MiniMRYarnCluster yarn = new MiniMRYarnCluster("wide-ec-demo-archive", 1);
      yarn.init(c);
      yarn.start();
      return yarn;
    } finally {
      if (was == null) {
        System.clearProperty("test.build.data");
      } else {
        System.setProperty("test.build.data", was);
      }
    }
  }

  /**
   * One object sealed by RapidRAID's pipeline on the DataNodes: it becomes a placeholder whose stock open fails, and
   * reads back through WideEcFileSystem, decoded from its codewords.
   */
  private SealRun seal(MiniDFSCluster cluster, Random rnd) throws Exception {
    DistributedFileSystem fs = cluster.getFileSystem();
    Path object = new Path("/object.bin");
    LinearCode rr = Codes.fromSpec(SEALED_CODE);
    List<DatanodeInfo> chain = oneNodePerRack(fs, rr.n());
    byte[] bytes = writeAlongChain(fs, object, chain, rr.n(), rr.k(), rnd);
    console.step(String.format("wrote %s, %d blocks (%s), as RapidRAID finds an object: two replicas of each block"
            + " along a chain of %d DataNodes on %d racks, block t on nodes t and t + %d (placed with HDFS favored nodes)",
        object, rr.k(), human(bytes.length), rr.n(), rr.n(), rr.n() - rr.k()));
    console.step("seal it with RapidRAID: the planner finds that chain (no copies needed); each position adds its"
        + " pieces into the stream it passes on and writes its own codeword, no byte of the file passes through the"
        + " tool, and the file becomes a placeholder");
    DemoConsole.Run sealed = console.tool(cluster, "archive", object.toString(), "--code", SEALED_CODE, "--encoder",
        "rapidraid");
    console.show(sealed, 12);
    require(sealed.rc() == 0, "archive " + object + " --encoder rapidraid failed (exit " + sealed.rc() + "): "
        + sealed.out() + sealed.err());

    console.command("hdfs dfs -cat " + object + "    (a stock client's open, here DistributedFileSystem.open)");
    String refusal = null;
    try (FSDataInputStream in = fs.open(object)) {
      in.read();
    } catch (Exception e) {
      refusal = String.valueOf(e.getMessage());
    }
    boolean refused = refusal != null && refusal.contains("raw erasure decoder");
    require(refused, "a stock open of the sealed " + object + " did not fail with the sealed codec's error: " + refusal);
    console.step("a stock client sees a placeholder of " + fs.getFileStatus(object).getLen() + " bytes and its open"
        + " fails before a byte moves: " + refusal.lines().findFirst().orElse(""));
    long back;
    try (FileSystem reader = wideEcReader(cluster)) {
      back = readAll(reader, Map.of(object, bytes), "WideEcFileSystem, " + object + " sealed (decoded from "
          + rr.k() + " of its " + rr.n() + " codewords)");
    }
    return new SealRun(bytes.length, back, refused);
  }

  /** The first live DataNode of each of the first {@code count} racks that are up, racks in name order. */
  private static List<DatanodeInfo> oneNodePerRack(DistributedFileSystem fs, int count) throws IOException {
    Map<String, DatanodeInfo> byRack = new TreeMap<>();
    for (DatanodeInfo d : fs.getClient().datanodeReport(HdfsConstants.DatanodeReportType.LIVE)) {
      byRack.merge(d.getNetworkLocation(), d, (a, b) -> a.getXferAddr().compareTo(b.getXferAddr()) <= 0 ? a : b);
    }
    require(byRack.size() >= count, "a chain of " + count + " on racks of its own needs " + count + " racks up, "
        + byRack.size() + " are");
    return new ArrayList<>(byRack.values()).subList(0, count);
  }

  /**
   * Writes k blocks of random bytes block by block (the first by create, each next by an append that starts a new
   * block), block t's two replicas favoring chain nodes t and t + n - k: where position t and t + n - k of RapidRAID's
   * pipeline read piece t, so the chain needs no copies. Checks that HDFS put every replica there (waiting up to 30 s
   * for replicas still being reported).
   */
  private static byte[] writeAlongChain(DistributedFileSystem fs, Path p, List<DatanodeInfo> chain, int n, int k,
      Random rnd) throws IOException {
    byte[] bytes = new byte[(int) (k * BLOCK)];
    rnd.nextBytes(bytes);
    for (int t = 0; t < k; t++) {
      InetSocketAddress[] favored = {NetUtils.createSocketAddr(chain.get(t).getXferAddr()),
          NetUtils.createSocketAddr(chain.get(t + n - k).getXferAddr())};
      try (FSDataOutputStream o = t == 0
          ? fs.create(p, FsPermission.getFileDefault(), true, 4096, (short) 2, BLOCK, null, favored)
          : fs.append(p, EnumSet.of(CreateFlag.APPEND, CreateFlag.NEW_BLOCK), 4096, null, favored)) {
        o.write(bytes, (int) (t * BLOCK), (int) BLOCK);
      }
    }
    // A block's second replica may be reported after its writer closed (HDFS needs one to close the file): poll.
    Backoff poll = Backoff.pollingNameNode(200, 30_000);
    for (String off = offChain(fs, p, chain, n, k); off != null; off = offChain(fs, p, chain, n, k)) {
      require(!poll.expired(), off + " after 30 s");
      poll.pause("interrupted while waiting for the replicas of " + p);
    }
    return bytes;
  }

  /** The first block of p whose replicas are not exactly its two favored chain nodes, said in words; or null. */
  private static String offChain(DistributedFileSystem fs, Path p, List<DatanodeInfo> chain, int n, int k)
      throws IOException {
    List<LocatedBlock> blocks = fs.getClient().getLocatedBlocks(p.toString(), 0, k * BLOCK).getLocatedBlocks();
    require(blocks.size() == k, p + " has " + blocks.size() + " blocks, not " + k);
    for (int t = 0; t < k; t++) {
      java.util.Set<String> at = new java.util.TreeSet<>();
      for (DatanodeInfo d : blocks.get(t).getLocations()) {
        at.add(d.getXferAddr());
      }
      java.util.Set<String> wanted = new java.util.TreeSet<>(List.of(chain.get(t).getXferAddr(),
          chain.get(t + n - k).getXferAddr()));
      if (!at.equals(wanted)) {
        return p + " block " + t + " is on " + at + ", favored " + wanted;
      }
    }
    return null;
  }

  /** The code-aware client: {@code fs.hdfs.impl} set to WideEcFileSystem, as an operator sets it in core-site.xml. */
  private static FileSystem wideEcReader(MiniDFSCluster cluster) throws IOException {
    Configuration c = new Configuration(cluster.getConfiguration(0));
    c.set("fs.hdfs.impl", "org.wideec.client.WideEcFileSystem");
    c.setBoolean("fs.hdfs.impl.disable.cache", true);
    return FileSystem.get(cluster.getFileSystem().getUri(), c);
  }

  private static byte[] write(DistributedFileSystem fs, Path p, long size, Random rnd) throws IOException {
    byte[] bytes = new byte[(int) size];
    rnd.nextBytes(bytes);
    try (FSDataOutputStream o = fs.create(p, (short) 3)) {
      o.write(bytes);
    }
    return bytes;
  }

  /** Reads every file back and compares it with what was written; returns the bytes read. */
  private long readAll(FileSystem fs, Map<Path, byte[]> written, String how) throws IOException {
    long t = System.nanoTime();
    long bytes = 0;
    for (Map.Entry<Path, byte[]> e : written.entrySet()) {
      byte[] back = new byte[e.getValue().length];
      try (FSDataInputStream in = fs.open(e.getKey())) {
        IOUtils.readFully(in, back, 0, back.length);
      }
      if (!Arrays.equals(back, e.getValue())) {
        throw new IOException(e.getKey() + " read back through " + how + " differs from what was written");
      }
      bytes += back.length;
    }
    console.step(String.format("read back through %s: %d files, %,d bytes, every byte equal (%.1f MiB/s)", how,
        written.size(), bytes, bytes / 1048576.0 / ((System.nanoTime() - t) / 1e9)));
    return bytes;
  }

  /** The rack of the one live replica of every stored member (data block or parity block) of the manifests. */
  private static Map<Long, String> locations(DistributedFileSystem fs, List<StripeManifest> manifests) throws IOException {
    Map<Long, String> rack = new HashMap<>();
    for (StripeManifest m : manifests) {
      for (ArchivedStripe s : m.stripes()) {
        for (StripeMember u : s.members()) {
          if (u.padding() || rack.containsKey(u.blockId())) {
            continue;
          }
          for (LocatedBlock lb : fs.getClient().getLocatedBlocks(ArchiveLayout.inodePath(u.inodeId()).toString(), 0, Long.MAX_VALUE)
              .getLocatedBlocks()) {
            DatanodeInfo[] where = lb.getLocations();
            rack.put(lb.getBlock().getBlockId(), where.length == 0 ? "" : where.length == 1 ? where[0].getNetworkLocation()
                : "replicated x" + where.length);
          }
        }
      }
    }
    return rack;
  }

  /** Every stored member on its planned rack, alone; returns how many were checked. */
  private static int checkPlacement(List<StripeManifest> manifests, Map<Long, String> rackOfBlock) throws IOException {
    int checked = 0;
    for (StripeManifest m : manifests) {
      for (ArchivedStripe s : m.stripes()) {
        for (StripeMember u : s.members()) {
          if (u.padding()) {
            continue;
          }
          String actual = rackOfBlock.get(u.blockId());
          require(u.plannedRack().equals(actual), "block " + u.blockId() + " of stripe " + s.stripeId() + " of "
              + m.archivedPath() + " is on " + actual + ", planned " + u.plannedRack());
          checked++;
        }
      }
      checkTolerance(List.of(m), rackOfBlock);
    }
    return checked;
  }

  /** No rack holds more stored units of a stripe than the code tolerates losing. */
  private static void checkTolerance(List<StripeManifest> manifests, Map<Long, String> rackOfBlock) throws IOException {
    for (StripeManifest m : manifests) {
      for (ArchivedStripe s : m.stripes()) {
        int tolerated = s.code().guaranteedTolerance();
        require(tolerated >= 0, s.codeSpec() + " states no tolerance; the demo's codes do");
        Map<String, Integer> perRack = new HashMap<>();
        for (StripeMember u : s.members()) {
          if (!u.padding()) {
            perRack.merge(rackOfBlock.get(u.blockId()), 1, Integer::sum);
          }
        }
        for (Map.Entry<String, Integer> e : perRack.entrySet()) {
          require(e.getValue() <= tolerated, "stripe " + s.stripeId() + " of " + m.archivedPath() + " has "
              + e.getValue() + " units on " + e.getKey() + ", more than the " + tolerated + " its code tolerates");
        }
      }
    }
  }

  /** Waits until every listed block has a live replica again, under its own id. */
  private static void awaitLive(DistributedFileSystem fs, List<StripeManifest> manifests, List<Long> blocks,
      long timeoutMs) throws IOException, InterruptedException {
    Backoff poll = Backoff.doubling(500, 500, timeoutMs);
    while (true) {
      Map<Long, String> now = locations(fs, manifests);
      List<Long> missing = blocks.stream().filter(b -> now.getOrDefault(b, "").isEmpty()).toList();
      if (missing.isEmpty()) {
        return;
      }
      if (poll.expired()) {
        throw new IOException(missing.size() + " archived blocks still missing after " + timeoutMs / 1000 + " s: "
            + missing.subList(0, Math.min(10, missing.size())));
      }
      poll.pause();
    }
  }

  private static void require(boolean ok, String problem) throws IOException {
    if (!ok) {
      throw new IOException(problem);
    }
  }

  private static String human(long bytes) {
    return bytes < 1024 * 1024 ? String.format("%.0f KiB", bytes / 1024.0) : String.format("%.1f MiB", bytes / 1048576.0);
  }
}
