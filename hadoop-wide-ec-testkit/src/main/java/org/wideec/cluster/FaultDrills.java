package org.wideec.cluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.protocol.HdfsConstants.SafeModeAction;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.wideec.minicluster.StripedGroups;
import org.wideec.time.Backoff;

/**
 * {@code wide-ec bench cluster --faults}: failures with real processes, each ending in a byte-for-byte check of every
 * file it touched. kill -9 of a DataNode while our worker rebuilds and while the archiver encodes; kill -9 of the
 * archiver and of the NameNode mid-archive, then the archive rerun (it resumes from its manifest); a rack cut off at
 * its uplink and healed; a DataNode whose data disk (a small tmpfs) is full; a DataNode started with another secret.
 */
final class FaultDrills {
  /** Sizes, the striped policy of the repair drills and the wide code of the archive drills. */
  record Settings(long dataBytes, long fileBytes, String policy, ArchivalComparison.Settings archive) {}

  private static final Path STRIPED = new Path("/bench-faults/striped");
  private final ClusterBed bed;
  private final Settings s;
  private final List<Path> striped = new ArrayList<>();
  private ErasureCodingPolicy policy;
  private int nodes;

  FaultDrills(ClusterBed bed, Settings s) {
    this.bed = bed;
    this.s = s;
  }

  Map<String, Object> run() throws Exception {
    nodes = bed.liveDataNodes();
    policy = bed.policy(s.policy());
    bed.stock.delete(new Path("/bench-faults"), true);
    bed.stock.mkdirs(STRIPED);
    bed.stock.setErasureCodingPolicy(STRIPED, policy.getName());
    for (int f = 0; f < files(); f++) {
      striped.add(new Path(STRIPED, "f" + f));
      FileContent.write(bed.stock, striped.get(f), 100 + f, s.fileBytes());
    }
    bed.awaitWhole(striped, policy);

    Map<String, Object> drills = new LinkedHashMap<>();
    drills.put("dataNodeKilledMidRepair", drill(this::dataNodeKilledMidRepair));
    drills.put("rackCutOffAndHealed", drill(this::rackCutOffAndHealed));
    drills.put("targetDiskFull", drill(this::targetDiskFull));
    drills.put("wrongSecret", drill(this::wrongSecret));
    drills.put("dataNodeKilledMidArchive", drill(() -> midArchive("datanode")));
    drills.put("archiverKilledMidArchive", drill(() -> midArchive("archiver")));
    drills.put("nameNodeKilledMidArchive", drill(() -> midArchive("namenode")));

    Map<String, Object> r = new LinkedHashMap<>();
    r.put("dataNodes", nodes);
    r.put("policy", policy.getName());
    r.put("wideCode", s.archive().wideCode());
    r.put("drills", drills);
    long lost = 0;
    for (Object d : drills.values()) {
      lost += ((Number) ((Map<?, ?>) d).get("bytesLost")).longValue();
    }
    r.put("bytesLost", lost);
    r.put("invalidPhases", new ArrayList<>(bed.invalid));
    bed.stock.delete(new Path("/bench-faults"), true);
    return r;
  }

  /** A drill: what it did (its own words), then every striped file compared, plus the files it returns. */
  @FunctionalInterface
  private interface Drill {
    Outcome run() throws Exception;
  }

  private record Outcome(String did, List<Path> extraFiles, long extraSeed) {
    Outcome(String did) {
      this(did, List.of(), 0);
    }
  }

  private Map<String, Object> drill(Drill d) throws Exception {
    long start = System.nanoTime();
    Outcome o = d.run();
    bed.awaitLive(nodes);
    bed.awaitWhole(striped, policy);
    List<String> mismatches = new ArrayList<>();
    long compared = 0;
    long lost = 0;
    for (int f = 0; f < striped.size(); f++) {
      compared += s.fileBytes();
      String m = FileContent.mismatch(bed.ours, striped.get(f), 100 + f, s.fileBytes());
      if (m != null) {
        mismatches.add(m);
        lost += s.fileBytes();
      }
    }
    for (int f = 0; f < o.extraFiles().size(); f++) {
      compared += s.fileBytes();
      String m = FileContent.mismatch(bed.ours, o.extraFiles().get(f), o.extraSeed() + f, s.fileBytes());
      if (m != null) {
        mismatches.add(m);
        lost += s.fileBytes();
      }
    }
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("did", o.did());
    r.put("seconds", Phase.round((System.nanoTime() - start) / 1e9));
    r.put("filesCompared", striped.size() + o.extraFiles().size());
    r.put("bytesCompared", compared);
    r.put("bytesLost", lost);
    r.put("mismatches", mismatches);
    bed.log.println("cluster bench: drill done: " + o.did() + "; " + compared + " bytes compared, " + lost + " lost");
    return r;
  }

