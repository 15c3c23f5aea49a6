package org.wideec.repair;

import java.util.List;
import org.wideec.gf.RegionKernels;

/**
 * Executes a repair graph in memory on the units' bytes: each step multiplies its unit by its coefficient,
 * adds everything sent to it and passes the sum on; the requestor adds what reaches it. The reference the
 * networked engine must agree with, and a check that a plan computes the right linear combination.
 */
public final class RepairSimulation {
  private RepairSimulation() {}

  /** The bytes the requestor ends up with; {@code units[u]} holds unit u (only helpers are read). */
  public static byte[] run(RepairGraph g, byte[][] units) {
    List<RepairStep> steps = g.steps();
    int len = units[steps.get(0).helper().unit()].length;
    byte[][] acc = new byte[steps.size()][];
    byte[] result = new byte[len];
    // Chains only send forward (next > i) and stars send to the requestor, so index order is topological.
    for (int i = 0; i < steps.size(); i++) {
      RepairStep s = steps.get(i);
      byte[] mine = acc[i] == null ? new byte[len] : acc[i];
      RegionKernels.mulAdd(s.coefficient(), units[s.helper().unit()], 0, mine, 0, len);
      if (s.next() == RepairStep.REQUESTOR) {
        RegionKernels.xor(mine, 0, result, 0, len);
      } else {
        if (s.next() <= i) {
          throw new IllegalArgumentException("step " + i + " sends backwards to step " + s.next());
        }
        if (acc[s.next()] == null) {
          acc[s.next()] = new byte[len];
        }
        RegionKernels.xor(mine, 0, acc[s.next()], 0, len);
      }
    }
    return result;
  }

  /** Cyclic repair of a unit cut into slices of sliceBytes: slice i goes along rotation i mod rotations. */
  public static byte[] runCyclic(List<RepairGraph> rotations, byte[][] units, int sliceBytes) {
    int len = units[rotations.get(0).steps().get(0).helper().unit()].length;
    byte[] out = new byte[len];
    int slice = 0;
    for (int off = 0; off < len; off += sliceBytes, slice++) {
      int n = Math.min(sliceBytes, len - off);
      byte[][] part = new byte[units.length][];
      for (int u = 0; u < units.length; u++) {
        if (units[u] != null) {
          part[u] = java.util.Arrays.copyOfRange(units[u], off, off + n);
        }
      }
      byte[] r = run(rotations.get(slice % rotations.size()), part);
      System.arraycopy(r, 0, out, off, n);
    }
    return out;
  }
}
