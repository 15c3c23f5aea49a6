package org.wideec.demo;

import static org.wideec.demo.DemoArchive.CODE;
import static org.wideec.demo.DemoArchive.JOB_FILES;
import static org.wideec.demo.DemoFiles.readAll;
import static org.wideec.demo.DemoFiles.require;
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
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.mapreduce.v2.MiniMRYarnCluster;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.StripeManifest;
import org.wideec.archive.StripeState;
import org.wideec.archive.hdfs.ManifestStore;

/** {@code archive --mr}: one more directory archived by a MapReduce job on a MiniMRYarnCluster. */
final class MapReduceArchiveStage {
  private final DemoConsole console;
  /** The cluster's block size: a few of the job's files are just over one block. */
  private final long block;
  private final ObjectMapper json = new ObjectMapper();

  MapReduceArchiveStage(DemoConsole console, long block) {
    this.console = console;
    this.block = block;
  }

  /** What the archival MapReduce job did: the archive units it was given and the stripes their manifests hold. */
  record JobRun(int paths, int stripes) {}

  /**
   * One more directory of small files, archived by {@code archive --mr}: a real MapReduce job on a MiniMRYarnCluster
   * next to the HDFS one, its map tasks running the same orchestrator as the plain command in JVMs of their own.
   */
  JobRun archiveWithMapReduce(MiniDFSCluster cluster, File yarnDir, ManifestStore store, Random rnd,
      String rackDown)
      throws Exception {
    DistributedFileSystem fs = cluster.getFileSystem();
    Path events = new Path("/events");
    Map<Path, byte[]> written = writeEvents(fs, events, rnd);
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
      int planned = plannedStripes(json.readTree(listed.out()), paths);
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
      readAll(console, fs, written, "stock HDFS client, " + events + " archived by the job");
      return new JobRun(paths.size(), m.stripes().size());
    } finally {
      yarn.stop();
    }
  }

  /** Small files under {@code events}, three replicas each; what was written. */
  private Map<Path, byte[]> writeEvents(DistributedFileSystem fs, Path events, Random rnd) throws IOException {
    Map<Path, byte[]> written = new LinkedHashMap<>();
    for (int i = 0; i < JOB_FILES; i++) {
      // Small files, as a day of events is: a few tiny, most of some hundred KiB, a few just over one block.
      long size = switch (i % 6) {
        case 0 -> 1 + rnd.nextInt(20_000);
        case 5 -> block + 1 + rnd.nextInt(100_000);
        default -> 30_000 + rnd.nextInt(370_000);
      };
      Path p = new Path(events, String.format("event-%05d", i));
      written.put(p, write(fs, p, size, rnd));
    }
    long bytes = written.values().stream().mapToLong(b -> b.length).sum();
    console.step(String.format("wrote %d small files under %s, %.1f MiB at replication 3, to archive with a MapReduce"
        + " job", JOB_FILES, events, bytes / 1048576.0));
    return written;
  }

  /** The stripes the job's listing plans, each item said in a line; one item per path given. */
  private int plannedStripes(JsonNode listing, List<String> paths) throws IOException {
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
    return planned;
  }

  /** YARN with one NodeManager on the cluster's HDFS, heartbeats as short as the demo's job is. */
  private static MiniMRYarnCluster startYarn(MiniDFSCluster cluster, File workDir) {
    Configuration c = new Configuration(cluster.getConfiguration(0));
    c.setInt("yarn.nodemanager.resource.memory-mb", 4096);
    c.setInt("yarn.scheduler.minimum-allocation-mb", 128);
    c.setInt("mapreduce.map.memory.mb", 512);
    c.setInt("yarn.app.mapreduce.am.resource.mb", 512);
    // Two short-lived JVMs on a host already running 108 DataNodes: one GC thread each, and C1 only so that they
    // start sooner (the application master computes little; the map task's coding is ISA-L's, native).
    c.set("mapreduce.map.java.opts", "-Xmx400m -XX:+UseSerialGC -XX:TieredStopAtLevel=1");
    c.set("yarn.app.mapreduce.am.command-opts", "-Xmx400m -XX:+UseSerialGC -XX:TieredStopAtLevel=1");
    // The command looks at the job's progress every fifth of a second, not every second.
    c.setInt("mapreduce.client.progressmonitor.pollinterval", 200);
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

}
