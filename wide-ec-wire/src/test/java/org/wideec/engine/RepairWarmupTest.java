package org.wideec.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.wideec.coder.CodingKernel;
import org.wideec.coder.CodingMatrix;
import org.wideec.coder.Kernels;
import org.wideec.repair.RepairScheme;

class RepairWarmupTest {
  /** Every scheme a DataNode can be configured with plans the warm-up's four repairs, and the kernel agrees. */
  @ParameterizedTest
  @EnumSource(RepairScheme.class)
  void everySchemePlansTheFourRepairsAndTheKernelAgreesWithJava(RepairScheme scheme) throws Exception {
    RepairWarmup.Result r = RepairWarmup.run(scheme);
    assertEquals(4, r.plans());
    assertTrue(r.requests() >= 8, r.requests() + " requests round-tripped");
    assertEquals(Kernels.best().name(), r.kernel());
    assertTrue(r.kernelAgrees(), r.kernel() + " against the Java kernel");
  }

  @Test
  void aKernelThatRebuildsOtherBytesIsCaught() {
    CodingKernel offByOne = new CodingKernel() {
      @Override
      public String name() {
        return "off by one";
      }

      @Override
      public void multiply(CodingMatrix m, ByteBuffer[] inputs, ByteBuffer[] outputs, int len) {
        Kernels.java().multiply(m, inputs, outputs, len);
        outputs[1].put(len - 1, (byte) (outputs[1].get(len - 1) ^ 1));
      }
    };
    assertFalse(RepairWarmup.kernelAgrees(offByOne));
    assertTrue(RepairWarmup.kernelAgrees(Kernels.java()));
  }
}
