package org.wideec.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.wideec.repair.RebuildValidation;
import org.wideec.transport.TrafficShaper;
import org.wideec.transport.TransportConf;

@org.junit.jupiter.api.extension.ExtendWith(org.wideec.transport.NettyLeakCheck.class)
class ChainWarmupTest {
  static final TransportConf LIKE = new TransportConf("0.0.0.0", 9873, "a-cluster-secret-of-24-b".getBytes(),
      256 * 1024, 4, 1 << 20, 5000, 3000, TrafficShaper.OFF, null);

  @Test
  void chainsOfBothCodesRebuildTheLostUnitOverLoopback() throws Exception {
    // 1,000 hop-slices: eight chains of four helpers, 32 slices each, alternating the XOR and the GF(2^8) code.
    ChainWarmup.Result r = ChainWarmup.run(LIKE, new RebuildValidation(true, 2), 1000);
    assertEquals(8, r.repairs(), r.toString());
    assertEquals(8L * 4 * 32, r.hopSlices(), r.toString());
    assertTrue(r.rebuiltRight(), "every rebuilt unit equals the lost one: " + r);
  }

  @Test
  void atLeastOneChainRuns() throws Exception {
    ChainWarmup.Result r = ChainWarmup.run(LIKE, RebuildValidation.OFF, 1);
    assertEquals(1, r.repairs(), r.toString());
    assertEquals(4L * 32, r.hopSlices(), r.toString());
    assertTrue(r.rebuiltRight(), r.toString());
  }
}
