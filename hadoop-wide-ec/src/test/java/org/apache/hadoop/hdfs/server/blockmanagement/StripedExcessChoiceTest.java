package org.apache.hadoop.hdfs.server.blockmanagement;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.StorageType;
import org.apache.hadoop.hdfs.DFSTestUtil;
import org.apache.hadoop.net.NetworkTopology;
import org.junit.jupiter.api.Test;

/**
 * {@link WideEcBlockPlacementPolicy#chooseReplicasToDelete} for a striped group's duplicated unit, outside any RPC,
 * as HDFS calls it (every live unit of the group available, the two copies of the unit the candidates): the copy in
 * the rack holding most of the group's units goes.
 */
class StripedExcessChoiceTest {
  @Test
  void theCopyInTheFullerRackIsDeleted() {
    Configuration conf = new Configuration();
    NetworkTopology topology = NetworkTopology.getInstance(conf);
    // The 24-node cluster's group: units 0-3 in /rack1 (unit 1 on the DataNode that came back), unit 1 rebuilt in
    // /rack2 beside unit 14, unit 4 in /rack3.
    String[] racks = {"/rack1", "/rack1", "/rack1", "/rack1", "/rack2", "/rack2", "/rack3"};
    List<DatanodeStorageInfo> storages = new ArrayList<>();
    for (int i = 0; i < racks.length; i++) {
      DatanodeStorageInfo s = DFSTestUtil.createDatanodeStorageInfo("s" + i, "10.0.0." + (i + 1), racks[i],
          "host" + i);
      topology.add(s.getDatanodeDescriptor());
      storages.add(s);
    }
    DatanodeStorageInfo returned = storages.get(1);
    DatanodeStorageInfo rebuilt = storages.get(4);
    WideEcBlockPlacementPolicy policy = new WideEcBlockPlacementPolicy();
    policy.initialize(conf, null, topology, new Host2NodesMap());
    BlockPlacementPolicyRackFaultTolerant stock = new BlockPlacementPolicyRackFaultTolerant();
    stock.initialize(conf, null, topology, new Host2NodesMap());

    // Both copies are in a rack with another unit and the nodes are alike: HDFS takes the first candidate, the rebuilt
    // copy, and keeps four units in /rack1.
    assertEquals(List.of(rebuilt), stock.chooseReplicasToDelete(storages, List.of(rebuilt, returned), 1,
        new ArrayList<>(List.of(StorageType.DISK)), null, null));
    assertEquals(List.of(returned), policy.chooseReplicasToDelete(storages, List.of(rebuilt, returned), 1,
        new ArrayList<>(List.of(StorageType.DISK)), null, null));
    assertEquals(List.of(returned), policy.chooseReplicasToDelete(storages, List.of(returned, rebuilt), 1,
        new ArrayList<>(List.of(StorageType.DISK)), null, null));
    // Racks alike: HDFS's choice.
    List<DatanodeStorageInfo> even = List.of(storages.get(0), returned, rebuilt, storages.get(5));
    assertEquals(stock.chooseReplicasToDelete(even, List.of(rebuilt, returned), 1,
        new ArrayList<>(List.of(StorageType.DISK)), null, null),
        policy.chooseReplicasToDelete(even, List.of(rebuilt, returned), 1,
            new ArrayList<>(List.of(StorageType.DISK)), null, null));
    assertEquals(0, policy.stockFallbacks());
  }
}
