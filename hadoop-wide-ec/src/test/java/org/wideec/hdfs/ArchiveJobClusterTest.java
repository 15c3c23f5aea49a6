package org.wideec.hdfs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.conf.Configured;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.mapreduce.v2.MiniMRYarnCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wideec.archive.ArchivalPlan;
import org.wideec.archive.ArchivalPlanner;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.PlacementKind;
import org.wideec.archive.StripeManifest;
import org.wideec.archive.StripeMember;
import org.wideec.archive.StripeState;
import org.wideec.archive.hdfs.ArchivalSource;
import org.wideec.archive.hdfs.Archiver;
import org.wideec.archive.hdfs.ChainEncoder;
import org.wideec.archive.hdfs.TrimProtocol;
import org.wideec.archive.mr.ArchiveItem;
import org.wideec.archive.mr.ArchiveJob;
import org.wideec.archive.mr.ArchiveListing;
import org.wideec.minicluster.Eventually;
import org.wideec.minicluster.MiniClusters;
import org.wideec.time.Backoff;

/**
 * {@code archive PATH... --mr} on a racked MiniDFSCluster (6 racks x 3, our trimmer) and a real MiniMRYarnCluster:
 * task JVMs run the mappers, so a killed attempt is a dead process whose archive lock HDFS still holds. A tree of
 * files and directories ends TRIMMED with exact counters; a first task attempt halted right after a stripe was
 * VERIFIED is retried and resumes without encoding that stripe again; a job killed mid-run is rerun and every
 * stripe verified before the kill keeps the parity it had. The jobs whose test is not about a task's process (the
 * reruns, the paths-file job) run their maps inside the application master ({@link #IN_THE_AM}): the same mapper,
 * counters and job client, without a JVM started per map on the suite's 2 cores.
 */
class ArchiveJobClusterTest extends ArchiveTestBed {
  static final String PAUSE_KEY = "wideec.test.pause.ms";
  static final String HALT_INODE_KEY = "wideec.test.halt.inode";
  static final String HALT_STATE_KEY = "wideec.test.halt.state";
  static final String MARKER_KEY = "wideec.test.halt.marker";

  /**
   * The fault injector the mappers load ({@link ArchiveJob#HOOK_KEY}): pauses after every record, and halts the
   * first attempt's JVM (no shutdown hooks: the archive lock stays open) right after a stripe holding the given inode
   * is recorded in the given state.
   */
  public static final class FaultHook extends Configured implements Archiver.Hook {
    @Override
    public void recorded(StripeManifest manifest, ArchivedStripe stripe) throws java.io.IOException {
      Configuration c = getConf();
      long pause = c.getLong(PAUSE_KEY, 0);
      if (pause > 0) {
        try {
          Thread.sleep(pause);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new java.io.InterruptedIOException();
        }
      }
      long inode = c.getLong(HALT_INODE_KEY, -1);
      if (stripe != null && inode >= 0 && stripe.state().name().equals(c.get(HALT_STATE_KEY))
          && stripe.members().stream().anyMatch(m -> m.inodeId() == inode)) {
        TaskAttemptID attempt = TaskAttemptID.forName(c.get("mapreduce.task.attempt.id"));
        if (attempt.getId() == 0) {
          java.nio.file.Files.writeString(java.nio.file.Path.of(c.get(MARKER_KEY)), attempt + " stripe "
              + stripe.stripeId() + " " + stripe.state());
          Runtime.getRuntime().halt(1);
        }
      }
    }
  }

  /**
   * MapReduce's uber mode: the job's maps run one after another inside its application master, not each in a task JVM
   * of its own. Any input size qualifies (the default limit is one HDFS block, 64 KiB here).
   */
  static final Map<String, String> IN_THE_AM = Map.of("mapreduce.job.ubertask.enable", "true",
      "mapreduce.job.ubertask.maxbytes", Long.toString(Long.MAX_VALUE));

  private MiniMRYarnCluster mr;
  private Configuration mrConf;
  private java.io.File dir;

