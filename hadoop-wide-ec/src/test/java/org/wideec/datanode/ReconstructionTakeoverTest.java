package org.wideec.datanode;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.junit.jupiter.api.Test;

/** When the takeover cannot be installed the DataNode is left as it was and our worker never runs. */
class ReconstructionTakeoverTest {
  @Test
  void aDataNodeWithoutTheExpectedInternalsKeepsTheStockPath() {
    DataNode dn = mock(DataNode.class);
    when(dn.getErasureCodingWorker()).thenReturn(null);
    boolean installed = ReconstructionTakeover.install(dn, t -> true, (task, stock) -> {
      throw new AssertionError("our worker must not run when the takeover is not installed");
    });
    assertFalse(installed);
  }
}
