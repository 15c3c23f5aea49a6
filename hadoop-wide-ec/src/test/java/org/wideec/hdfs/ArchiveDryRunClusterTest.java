package org.wideec.hdfs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.wideec.archive.hdfs.ArchivalSource;
import org.wideec.cli.WideEcTool;
import org.wideec.minicluster.MiniClusters;

/**
 * {@code wide-ec archive --dry-run} against a real racked cluster: the plan is read from the NameNode (inode ids,
 * blocks, generation stamps, replica locations), keeps a real replica of every block or moves it, puts parities on
 * nodes the stripe does not use, and changes nothing; what the archival layout cannot take is refused by name.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ArchiveDryRunClusterTest {
  static final long BLOCK = 64 * 1024;
  static final String CODE = "azure-lrc:k=6,l=2,g=2";

  java.nio.file.Path base;
  MiniDFSCluster cluster;
  DistributedFileSystem fs;
  Configuration conf;

  @BeforeAll
  void start(@TempDir java.nio.file.Path dir) throws Exception {
    base = dir;
    Configuration c = new Configuration();
    // ACLs off (ACLs are not used here otherwise): sealing needs none, its parts are private by their mode bits.
    c.setBoolean(org.apache.hadoop.hdfs.DFSConfigKeys.DFS_NAMENODE_ACLS_ENABLED_KEY, false);
    cluster = MiniClusters.start(c, base.toFile(), 6, 3, BLOCK);
    fs = cluster.getFileSystem();
    conf = cluster.getConfiguration(0);
    write("/logs/a", 9 * BLOCK);
    write("/logs/small/b", BLOCK / 2);
    write("/logs/small/c", 2 * BLOCK + 17);
    write("/logs/empty", 0);
  }

  @AfterAll
  void stop() {
    if (cluster != null) {
      cluster.shutdown();
    }
  }

  private void write(String path, long bytes) throws Exception {
    byte[] data = new byte[(int) bytes];
    new Random(path.hashCode()).nextBytes(data);
    try (FSDataOutputStream o = fs.create(new Path(path), (short) 3)) {
      o.write(data);
    }
    // Every replica reported before a test snapshots the namespace: HDFS closes a file once one replica of its last
    // block is in, and a replica reported later would read as a change (one run saw [1 node] become [3 nodes]).
    org.apache.hadoop.hdfs.DFSTestUtil.waitReplication(fs, new Path(path), (short) 3);
  }

  private ToolRun archive(String... args) throws Exception {
    String[] all = new String[args.length + 1];
    all[0] = "archive";
    System.arraycopy(args, 0, all, 1, args.length);
    return ToolRun.of(conf, all);
  }

  /** Where HDFS says each block's replicas are, by block id. */
  private Map<Long, Set<String>> replicas(String path) throws Exception {
    Map<Long, Set<String>> m = new HashMap<>();
    long len = fs.getFileStatus(new Path(path)).getLen();
    for (LocatedBlock lb : fs.getClient().getLocatedBlocks(path, 0, len).getLocatedBlocks()) {
      Set<String> nodes = new HashSet<>();
      for (DatanodeInfo d : lb.getLocations()) {
        nodes.add(d.getXferAddr());
      }
      m.put(lb.getBlock().getBlockId(), nodes);
    }
    return m;
  }

  @Test
  void aFilesPlanKeepsRealReplicasPlacesParitiesApartAndChangesNothing() throws Exception {
    Map<Long, Set<String>> before = replicas("/logs/a");
    ToolRun r = archive("/logs/a", "--code", CODE, "--dry-run", "--json");
    assertEquals(0, r.exit(), r.err());
    JsonNode j = r.json();
    assertEquals("file", j.get("scope").asText());
    assertEquals(CODE, j.get("code").asText());
    assertEquals("cl", j.get("placement").asText(), "an LRC with local groups is placed by combined locality");
    assertEquals(9, j.get("dataBlocks").asInt());
    assertEquals(2, j.get("stripes").size(), "9 blocks make a full stripe of 6 and a short one of 3");
    assertEquals(3, j.get("stripes").get(1).get("paddingUnits").asInt());
    assertEquals(9 * BLOCK, j.get("logicalBytes").asLong());
    long inode = fs.getClient().getFileInfo("/logs/a").getFileId();
    Set<Long> planned = new HashSet<>();
    for (JsonNode s : j.get("stripes")) {
      Set<String> nodesOfStripe = new HashSet<>();
      for (JsonNode u : s.get("units")) {
        String action = u.get("action").asText();
        if (action.equals("virtual")) {
          continue;
        }
        assertTrue(nodesOfStripe.add(u.get("node").asText()), "two units of stripe " + s.get("id") + " on one node: " + u);
        if (u.has("blockId")) {
          long id = u.get("blockId").asLong();
          planned.add(id);
          assertEquals("/logs/a", u.get("file").asText());
          if (action.equals("keep")) {
            assertTrue(before.get(id).contains(u.get("node").asText()), "kept replica of " + id + " is real: " + u);
          } else {
            assertEquals("move", action);
            assertTrue(before.get(id).contains(u.get("fromNode").asText()), "a move copies a real replica: " + u);
            assertFalse(before.get(id).contains(u.get("node").asText()), "a move goes to a node without one: " + u);
          }
        } else {
          assertEquals("write", action, "a stored unit without a block is a parity: " + u);
        }
      }
    }
    assertEquals(before.keySet(), planned, "every block of the file is in exactly one stripe");
    assertTrue(inode > 0);
    // Nothing changed: same replicas, replication 3, no pointer xattr.
    assertEquals(before, replicas("/logs/a"));
    assertEquals(3, fs.getFileStatus(new Path("/logs/a")).getReplication());
    assertFalse(fs.getXAttrs(new Path("/logs/a")).containsKey(ArchivalSource.POINTER_XATTR));
  }

  @Test
  void aDirectoryPacksItsFilesInPathOrderAndSkipsEmptyOnes() throws Exception {
    // Path order is the files grouping's (grouped by racks, the plan may give the blocks data units in any order).
    ToolRun r = archive("/logs/small", "--code", CODE, "--grouping", "files", "--dry-run", "--json");
    assertEquals(0, r.exit(), r.err());
    JsonNode j = r.json();
    assertEquals("directory", j.get("scope").asText());
    assertEquals("cl", j.get("placement").asText());
    assertEquals(4, j.get("dataBlocks").asInt(), "b has one block, c three");
    assertEquals(1, j.get("stripes").size());
    String[] files = new String[4];
    int i = 0;
    for (JsonNode u : j.get("stripes").get(0).get("units")) {
      if (u.has("file")) {
        files[i++] = u.get("file").asText();
      }
    }
    assertArrayEquals(new String[] {"/logs/small/b", "/logs/small/c", "/logs/small/c", "/logs/small/c"}, files);
  }

  @Test
  void theTextPlanNamesCostsAndRedundancyAndOneStripesUnits() throws Exception {
    ToolRun r = archive("/logs/a", "--code", CODE, "--dry-run", "--stripe", "1");
    assertEquals(0, r.exit(), r.err());
    assertTrue(r.out().contains("archive /logs/a (file: 1 file, 9 blocks"), r.out());
    assertTrue(r.out().contains("encoding across racks: classic"), r.out());
    assertTrue(r.out().contains("redundancy after:"), r.out());
    assertTrue(r.out().contains("nothing was changed (--dry-run)"), r.out());
  }

  @Test
  void whatTheLayoutCannotTakeIsRefusedByName() throws Exception {
    write("/chain/a", 2 * BLOCK); // not /logs/a: a refused chain encode leaves its manifest at ENCODING
    ToolRun chain = archive("/chain/a", "--code", CODE, "--encoder", "chain");
    assertEquals(WideEcTool.EXIT_FAILED, chain.exit(), "the chain encoder needs block tokens, off in this cluster");
    assertTrue(chain.err().contains("the chain and rapidraid encoders need block tokens, or use --encoder classic"), chain.err());
    assertFalse(fs.getXAttrs(new Path("/chain/a")).containsKey(ArchivalSource.POINTER_XATTR));

    ToolRun system = archive("/", "--code", CODE, "--dry-run");
    assertEquals(WideEcTool.EXIT_FAILED, system.exit());
    assertTrue(system.err().contains("/ is or holds the system directory /.wideec"), system.err());

    ToolRun missing = archive("/nope", "--code", CODE, "--dry-run");
    assertEquals(WideEcTool.EXIT_FAILED, missing.exit());
    assertTrue(missing.err().contains("/nope"), missing.err());

    ToolRun empty = archive("/logs/empty", "--code", CODE, "--dry-run");
    assertEquals(WideEcTool.EXIT_FAILED, empty.exit());
    assertTrue(empty.err().contains("/logs/empty holds no data blocks to archive"), empty.err());

    ToolRun unpinned = archive("/logs/a", "--code", "rs:k=7,m=3", "--dry-run");
    assertEquals(WideEcTool.EXIT_FAILED, unpinned.exit());
    assertTrue(unpinned.err().contains("rs:k=7,m=3"), unpinned.err());

    ToolRun badEncoder = archive("/logs/a", "--code", CODE, "--encoder", "magic", "--dry-run");
    assertEquals(WideEcTool.EXIT_USAGE, badEncoder.exit());
    assertTrue(badEncoder.err().contains("--encoder must be classic, chain or rapidraid"), badEncoder.err());

    ToolRun tooWide = archive("/logs/a", "--code", "azure-lrc:k=64,l=4,g=4", "--dry-run");
    assertEquals(WideEcTool.EXIT_FAILED, tooWide.exit(), "72 units cannot sit on 18 DataNodes");
    assertTrue(tooWide.err().contains("stripe"), tooWide.err());

    ToolRun flat = archive("/logs/small", "--code", CODE, "--placement", "flat", "--dry-run");
    assertEquals(WideEcTool.EXIT_FAILED, flat.exit(), "flat needs a rack per stored unit: 8 of them");
    assertTrue(flat.err().contains("the live topology has 6 racks"), flat.err());

    fs.setXAttr(new Path("/logs/small/b"), ArchivalSource.POINTER_XATTR, new byte[] {1});
    try {
      ToolRun archived = archive("/logs/small", "--code", CODE, "--dry-run");
      assertEquals(WideEcTool.EXIT_FAILED, archived.exit());
      assertTrue(archived.err().contains("/logs/small/b is already archived"), archived.err());
    } finally {
      fs.removeXAttr(new Path("/logs/small/b"), ArchivalSource.POINTER_XATTR);
    }
  }

  @Test
  void withAclsOffAFileIsSealedAndItsPartsHaveNoAcl() throws Exception {
    write("/cold/v", 3 * BLOCK + 5);
    ToolRun r = archive("/cold/v", "--code", "rapidraid:n=8,k=4");
    assertEquals(0, r.exit(), r.out() + r.err());
    assertTrue(org.wideec.archive.hdfs.SealedFiles.isSealed(fs.getClient().getFileInfo("/cold/v")));
    org.wideec.archive.hdfs.ArchiveLayout layout = org.wideec.archive.hdfs.ArchiveLayout.from(conf);
    long placeholder = fs.getClient().getFileInfo("/cold/v").getFileId();
    assertEquals((short) 0600, fs.getFileStatus(layout.sealedIndex(placeholder)).getPermission().toShort());
    byte[] data = new byte[(int) (3 * BLOCK + 5)];
    new Random("/cold/v".hashCode()).nextBytes(data);
    byte[] back = new byte[data.length];
    Configuration c = new Configuration(conf);
    c.set("fs.hdfs.impl", org.wideec.client.WideEcFileSystem.class.getName());
    c.setBoolean("fs.hdfs.impl.disable.cache", true);
    try (org.apache.hadoop.fs.FileSystem ours = org.apache.hadoop.fs.FileSystem.newInstance(fs.getUri(), c);
        org.apache.hadoop.fs.FSDataInputStream in = ours.open(new Path("/cold/v"))) {
      in.readFully(back);
    }
    assertArrayEquals(data, back);
  }
}
