package org.wideec.hdfs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.junit.jupiter.api.BeforeAll;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.StripeMember;
import org.wideec.archive.hdfs.ArchiveLayout;
import org.wideec.archive.hdfs.TrimProtocol;
import org.wideec.minicluster.MiniClusters;

/**
 * The racked test bed (6 racks x 3 DataNodes, azure-lrc:k=6,l=2,g=2, which claims 3 losses) with the NameNode
 * plugin's trimmer, reprotection and repair monitor passing every 300 ms, for stripes whose members change after
 * archival.
 */
abstract class ChangedMemberTestBed extends ArchiveTestBed {
  @Override
  Configuration baseConf() {
    return passingEvery300Ms(MiniClusters.withWideEcRepair(MiniClusters.withWideEcArchiveTrim(new Configuration(),
        300)));
  }

  /** The bed's timings on top of {@code base}: the plugin's passes every 300 ms, HDFS's redundancy work every 250. */
  static Configuration passingEvery300Ms(Configuration base) {
    base.setLong(TrimProtocol.WAIT_KEY, 30_000);
    base.setLong("wide-ec.archive.repair.interval.ms", 300);
    base.setLong("wide-ec.archive.reprotect.interval.ms", 300);
    base.set(org.apache.hadoop.hdfs.DFSConfigKeys.DFS_NAMENODE_REDUNDANCY_INTERVAL_SECONDS_KEY, "250ms");
    return base;
  }

  @BeforeAll
  void awaitLease() throws Exception {
    awaitTrimmerLease();
  }

  /** Writes the small files of one stripe's data units, archives them and returns the stripe (TRIMMED). */
  ArchivedStripe archiveSmallFiles(String dir, String... names) throws Exception {
    for (int i = 0; i < names.length; i++) {
      checks.write(dir + "/" + names[i], BLOCK / 4 + 1000 * i);
    }
    ToolRun archived = tool("archive", dir, "--code", CODE);
    assertEquals(0, archived.exit(), archived.out() + archived.err());
    List<ArchivedStripe> stripes = manifestOf(dir).stripes();
    assertEquals(1, stripes.size());
    return stripes.get(0);
  }

  /**
   * Six small files a-f archived as one trimmed stripe, then {@code extra} appended to d by a stock client (the stripe
   * still names d's archived block), then the DataNode holding a's only replica lost.
   *
   * @param stripe the stripe as archived
   * @param lost a's member, which has no live replica left
   * @param appended d's member as archived
   * @param archivedA a's bytes
   */
  record AppendedThenLost(ArchivedStripe stripe, StripeMember lost, StripeMember appended, byte[] archivedA) {}

  AppendedThenLost appendToDThenLoseA(String dir, byte[] extra) throws Exception {
    String[] names = {"a", "b", "c", "d", "e", "f"};
    ArchivedStripe s = archiveSmallFiles(dir, names);
    Map<String, Integer> unitOf = unitsOf(s, dir, names);
    byte[] a = read(dir + "/a");
    checks.append(dir + "/d", extra);
    StripeMember lost = s.member(unitOf.get("a"));
    lose(lost.plannedNode());
    assertEquals(0, located(lost).getLocations().length, "a's only replica was on the lost node");
    return new AppendedThenLost(s, lost, s.member(unitOf.get("d")), a);
  }

  /** The bed's configuration with reprotection once an hour: no replica of a lost member may be added meanwhile. */
  static Configuration reprotectingHourly(Configuration c) {
    c.setLong("wide-ec.archive.reprotect.interval.ms", 3_600_000);
    return c;
  }

  /** The data unit each named file of the directory holds in the stripe. */
  Map<String, Integer> unitsOf(ArchivedStripe s, String dir, String... names) throws Exception {
    Map<String, Integer> unitOf = new LinkedHashMap<>();
    for (String n : names) {
      long inode = store.inodeOf(new Path(dir + "/" + n));
      for (int u = 0; u < s.code().k(); u++) {
        if (s.member(u).inodeId() == inode) {
          unitOf.put(n, u);
        }
      }
    }
    assertEquals(names.length, unitOf.size(), unitOf.toString());
    return unitOf;
  }


  /** Live replicas of every block of the file (reached by inode, so a deleted one has none to ask for). */
  int fewestReplicas(long inode) {
    try {
      String p = ArchiveLayout.inodePath(inode).toString();
      long len = fs.getClient().getFileInfo(p).getLen();
      int fewest = Integer.MAX_VALUE;
      for (LocatedBlock lb : fs.getClient().getLocatedBlocks(p, 0, len).getLocatedBlocks()) {
        fewest = Math.min(fewest, lb.getLocations().length);
      }
      return fewest;
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  byte[] read(String path) throws Exception {
    byte[] b = new byte[(int) fs.getFileStatus(new Path(path)).getLen()];
    try (FSDataInputStream in = fs.open(new Path(path))) {
      in.readFully(0, b);
    }
    return b;
  }

  /** fsck's findings about the stripe as a whole ("problem: message"). */
  List<String> stripeFindings(String dir, long stripeId) throws Exception {
    JsonNode a = tool("fsck", dir, "--json").json().get("archived");
    List<String> out = new ArrayList<>();
    a.get("stripes").forEach(st -> st.get("findings").forEach(f -> {
      if (f.get("stripe").asLong() == stripeId && f.get("unit").asInt() == -1) {
        out.add(f.get("problem").asText() + ": " + f.get("message").asText());
      }
    }));
    return out;
  }

  /** Stops the DataNode and has the NameNode count it dead at once. */
  void lose(String node) throws Exception {
    DataNode dn = cluster.getDataNodes().stream().filter(x -> x.getDatanodeId().getXferAddr().equals(node))
        .findFirst().orElseThrow(() -> new AssertionError("no DataNode at " + node));
    cluster.stopDataNode(node);
    cluster.setDataNodeDead(dn.getDatanodeId());
  }
}