  private int files() {
    return (int) Math.max(1, (s.dataBytes() + s.fileBytes() - 1) / s.fileBytes());
  }

  private DatanodeInfo holderOfUnit0() throws IOException {
    return StripedGroups.location(StripedGroups.groups(bed.stock, striped.get(0)).get(0), 0);
  }

  private Outcome dataNodeKilledMidRepair() throws Exception {
    DatanodeInfo first = holderOfUnit0();
    String a = ClusterScript.nodeName(first);
    Map<String, Long> before = bed.counters.sum(Set.of(first.getXferAddr()));
    bed.cluster.kill(a);
    bed.awaitDropped(List.of(first), striped);
    // Mid-repair: the worker has rebuilt something and some group still misses a unit; kill a node of that group.
    DatanodeInfo second = null;
    Backoff poll = Backoff.doubling(100, 100, bed.timeoutMs);
    while (second == null && !poll.expired()) {
      long done = DataNodeCounters.delta(before, bed.counters.sum(Set.of(first.getXferAddr()))).get("wideEcTasksCompleted");
      LocatedStripedBlock open = firstIncomplete();
      if (open == null) {
        break; // everything was rebuilt before we could strike
      }
      if (done > 0 || ClusterBed.isStock(policy)) {
        second = open.getLocations()[0];
      } else {
        poll.pause();
      }
    }
    String did;
    if (second == null) {
      did = "killed " + a + "; every group was rebuilt before a second DataNode could be killed mid-repair";
    } else {
      String b = ClusterScript.nodeName(second);
      bed.cluster.kill(b);
      bed.awaitDropped(List.of(second), striped);
      bed.awaitWhole(striped, policy);
      bed.startDataNode(b);
      did = "killed " + a + " with SIGKILL, then " + b + " (a survivor of a group still being rebuilt) mid-repair;"
          + " every group rebuilt, both restarted";
    }
    bed.awaitWhole(striped, policy);
    bed.startDataNode(a);
    return new Outcome(did);
  }

  private LocatedStripedBlock firstIncomplete() throws IOException {
    for (Path f : striped) {
      for (LocatedStripedBlock g : StripedGroups.groups(bed.stock, f)) {
        if (!StripedGroups.missingUnits(g, policy).isEmpty()) {
          return g;
        }
      }
    }
    return null;
  }

  private Outcome rackCutOffAndHealed() throws Exception {
    int rack = ClusterScript.rackOf(holderOfUnit0());
    List<DatanodeInfo> in = bed.rack(rack);
    bed.cluster.rack(rack, false);
    try {
      bed.awaitDropped(in, striped);
    } finally {
      bed.cluster.rack(rack, true);
    }
    return new Outcome("cut rack" + rack + " off at its uplink (" + in.size() + " DataNodes) until the NameNode declared"
        + " them dead and dropped their units, then healed it mid-repair; the rack rejoined, excess copies deleted");
  }

  private Outcome targetDiskFull() throws Exception {
    DatanodeInfo victim = holderOfUnit0();
    DatanodeInfo full = otherThan(victim);
    String node = ClusterScript.nodeName(full);
    java.nio.file.Path disk = java.nio.file.Path.of(bed.cluster.dir(), "data", node + "-tmpfs");
    java.nio.file.Path conf = java.nio.file.Path.of(bed.cluster.dir(), "conf-" + node);
    bed.cluster.kill(node);
    Files.createDirectories(disk);
    sh("mount", "-t", "tmpfs", "-o", "size=48m", "tmpfs", disk.toString());
    try {
      copyConf(conf, "  <property><name>dfs.datanode.data.dir</name><value>file://" + disk + "/dn</value></property>\n",
          false);
      bed.startDataNode(node);
      bed.awaitLive(nodes);
      bed.awaitWhole(striped, policy); // its old units are gone with its old disk: rebuilt elsewhere or onto it
      // Fill what is left but half a MiB, as a disk filled by something else would be.
      sh("sh", "-c", "avail=$(df -B1 --output=avail " + disk + " | tail -n 1); dd if=/dev/zero of=" + disk + "/filler bs=64k"
          + " count=$(( (avail - 524288) / 65536 )) status=none");
      String df = sh("df", "-h", "--output=size,used,avail", disk.toString()).trim().replace('\n', ' ');
      String v = ClusterScript.nodeName(victim);
      bed.cluster.kill(v);
      bed.awaitDropped(List.of(victim), striped);
      bed.awaitWhole(striped, policy);
      bed.startDataNode(v);
      bed.awaitLive(nodes);
      bed.awaitWhole(striped, policy);
      return new Outcome(node + " on a 48 MiB tmpfs data disk filled to half a MiB free (" + df + "); killed " + v
          + " with SIGKILL; every group rebuilt with " + node + " full; " + node + " back on its own disk after");
    } finally {
      bed.cluster.kill(node);
      deleteTree(conf);
      sh("umount", disk.toString());
      bed.startDataNode(node);
    }
  }

