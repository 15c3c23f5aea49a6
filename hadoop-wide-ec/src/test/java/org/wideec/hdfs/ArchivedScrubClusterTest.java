package org.wideec.hdfs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.junit.jupiter.api.Test;
import org.wideec.archive.ArchivedStripe;
import org.wideec.minicluster.MiniClusters;
import org.wideec.minicluster.SilentCorruption;

/**
 * {@code wide-ec verify} of archived stripes (azure-lrc:k=6,l=2,g=2, 64 KiB blocks, 6 racks x 3): silent corruption
 * (bytes changed in every replica of a member, {@code .meta} rewritten to match) of a data member of one archive and a
 * global parity of another is named from one-page summaries, against the manifest's code.
 */
class ArchivedScrubClusterTest extends ArchiveTestBed {
  @Override
  Configuration baseConf() {
    Configuration c = MiniClusters.withWideEcRepair(new Configuration());
    // A scrub proves the READ token of each member block to its holder's slice port.
    c.setBoolean(DFSConfigKeys.DFS_BLOCK_ACCESS_TOKEN_ENABLE_KEY, true);
    return c;
  }

  @Test
  void verifyNamesASilentlyCorruptDataMemberAndParityMemberOfArchivedStripes() throws Exception {
    write("/scrub/a", 1);
    write("/scrub/b", 2);
    for (String p : List.of("/scrub/a", "/scrub/b")) {
      ToolRun r = tool("archive", p, "--code", CODE, "--no-trim");
      assertEquals(0, r.exit(), r.out() + r.err());
      assertEquals(List.of("consistent"), verdicts(p, 0));
    }
    corruptEveryReplica(manifestOf("/scrub/a").stripes().get(0), 2);
    corruptEveryReplica(manifestOf("/scrub/b").stripes().get(0), 7);
    assertEquals(List.of("unit_at_fault [2]"), verdicts("/scrub/a", 1));
    assertEquals(List.of("unit_at_fault [7]"), verdicts("/scrub/b", 1));
  }

  private void write(String path, long seed) throws Exception {
    byte[] data = new byte[(int) (6 * BLOCK)];
    new Random(seed).nextBytes(data);
    try (FSDataOutputStream o = fs.create(new Path(path))) {
      o.write(data);
    }
  }

  /** Each stripe's verdict and suspects, from verify --json, which exits as expected. */
  private List<String> verdicts(String path, int exit) throws Exception {
    ToolRun r = tool("verify", path, "--page-bytes", "512", "--seed", "7", "--json");
    assertEquals(exit, r.exit(), r.out() + r.err());
    JsonNode j = r.json();
    assertEquals(0, j.get("groupsChecked").asInt());
    List<String> out = new java.util.ArrayList<>();
    for (JsonNode s : j.get("stripes")) {
      out.add(s.has("verdict") ? s.get("verdict").asText() + (s.get("suspects").isEmpty() ? "" : " "
          + s.get("suspects")) : s.get("error").asText());
    }
    return out.stream().map(v -> v.replace(",", ", ")).toList();
  }

  private void corruptEveryReplica(ArchivedStripe s, int unit) throws Exception {
    LocatedBlock lb = located(s.member(unit));
    List<DataNode> dns = cluster.getDataNodes();
    for (DatanodeInfo holder : lb.getLocations()) {
      for (int i = 0; i < dns.size(); i++) {
        if (dns.get(i).getDatanodeId().getXferAddr().equals(holder.getXferAddr())) {
          SilentCorruption.flipByte(cluster, i, lb.getBlock(), 1000, 0x5a);
        }
      }
    }
  }
}