  @Override
  Configuration baseConf() {
    // Our DataNode plugin and block tokens too: the chain encoder's job runs on the DataNodes' slice ports.
    Configuration base = MiniClusters.withWideEcRepair(MiniClusters.withWideEcArchiveTrim(
        MiniClusters.withQuickDataNodeHeartbeats(new Configuration()), 300));
    base.setBoolean(org.apache.hadoop.hdfs.DFSConfigKeys.DFS_BLOCK_ACCESS_TOKEN_ENABLE_KEY, true);
    base.setLong(TrimProtocol.WAIT_KEY, 60_000);
    // Every map task's archive ends waiting for the trim's excess replicas to go: the NameNode hands deletions out
    // every 250 ms, to every DataNode each time (not a third of them, the default).
    base.set(org.apache.hadoop.hdfs.DFSConfigKeys.DFS_NAMENODE_REDUNDANCY_INTERVAL_SECONDS_KEY, "250ms");
    base.setFloat(org.apache.hadoop.hdfs.DFSConfigKeys.DFS_NAMENODE_INVALIDATE_WORK_PCT_PER_ITERATION, 1.0f);
    return base;
  }

  @BeforeAll
  void startYarn(@TempDir java.nio.file.Path tmp) throws Exception {
    dir = tmp.toFile();
    Configuration c = new Configuration(conf);
    c.setInt("yarn.nodemanager.resource.memory-mb", 4096);
    c.setInt("yarn.scheduler.minimum-allocation-mb", 128);
    c.setInt("mapreduce.map.memory.mb", 320);
    c.setInt("yarn.app.mapreduce.am.resource.mb", 512);
    c.setInt("mapreduce.task.timeout", 120_000);
    // Every job starts an application master and a JVM per map attempt on 2 shared cores, each loading most of Hadoop
    // to run a few seconds: one GC thread and the quick compiler only (the tasks' coding is ISA-L's, native), so
    // starting them costs less of the CPU the cluster's DataNodes and the other task JVMs need at the same time.
    c.set("mapreduce.map.java.opts", "-Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1");
    c.set("yarn.app.mapreduce.am.command-opts", "-Xmx400m -XX:+UseSerialGC -XX:TieredStopAtLevel=1");
    // The job client looks at the job's state every fifth of a second rather than every 1 s (the command's progress)
    // or 5 s (waitForCompletion after the kill).
    c.setInt("mapreduce.client.progressmonitor.pollinterval", 200);
    c.setInt("mapreduce.client.completion.pollinterval", 200);
    // Allocation and process ends noticed within a fifth of a second rather than a second: the jobs are short.
    c.setInt("yarn.resourcemanager.nodemanagers.heartbeat-interval-ms", 200);
    c.setInt("yarn.app.mapreduce.am.scheduler.heartbeat.interval-ms", 200);
    c.setInt("yarn.nodemanager.sleep-delay-before-sigkill.ms", 100);
    mr = new MiniMRYarnCluster("wide-ec-archive-job", 1);
    mr.init(c);
    mr.start();
    mrConf = new Configuration(mr.getConfig());
    awaitTrimmerLease();
  }

  @AfterAll
  void stopYarn() {
    if (mr != null) {
      mr.stop();
    }
  }

  private ToolRun job(String... args) throws Exception {
    return ToolRun.of(mrConf, args);
  }

  private ToolRun job(Map<String, String> extra, String... args) throws Exception {
    Configuration c = new Configuration(mrConf);
    extra.forEach(c::set);
    return ToolRun.of(c, args);
  }

  /** The job the tool's JSON names ran its maps in its application master ({@link #IN_THE_AM} took). */
  private void assertRanInTheAm(JsonNode j) throws Exception {
    org.apache.hadoop.mapreduce.Cluster yarn = new org.apache.hadoop.mapreduce.Cluster(mrConf);
    try {
      Job ran = yarn.getJob(org.apache.hadoop.mapreduce.JobID.forName(j.get("job").asText()));
      assertTrue(ran != null && ran.isUber(), j.get("job").asText() + " ran its maps in the application master");
    } finally {
      yarn.close();
    }
  }

  private ArchivalPlan plan(String path) throws Exception {
    return ArchivalPlanner.plan(new ArchivalSource(fs).request(new Path(path), CODE, PlacementKind.CL))
        .withChainShape(ChainEncoder.shapeOf(conf), ChainEncoder.readsOf(conf));
  }

  private int stripesOf(List<String> paths) throws Exception {
    int n = 0;
    for (String p : paths) {
      n += manifestOf(p).stripes().size();
    }
    return n;
  }

