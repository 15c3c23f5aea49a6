package org.wideec.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import org.apache.hadoop.fs.StorageType;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo.DatanodeInfoBuilder;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.junit.jupiter.api.Test;
import org.wideec.code.LinearCode;
import org.wideec.coder.StripedCodec;
import org.wideec.coder.hadoop.WideEcPolicies;
import org.wideec.repair.UnusableHelpers;

/** Replicas on DataNodes the FileSystem could not reach lately are read around only while the group stays decodable. */
class StripedFileReachableTest {
  static final int CELL = 1 << 20;
  final ErasureCodingPolicy policy = WideEcPolicies.policy(StripedCodec.AZURE_LRC_L2.codecName(), 12, 4, CELL);
  final LinearCode code = StripedCodec.AZURE_LRC_L2.codeFor(12, 4);
  final UnusableHelpers avoided = new UnusableHelpers(300_000);
  final StripedFile file = new StripedFile(null, "/f", policy, code, null, true, new ReadPathCounters(), null, avoided);

  /** A full group of Azure-LRC 12+2+2 whose units in {@code listed} are listed, unit u on DataNode 10.0.0.u. */
  LocatedStripedBlock group(int... listed) {
    DatanodeInfo[] at = new DatanodeInfo[listed.length];
    byte[] indices = new byte[listed.length];
    String[] storages = new String[listed.length];
    StorageType[] types = new StorageType[listed.length];
    for (int i = 0; i < listed.length; i++) {
      at[i] = new DatanodeInfoBuilder().setIpAddr("10.0.0." + listed[i]).setHostName("dn" + listed[i])
          .setDatanodeUuid("uuid-" + listed[i]).setXferPort(9866).build();
      indices[i] = (byte) listed[i];
      storages[i] = "s" + listed[i];
      types[i] = StorageType.DISK;
    }
    return new LocatedStripedBlock(new ExtendedBlock("bp", -1600, 12L * 8 * CELL, 1), at, storages, types, indices, 0,
        false, null);
  }

  @Test
  void anAvoidedReplicaIsLeftOutWhileTheGroupStaysDecodable() {
    avoided.avoid("10.0.0.1:9866", "a read could not reach it");
    LocatedStripedBlock g = group(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    assertArrayEquals(new byte[] {0, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, file.reachable(g).getBlockIndices());
  }

  @Test
  void anAvoidedReplicaTheGroupCannotBeDecodedWithoutIsAskedToo() {
    // A rack's loss took units 3, 4 and 5 of the first local group; unit 1's DataNode was avoided after a restart.
    avoided.avoid("10.0.0.1:9866", "a read could not reach it");
    LocatedStripedBlock g = group(0, 1, 2, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    assertSame(g, file.reachable(g), "four units of one local group short: unit 1's replica is read after all");
  }
}
