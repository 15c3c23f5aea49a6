package org.apache.hadoop.hdfs.server.blockmanagement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.StorageType;
import org.apache.hadoop.hdfs.DFSTestUtil;
import org.apache.hadoop.hdfs.protocol.Block;
import org.apache.hadoop.net.NetworkTopology;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link WideEcReplicaPlacementPolicy#chooseReplicasToDelete} with odd inputs, outside any RPC: it never throws,
 * returns only candidates, keeps the trimmer's survivor, leaves at least the expected replicas, and is stock when
 * it has no plan.
 */
class TrimPlacementPolicyTest {
  private WideEcReplicaPlacementPolicy policy;
  private BlockPlacementPolicyDefault stock;
  private final List<DatanodeStorageInfo> storages = new ArrayList<>();
  private BlockInfo block;

  @BeforeEach
  void setUp() {
    Configuration conf = new Configuration();
    NetworkTopology topology = NetworkTopology.getInstance(conf);
    for (int i = 0; i < 4; i++) {
      DatanodeStorageInfo s = DFSTestUtil.createDatanodeStorageInfo("s" + i, "10.0.0." + (i + 1), "/rack" + (i % 2),
          "host" + i);
      topology.add(s.getDatanodeDescriptor());
      storages.add(s);
    }
    policy = new WideEcReplicaPlacementPolicy();
    policy.initialize(conf, null, topology, new Host2NodesMap());
    stock = new BlockPlacementPolicyDefault();
    stock.initialize(conf, null, topology, new Host2NodesMap());
    block = new BlockInfoContiguous(new Block(1), (short) 1);
    for (int i = 0; i < 3; i++) { // replicas on s0, s1, s2; s3 holds none
      storages.get(i).addBlock(block);
    }
  }

  /** The storage types HDFS would call excess: one DISK per replica too many (the default policy consumes them). */
  private static List<StorageType> types(int excess) {
    List<StorageType> t = new ArrayList<>();
    for (int i = 0; i < excess; i++) {
      t.add(StorageType.DISK);
    }
    return t;
  }

  private List<DatanodeStorageInfo> trim(BlockInfo b, DatanodeStorageInfo survivor, List<DatanodeStorageInfo> available,
      List<DatanodeStorageInfo> candidates, int expected) {
    AtomicReference<List<DatanodeStorageInfo>> out = new AtomicReference<>();
    WideEcReplicaPlacementPolicy.trimming(b, survivor, () -> out.set(
        policy.chooseReplicasToDelete(available, candidates, expected, types(3), null, null)));
    return out.get();
  }

  @Test
  void theTrimmerKeepsExactlyItsSurvivor() {
    List<DatanodeStorageInfo> held = new ArrayList<>(storages.subList(0, 3));
    List<DatanodeStorageInfo> chosen = trim(block, storages.get(1), held, held, 1);
    assertEquals(List.of(storages.get(0), storages.get(2)), chosen);
    assertNotSame(held, chosen, "a new list: HDFS mutates the candidates while it walks the answer");
    assertEquals(3, held.size());
  }

  @Test
  void oddInputsNeverThrowAndNeverLeaveFewerThanExpected() {
    List<DatanodeStorageInfo> held = new ArrayList<>(storages.subList(0, 3));
    assertEquals(List.of(), trim(block, storages.get(0), List.of(), List.of(), 1), "no candidates");
    assertEquals(List.of(), trim(block, storages.get(3), held, held, 1), "survivor holds no replica");
    assertEquals(List.of(), trim(block, storages.get(0), held, held.subList(1, 3), 1),
        "survivor is not a candidate (stale, excess, corrupt): it cannot be the only replica now");
    assertEquals(List.of(), trim(block, storages.get(0), List.of(storages.get(0)), List.of(storages.get(0)), 1),
        "expected >= candidates");
    List<DatanodeStorageInfo> withStranger = new ArrayList<>(held);
    withStranger.add(storages.get(3));
    assertEquals(List.of(), trim(block, storages.get(0), withStranger, withStranger, 1),
        "a candidate that is not a replica of the block being trimmed: not that block, nothing deleted");
    assertEquals(List.of(), trim(block, storages.get(0), null, null, 1));
    // More than one replica wanted: the plan names one survivor only, so the stock choice (here: none is excess).
    assertEquals(stock.chooseReplicasToDelete(held, held, 3, types(0), null, null), trim(block, storages.get(0), held, held, 3));
    assertEquals(stock.chooseReplicasToDelete(held, held, 5, types(0), null, null), trim(block, storages.get(0), held, held, 5));
    // A broken plan (no block) is our failure: a warning and the stock answer, never an exception.
    List<DatanodeStorageInfo> fallback = trim(null, storages.get(0), held, held, 1);
    assertEquals(2, fallback.size());
    assertTrue(held.containsAll(fallback));
  }

  @Test
  void withoutAPlanOrAnRpcItIsStock() {
    List<DatanodeStorageInfo> held = new ArrayList<>(storages.subList(0, 3));
    assertEquals(stock.chooseReplicasToDelete(held, held, 1, types(2), null, null),
        policy.chooseReplicasToDelete(held, held, 1, types(2), null, null));
    assertEquals(stock.chooseReplicasToDelete(held, held, 2, types(1), null, storages.get(2).getDatanodeDescriptor()),
        policy.chooseReplicasToDelete(held, held, 2, types(1), null, storages.get(2).getDatanodeDescriptor()),
        "the delete hint is honoured as stock does (Balancer, Mover)");
  }

  /**
   * A replica moved with a delete hint onto a one-replica block that still has several (a lowered file whose planned
   * node held none): every other replica goes, the moved one stays. Stock when the block keeps more than one
   * replica (the hint alone is then what the stock choice honours), when no hint or no added node is given, or when
   * the hint's storage type is not one HDFS wants fewer of.
   */
  @Test
  void aReplicaMovedWithADeleteHintIsKeptWhenOneIsExpected() {
    storages.get(3).addBlock(block); // the moved replica on s3, hint s0
    List<DatanodeStorageInfo> held = new ArrayList<>(storages);
    DatanodeDescriptor added = storages.get(3).getDatanodeDescriptor();
    DatanodeDescriptor hint = storages.get(0).getDatanodeDescriptor();
    List<DatanodeStorageInfo> chosen = policy.chooseReplicasToDelete(held, held, 1, types(3), added, hint);
    assertEquals(List.of(storages.get(0), storages.get(1), storages.get(2)), chosen);
    assertNotSame(held, chosen);
    // Replication 3: exactly the hinted replica, as stock.
    List<DatanodeStorageInfo> three = policy.chooseReplicasToDelete(held, held, 3, types(1), added, hint);
    assertEquals(List.of(storages.get(0)), three);
    assertEquals(stock.chooseReplicasToDelete(held, held, 3, types(1), added, hint), three);
    // No hint, or a hint whose storage type HDFS does not want fewer of: stock, which never throws either.
    assertEquals(null, WideEcReplicaPlacementPolicy.keepMoved(held, held, 1, types(3), added, null));
    List<StorageType> archive = List.of(StorageType.ARCHIVE, StorageType.ARCHIVE, StorageType.ARCHIVE);
    assertEquals(null, WideEcReplicaPlacementPolicy.keepMoved(held, held, 1, archive, added, hint));
    assertEquals(null, WideEcReplicaPlacementPolicy.keepMoved(held, held.subList(0, 3), 1, types(3), added, hint),
        "the moved replica is not a candidate");
  }
}