  private void assertAllTrimmed(List<String> paths) throws Exception {
    for (String p : paths) {
      StripeManifest m = manifestOf(p);
      for (ArchivedStripe s : m.stripes()) {
        assertEquals(StripeState.TRIMMED, s.state(), p + " stripe " + s.stripeId());
      }
      checks.everyStripeMatchesIndependentEncode(m);
    }
    checks.everyByteReadsBack();
  }

  private static long counter(JsonNode j, String name) {
    return j.get("counters").get(name).asLong();
  }

  @Test
  void aTreeOfFilesAndDirectoriesIsArchivedByMapTasksWithExactCounters() throws Exception {
    checks.write("/tree/a", 7 * BLOCK + 300);
    checks.write("/tree/b", 3 * BLOCK);
    checks.write("/tree/d1/f1", 4 * BLOCK);
    checks.write("/tree/d1/f2", 2 * BLOCK + 100);
    checks.write("/tree/d1/sub/f3", BLOCK);
    checks.write("/tree/d2/g1", 2 * BLOCK);
    checks.write("/tree/d2/g2", 2 * BLOCK + 5);
    List<String> paths = List.of("/tree/a", "/tree/b", "/tree/d1", "/tree/d2");
    long logical = 0;
    long crossRack = 0;
    long moves = 0;
    int planned = 0;
    for (String p : paths) {
      ArchivalPlan plan = plan(p);
      logical += plan.logicalBytes();
      crossRack += plan.crossRackBytesClassic();
      moves += plan.blocksMoved();
      planned += plan.stripes().size();
    }
    List<String> args = new ArrayList<>(List.of("archive"));
    args.addAll(paths);
    args.addAll(List.of("--code", CODE, "--mr", "--maps", "4", "--json"));

    List<String> dry = new ArrayList<>(args);
    dry.add("--dry-run");
    ToolRun d = job(dry.toArray(String[]::new));
    assertEquals(0, d.exit(), d.err());
    assertEquals(4, d.json().get("listing").size());
    assertEquals(4, d.json().get("maps").size(), "one map task per unit: --maps 4");
    assertEquals(crossRack, sumOf(d.json().get("listing"), "crossRackBytesEncoding"));
    for (String p : paths) {
      assertNull(manifestOf(p), "a dry run changes nothing: " + p);
    }

    ToolRun r = job(args.toArray(String[]::new));
    assertEquals(0, r.exit(), r.out() + r.err());
    assertTrue(r.err().contains("submitted job_"), r.err());
    assertTrue(r.err().contains("tracking "), r.err());
    JsonNode j = r.json();
    assertEquals("SUCCEEDED", j.get("state").asText());
    assertAllTrimmed(paths);
    int stripes = stripesOf(paths);
    assertEquals(planned, stripes);
    assertEquals(4, counter(j, "PATHS_DONE"));
    assertEquals(0, counter(j, "PATHS_SKIPPED"));
    assertEquals(0, counter(j, "PATHS_FAILED"));
    assertEquals(stripes, counter(j, "STRIPES_ENCODED"));
    assertEquals(0, counter(j, "STRIPES_ROLLED_BACK"));
    assertEquals(logical, counter(j, "BYTES_ENCODED"));
    assertEquals(logical, counter(j, "DATA_BYTES_DONE"));
    assertEquals(crossRack, counter(j, "CROSS_RACK_BYTES_PLANNED"));
    assertEquals(moves, counter(j, "BLOCKS_MOVED"));
    assertEquals(stripes, j.get("stripesByState").get("TRIMMED").asLong());
    assertEquals(1, j.get("stripesByState").size(), j.get("stripesByState").toString());
    assertEquals(0, j.get("failed").size());
    for (String p : paths) {
      assertEquals("DONE", j.get("results").get(p).asText(), p);
    }

    // A rerun finds everything done and changes nothing.
    ToolRun again = job(IN_THE_AM, args.toArray(String[]::new));
    assertEquals(0, again.exit(), again.out() + again.err());
    assertRanInTheAm(again.json());
    assertEquals(4, counter(again.json(), "PATHS_SKIPPED"));
    assertEquals(0, counter(again.json(), "STRIPES_ENCODED"));
    assertEquals(0, counter(again.json(), "BYTES_ENCODED"));
    assertAllTrimmed(paths);
  }

