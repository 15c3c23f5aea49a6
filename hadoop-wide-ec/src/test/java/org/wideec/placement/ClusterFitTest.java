package org.wideec.placement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.util.ECPolicyLoader;
import org.junit.jupiter.api.Test;

/** Which topologies hold each shipped policy's plan: exactly the ones with enough racks of enough DataNodes. */
class ClusterFitTest {
  private static Map<String, Integer> racks(int... nodes) {
    Map<String, Integer> m = new LinkedHashMap<>();
    for (int i = 0; i < nodes.length; i++) {
      m.put("/r" + i, nodes[i]);
    }
    return m;
  }

  @Test
  void everyShippedPolicyFitsExactlyTheTopologiesWithRoomForItsPlan() throws Exception {
    File xml = new File(System.getProperty("wideec.conf.dir", "../conf"), "wide-ec-policies.xml");
    List<ErasureCodingPolicy> shipped = new ECPolicyLoader().loadPolicy(xml.getAbsolutePath());
    assertEquals(6, shipped.size());
    for (ErasureCodingPolicy p : shipped) {
      PlacementPlan plan = StripedPlacement.planFor(p.getCodecName(), p.getNumDataUnits(), p.getNumParityUnits(),
          StripedPlacement.AUTO);
      int[] demand = plan.unitsPerRack();
      int widest = plan.maxUnitsPerRack();
      String name = p.getName() + " " + java.util.Arrays.toString(demand);

      int[] exact = demand.clone(); // one rack per plan rack, no node to spare
      ClusterFit tight = ClusterFit.of(plan, racks(exact));
      assertTrue(tight.holds(), name);
      assertEquals(demand.length, tight.racksWithoutSpare(), name);

      int[] roomy = new int[demand.length + 2];
      java.util.Arrays.fill(roomy, widest + 1);
      ClusterFit spare = ClusterFit.of(plan, racks(roomy));
      assertTrue(spare.holds(), name);
      assertEquals(0, spare.racksWithoutSpare(), name);

      ClusterFit fewRacks = ClusterFit.of(plan, racks(java.util.Arrays.copyOf(roomy, demand.length - 1)));
      assertFalse(fewRacks.holds(), name);
      assertTrue(fewRacks.problem().contains("only " + (demand.length - 1) + " racks have live DataNodes"), fewRacks.problem());

      int[] small = roomy.clone();
      java.util.Arrays.fill(small, widest - 1); // every rack one DataNode short of the plan's widest rack
      ClusterFit narrow = ClusterFit.of(plan, racks(small));
      assertFalse(narrow.holds(), name);
      assertTrue(narrow.problem().contains("needs " + widest + " DataNodes in one rack"), narrow.problem());
    }
  }
}
