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
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.wideec.minicluster.StripedGroups;
import org.wideec.time.Backoff;

/**
 * {@code wide-ec bench cluster --faults}: failures with real processes, each ending in a byte-for-byte check of every
 * file it touched. kill -9 of a DataNode while our worker rebuilds and while the archiver encodes; kill -9 of the
 * archiver and of the NameNode mid-archive, then the archive rerun (it resumes from its manifest); a rack cut off at
 * its uplink and healed; a DataNode whose data disk (a small tmpfs) is full; a DataNode started with another secret.
 * The drills that strike an archive are {@link MidArchiveDrills}.
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

  private final MidArchiveDrills midArchive;

  FaultDrills(ClusterBed bed, Settings s) {
    this.bed = bed;
    this.s = s;
    this.midArchive = new MidArchiveDrills(bed, s.archive(), this::files, s.fileBytes());
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
    drills.put("dataNodeKilledMidArchive", drill(() -> midArchive.strike("datanode", nodes)));
    drills.put("archiverKilledMidArchive", drill(() -> midArchive.strike("archiver", nodes)));
    drills.put("nameNodeKilledMidArchive", drill(() -> midArchive.strike("namenode", nodes)));

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

  record Outcome(String did, List<Path> extraFiles, long extraSeed) {
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
}