  @Test
  void pathsListedInAnHdfsFileRunAsOneJobWithTheChainEncoder() throws Exception {
    checks.write("/chainjob/a", 7 * BLOCK + 300);
    checks.write("/chainjob/d/f1", 3 * BLOCK);
    checks.write("/chainjob/d/f2", 2 * BLOCK + 9);
    List<String> paths = List.of("/chainjob/a", "/chainjob/d");
    long crossRack = 0;
    int planned = 0;
    for (String p : paths) {
      crossRack += plan(p).crossRackBytesChain();
      planned += plan(p).stripes().size();
    }
    try (org.apache.hadoop.fs.FSDataOutputStream o = fs.create(new Path("/ops/chain-paths.txt"))) {
      o.write("# two units\n/chainjob/a\n\n/chainjob/d\n".getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }
    ToolRun r = job(IN_THE_AM, "archive", "--paths-from", "/ops/chain-paths.txt", "--code", CODE, "--encoder",
        "chain", "--mr", "--maps", "2", "--json");
    assertEquals(0, r.exit(), r.out() + r.err());
    JsonNode j = r.json();
    assertRanInTheAm(j);
    assertEquals("SUCCEEDED", j.get("state").asText());
    assertEquals(2, counter(j, "PATHS_DONE"));
    assertEquals(0, counter(j, "PATHS_FAILED"));
    assertEquals(planned, counter(j, "STRIPES_ENCODED"));
    assertEquals(crossRack, counter(j, "CROSS_RACK_BYTES_PLANNED"), "the chain's cross-rack bytes, as planned");
    for (String p : paths) {
      assertEquals("DONE", j.get("results").get(p).asText(), p);
    }
    assertEquals(planned, stripesOf(paths));
    assertAllTrimmed(paths); // parity equal to an independent encode, every byte read back
  }

  private static long sumOf(JsonNode array, String field) {
    long sum = 0;
    for (JsonNode n : array) {
      sum += n.get(field).asLong();
    }
    return sum;
  }

  @Test
  void aFirstAttemptHaltedAfterAStripeWasVerifiedIsRetriedAndResumesWithoutEncodingItAgain() throws Exception {
    checks.write("/halt/a", 7 * BLOCK + 300); // 2 stripes
    checks.write("/halt/b", 3 * BLOCK);
    checks.write("/halt/c/f", 5 * BLOCK);
    List<String> paths = List.of("/halt/a", "/halt/b", "/halt/c");
    java.io.File marker = new java.io.File(dir, "halted");
    Map<String, String> faults = Map.of(ArchiveJob.HOOK_KEY, FaultHook.class.getName(),
        HALT_INODE_KEY, Long.toString(store.inodeOf(new Path("/halt/a"))),
        HALT_STATE_KEY, "VERIFIED", MARKER_KEY, marker.getAbsolutePath());
    List<String> args = new ArrayList<>(List.of("archive"));
    args.addAll(paths);
    args.addAll(List.of("--code", CODE, "--mr", "--maps", "3", "--json"));
    ToolRun r = job(faults, args.toArray(String[]::new));
    assertEquals(0, r.exit(), r.out() + r.err());
    assertTrue(marker.exists(), "the first attempt was halted");
    assertTrue(java.nio.file.Files.readString(marker.toPath()).endsWith("_0 stripe 0 VERIFIED"),
        java.nio.file.Files.readString(marker.toPath()));
    assertAllTrimmed(paths);
    JsonNode j = r.json();
    int stripes = stripesOf(paths);
    // Only successful attempts count: the retry did all but stripe 0 of /halt/a, which it found VERIFIED.
    assertEquals(stripes - 1, counter(j, "STRIPES_ENCODED"));
    assertEquals(0, counter(j, "STRIPES_ROLLED_BACK"));
    assertEquals(3, counter(j, "PATHS_DONE"));
    assertEquals(0, counter(j, "PATHS_FAILED"));
    assertFalse(fs.exists(store.lockPath(store.inodeOf(new Path("/halt/a")))), "the dead attempt's lock is gone");
  }

  @Test
  void aJobKilledMidRunIsRerunWithoutEncodingAVerifiedStripeTwice() throws Exception {
    List<String> paths = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      checks.write("/killed/p" + i, 7 * BLOCK + 300); // 2 stripes each
      paths.add("/killed/p" + i);
    }
    Configuration slow = new Configuration(mrConf);
    slow.set(ArchiveJob.HOOK_KEY, FaultHook.class.getName());
    slow.setLong(PAUSE_KEY, 250);
    List<Path> ps = paths.stream().map(Path::new).toList();
    List<ArchiveItem> items = ArchiveListing.of(fs, store, ps, CODE, PlacementKind.CL, "classic",
        ChainEncoder.shapeOf(conf), true);
    Path jobDir = ArchiveJob.newJobDir(store.layout());
    Job job = ArchiveJob.create(slow, fs, jobDir, items, CODE, PlacementKind.CL, "classic", true, 2);
    job.submit();
    Eventually.await("a stripe committed", Duration.ofSeconds(90), () -> {
      assertFalse(job.isComplete(), "the job ended before it could be killed");
      return anyStripeIn(paths, StripeState.COMMITTED);
    });
    job.killJob();
    job.waitForCompletion(false);
    assertEquals("KILLED", job.getJobState().toString());
    // Its task processes end with the job (their archive locks closed by a shutdown hook, or left open if killed).
    // A grace, not a condition: a killed task's lock may stay open, which the assertions below allow for.
    Backoff settle = Backoff.doubling(100, 100, 5_000);
    while (!settle.expired() && anyLockOpen(paths)) {
      settle.pause();
    }
    Map<String, StripeManifest> before = new HashMap<>();
    int unverified = 0;
    int midEncoding = 0;
    boolean someDone = false;
    boolean someLeft = false;
    for (String p : paths) {
      StripeManifest m = manifestOf(p);
      before.put(p, m);
      for (ArchivedStripe s : m == null ? List.<ArchivedStripe>of() : m.stripes()) {
        switch (s.state()) {
          case PLANNED -> unverified++;
          case ENCODING, PARITY_WRITTEN -> {
            unverified++;
            midEncoding++;
          }
          default -> someDone = true;
        }
        someLeft |= s.state() != StripeState.TRIMMED;
      }
      if (m == null) {
        unverified += 2;
        someLeft = true;
      }
    }
    assertTrue(someDone && someLeft, "killed mid-run: " + before);

    List<String> args = new ArrayList<>(List.of("archive"));
    args.addAll(paths);
    args.addAll(List.of("--code", CODE, "--mr", "--maps", "2", "--json"));
    ToolRun r = job(IN_THE_AM, args.toArray(String[]::new));
    assertEquals(0, r.exit(), r.out() + r.err());
    assertAllTrimmed(paths);
    JsonNode j = r.json();
    assertRanInTheAm(j);
    assertEquals(unverified, counter(j, "STRIPES_ENCODED"), before.toString());
    assertEquals(midEncoding, counter(j, "STRIPES_ROLLED_BACK"));
    assertEquals(0, counter(j, "PATHS_FAILED"));
    // Every stripe verified before the kill still has the very parity blocks it was verified with.
    for (String p : paths) {
      StripeManifest m = before.get(p);
      for (ArchivedStripe s : m == null ? List.<ArchivedStripe>of() : m.stripes()) {
        if (s.state().ordinal() >= StripeState.VERIFIED.ordinal() && s.state() != StripeState.STALE) {
          ArchivedStripe now = manifestOf(p).stripe(s.stripeId());
          for (int u = s.code().k(); u < s.code().n(); u++) {
            StripeMember was = s.member(u);
            assertEquals(was.blockId(), now.member(u).blockId(), p + " stripe " + s.stripeId() + " unit " + u);
            assertEquals(was.crc32c(), now.member(u).crc32c(), p + " stripe " + s.stripeId() + " unit " + u);
          }
        }
      }
    }
  }

  private boolean anyStripeIn(List<String> paths, StripeState state) throws Exception {
    for (String p : paths) {
      StripeManifest m = manifestOf(p);
      if (m != null && m.stripes().stream().anyMatch(s -> s.state() == state)) {
        return true;
      }
    }
    return false;
  }

  private boolean anyLockOpen(List<String> paths) throws Exception {
    for (String p : paths) {
      if (store.lockHolder(store.inodeOf(new Path(p))) != null) {
        return true;
      }
    }
    return false;
  }
}