  private Outcome wrongSecret() throws Exception {
    DatanodeInfo victim = holderOfUnit0();
    DatanodeInfo wrong = otherThan(victim);
    String node = ClusterScript.nodeName(wrong);
    java.nio.file.Path conf = java.nio.file.Path.of(bed.cluster.dir(), "conf-" + node);
    bed.cluster.kill(node);
    try {
      copyConf(conf, "  <property><name>wide-ec.transport.secret</name><value>not-the-cluster-secret-0123456789</value>"
          + "</property>\n", true);
      bed.startDataNode(node);
      bed.awaitLive(nodes);
      Set<String> out = Set.of(victim.getXferAddr());
      Map<String, Long> before = bed.counters.sum(out);
      String v = ClusterScript.nodeName(victim);
      bed.cluster.kill(v);
      bed.awaitDropped(List.of(victim), striped);
      bed.awaitWhole(striped, policy);
      Map<String, Long> d = DataNodeCounters.delta(before, bed.counters.sum(out));
      bed.startDataNode(v);
      bed.awaitLive(nodes);
      return new Outcome(node + " restarted with another transport secret (no credential provider); killed " + v
          + " with SIGKILL; every group rebuilt (our worker: " + d.get("wideEcTasksCompleted") + " tasks, "
          + d.get("wideEcRepairsSucceeded") + " repairs)");
    } finally {
      bed.cluster.kill(node);
      deleteTree(conf);
      bed.startDataNode(node);
    }
  }

