package org.wideec.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a step freed, and which of those blocks a DataNode's storage still holds, without a cluster. */
class FreedReplicasTest {
  @Test
  void aStepFreesTheBlocksListedBeforeItAndNotAfter() {
    assertEquals(Set.of(1L, 3L), FreedReplicas.freed(Set.of(1L, 2L, 3L), Set.of(2L, 4L)));
    assertEquals(Set.of(), FreedReplicas.freed(Set.of(2L), Set.of(2L, 4L)));
  }

  @Test
  void aFreedBlockIsHeldWhileAnyDataNodeStillHasItsReplicaFile(@TempDir Path data) throws Exception {
    Path dn1 = Files.createDirectories(data.resolve("dn1/dfs/data/current/BP-1/current/finalized/subdir0/subdir0"));
    Path dn2 = Files.createDirectories(data.resolve("dn2-tmpfs/current/BP-1/current/finalized/subdir0/subdir1"));
    Files.createFile(dn1.resolve("blk_1073741825"));
    Files.createFile(dn1.resolve("blk_1073741825_1001.meta"));
    Files.createFile(dn2.resolve("blk_1073741826_1002.meta")); // its data file deleted first, as the DataNode does
    Files.createFile(dn2.resolve("blk_10737418270"));
    Set<Long> freed = Set.of(1073741825L, 1073741826L, 1073741827L);
    assertEquals(Set.of(1073741825L), FreedReplicas.held(data, freed), "a prefix of another id is not the block");
    Files.delete(dn1.resolve("blk_1073741825"));
    assertEquals(Set.of(), FreedReplicas.held(data, freed));
    assertEquals(Set.of(), FreedReplicas.held(data.resolve("none"), Set.of()), "nothing freed, nothing walked");
  }
}
