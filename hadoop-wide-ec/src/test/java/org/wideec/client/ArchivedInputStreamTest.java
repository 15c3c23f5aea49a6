package org.wideec.client;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedBlocks;
import org.junit.jupiter.api.Test;

/** Which replicated files WideEcFileSystem reads through ArchivedInputStream: only those that may need it. */
class ArchivedInputStreamTest {
  private static final long BLOCK = 1024;

  private static DatanodeInfo node(int i) {
    return new DatanodeInfo.DatanodeInfoBuilder().setIpAddr("10.0.0." + i).setHostName("dn" + i).setXferPort(9866)
        .setDatanodeUuid("uuid-" + i).build();
  }

  /** A complete file of {@code fileBlocks} blocks whose first blocks are listed with these replica counts. */
  private static LocatedBlocks listing(int fileBlocks, int... replicas) {
    List<LocatedBlock> blocks = new ArrayList<>();
    for (int i = 0; i < replicas.length; i++) {
      DatanodeInfo[] at = new DatanodeInfo[replicas[i]];
      for (int r = 0; r < at.length; r++) {
        at[r] = node(r);
      }
      LocatedBlock b = new LocatedBlock(new ExtendedBlock("bp", 100 + i, BLOCK, 1), at);
      b.setStartOffset(i * BLOCK);
      blocks.add(b);
    }
    return new LocatedBlocks(fileBlocks * BLOCK, false, blocks, blocks.get(blocks.size() - 1), true, null, null);
  }

  @Test
  void aFileWithABlockWithoutReplicaIsOurs() {
    assertTrue(ArchivedInputStream.wanted(listing(3, 1, 0, 1)));
    assertTrue(ArchivedInputStream.wanted(listing(3, 3, 3, 0)));
  }

  @Test
  void aHealthyFileKeepsHdfssStream() {
    assertFalse(ArchivedInputStream.wanted(listing(3, 3, 3, 3)));
    assertFalse(ArchivedInputStream.wanted(listing(30, 3, 3, 3)), "partly listed at full replication");
    assertFalse(ArchivedInputStream.wanted(listing(3, 3, 1, 3)), "one block at one replica among replicated ones");
  }

  @Test
  void aFileWhoseBlocksHaveOneHolderEachIsOursSinceThatHolderMayFail() {
    assertTrue(ArchivedInputStream.wanted(listing(3, 1, 1, 1)), "all listed, none lost yet");
  }

  @Test
  void aPartlyListedFileAtOneReplicaIsOursSinceALaterBlockMayBeLost() {
    assertTrue(ArchivedInputStream.wanted(listing(30, 1, 1, 1)));
  }
}