  /** Archives a fresh replicated directory with the chain encoder, strikes {@code what} mid-archive, then reruns it. */
  private Outcome midArchive(String what) throws Exception {
    Path dir = new Path("/bench-faults/archive-" + what);
    List<Path> files = new ArrayList<>();
    long seed = 5000L + what.hashCode() % 1000;
    bed.stock.mkdirs(dir);
    for (int f = 0; f < files(); f++) {
      files.add(new Path(dir, "f" + f));
      FileContent.write(bed.stock, files.get(f), seed + f, s.fileBytes());
    }
    String[] archive = ArchivalComparison.concat(new String[] {"archive", dir.toString()}, s.archive().archiveArgs(
        s.archive().wideCode(), "chain"));
    long manifests = manifests();
    ToolProcess first = ToolProcess.start(archive);
    Await.until("the archiver writing its manifest", bed.timeoutMs, () -> !first.isAlive() || manifests() > manifests);
    String struck;
    switch (what) {
      case "datanode" -> {
        LocatedBlock b = bed.stock.getClient().getLocatedBlocks(files.get(0).toString(), 0, 1).get(0);
        DatanodeInfo dn = b.getLocations()[0];
        struck = ClusterScript.nodeName(dn);
        bed.cluster.kill(struck);
        int exit = first.waitFor(bed.timeoutMs);
        bed.startDataNode(struck);
        bed.awaitLive(nodes);
        struck = "DataNode " + struck + " (holding a replica of the first block) killed with SIGKILL mid-archive (archiver"
            + " exit " + exit + "), restarted";
      }
      case "archiver" -> {
        first.killHard();
        struck = "the archiver (wide-ec archive, its own JVM) killed with SIGKILL mid-archive";
      }
      default -> {
        bed.cluster.kill("nn");
        int exit = first.waitFor(TimeUnit.MINUTES.toMillis(3));
        if (exit == -1) {
          first.killHard();
        }
        bed.cluster.start("nn");
        Await.until("the NameNode out of safe mode", bed.timeoutMs, () -> {
          try {
            return !bed.stock.setSafeMode(SafeModeAction.SAFEMODE_GET);
          } catch (IOException e) {
            return false; // still starting
          }
        });
        bed.awaitLive(nodes);
        struck = "the NameNode killed with SIGKILL mid-archive (archiver exit " + exit + "), restarted";
      }
    }
    boolean finishedAnyway = !first.isAlive() && first.waitFor(0) == 0;
    long start = System.nanoTime();
    String again = rerunOnceTheLockIsFree(archive);
    long waited = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start);
    return new Outcome(struck + "; the archive rerun resumed and finished" + (finishedAnyway ? " (the first run had"
        + " finished anyway)" : "") + " after " + waited + " s: " + lastLine(again), files, seed);
  }

  /**
   * The rerun as the archiver tells an operator to do it: a run killed with SIGKILL leaves its lock open until HDFS
   * recovers the lease (about a minute), and a rerun meanwhile says so and stops; rerun until it gets the lock.
   */
  private String rerunOnceTheLockIsFree(String[] archive) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(bed.timeoutMs);
    while (true) {
      try {
        return ToolProcess.run(bed.timeoutMs, archive);
      } catch (IOException e) {
        if (!e.getMessage().contains("another wide-ec archive run holds") || System.nanoTime() > deadline) {
          throw e;
        }
        bed.log.println("cluster bench: the killed run's lock is still held; rerunning in 15 s");
        Thread.sleep(15_000);
      }
    }
  }

  private long manifests() throws IOException {
    Path root = new Path(bed.conf.get("wide-ec.archive.dir", "/.wideec"));
    return bed.stock.exists(root) ? bed.stock.getContentSummary(root).getFileCount() : 0;
  }

  private DatanodeInfo otherThan(DatanodeInfo victim) throws IOException {
    Set<String> holders = new HashSet<>();
    for (LocatedStripedBlock g : StripedGroups.groups(bed.stock, striped.get(0))) {
      Arrays.stream(g.getLocations()).forEach(d -> holders.add(d.getXferAddr()));
    }
    DatanodeInfo pick = null;
    for (DatanodeInfo d : bed.stock.getDataNodeStats(org.apache.hadoop.hdfs.protocol.HdfsConstants.DatanodeReportType.LIVE)) {
      if (!d.getXferAddr().equals(victim.getXferAddr()) && (pick == null || holders.contains(d.getXferAddr()))) {
        pick = d;
      }
    }
    return pick;
  }

  /** The cluster's configuration copied for one node, {@code property} added to its hdfs-site.xml. */
  private void copyConf(java.nio.file.Path to, String property, boolean noCredentialProvider) throws IOException {
    java.nio.file.Path from = java.nio.file.Path.of(bed.cluster.dir(), "conf");
    Files.createDirectories(to);
    try (var files = Files.list(from)) {
      for (java.nio.file.Path f : (Iterable<java.nio.file.Path>) files::iterator) {
        if (Files.isRegularFile(f)) {
          Files.copy(f, to.resolve(f.getFileName()), java.nio.file.StandardCopyOption.REPLACE_EXISTING,
              java.nio.file.StandardCopyOption.COPY_ATTRIBUTES);
        }
      }
    }
    java.nio.file.Path site = to.resolve("hdfs-site.xml");
    String x = Files.readString(site, StandardCharsets.UTF_8);
    Files.writeString(site, x.replace("</configuration>", property + "</configuration>"), StandardCharsets.UTF_8);
    if (noCredentialProvider) {
      java.nio.file.Path core = to.resolve("core-site.xml");
      String c = Files.readString(core, StandardCharsets.UTF_8);
      Files.writeString(core, c.replaceAll("  <property><name>hadoop.security.credential.provider.path</name>.*\n", ""),
          StandardCharsets.UTF_8);
    }
  }

  private static void deleteTree(java.nio.file.Path p) throws IOException {
    if (Files.exists(p)) {
      try (var walk = Files.walk(p)) {
        for (java.nio.file.Path f : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
          Files.delete(f);
        }
      }
    }
  }

  private static String sh(String... command) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (p.waitFor() != 0) {
      throw new IOException(String.join(" ", command) + " failed: " + out.trim());
    }
    return out;
  }

  private static String lastLine(String out) {
    String[] lines = out.trim().split("\n");
    return lines[lines.length - 1];
  }
}
