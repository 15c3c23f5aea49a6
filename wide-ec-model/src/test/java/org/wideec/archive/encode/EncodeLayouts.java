package org.wideec.archive.encode;

import java.util.Random;
import org.wideec.code.Codes;
import org.wideec.code.LinearCode;
import org.wideec.placement.CombinedLocalityPlanner;
import org.wideec.placement.PlacementPlan;
import org.wideec.topology.Site;

/**
 * Stripes laid out as the archival planner would leave them: combined locality (ECWide §3.4), unit u on node "n{u}"
 * in rack "r{rack}", data units read where they are, parities written on their own nodes.
 */
public final class EncodeLayouts {
  private EncodeLayouts() {}

  public static PlacementPlan placement(LinearCode code) {
    return new CombinedLocalityPlanner().plan(code);
  }

  public static Site site(PlacementPlan p, int unit) {
    return new Site("n" + unit, "r" + p.rackOf(unit));
  }

  /** The stripe of a pinned code with these data lengths, laid out by combined locality. */
  public static EncodeStripe stripe(String name, String spec, long[] lengths) {
    return EncodeStripe.placed(name, placement(Codes.pinnedFromSpec(spec)), lengths, u -> "n" + u);
  }

  /** k lengths of {@code length} bytes, except unit 1 (short, when k > 2) and the last (empty padding, when k > 3). */
  public static long[] lengths(int k, long length, long shortLength) {
    long[] l = new long[k];
    java.util.Arrays.fill(l, length);
    if (k > 2) {
      l[1] = shortLength;
    }
    if (k > 3) {
      l[k - 1] = 0;
    }
    return l;
  }

  /** Random data units of the stripe's lengths. */
  public static byte[][] data(EncodeStripe s, long seed) {
    Random r = new Random(seed);
    byte[][] d = new byte[s.code().k()][];
    for (int u = 0; u < d.length; u++) {
      d[u] = new byte[(int) s.dataLength(u)];
      r.nextBytes(d[u]);
    }
    return d;
  }

  /** The parities the Java coder computes from the data, zero padded to the longest unit (unit p at index p - k). */
  public static byte[][] expectedParities(EncodeStripe s, byte[][] data) {
    LinearCode code = s.code();
    int len = (int) s.parityLength();
    java.nio.ByteBuffer[] in = new java.nio.ByteBuffer[code.k()];
    for (int u = 0; u < in.length; u++) {
      in[u] = java.nio.ByteBuffer.wrap(java.util.Arrays.copyOf(data[u], len));
    }
    byte[][] out = new byte[code.n() - code.k()][len];
    java.nio.ByteBuffer[] outs = new java.nio.ByteBuffer[out.length];
    for (int i = 0; i < out.length; i++) {
      outs[i] = java.nio.ByteBuffer.wrap(out[i]);
    }
    org.wideec.coder.ErasureCoder.java(code).encode(in, outs);
    return out;
  }
}
