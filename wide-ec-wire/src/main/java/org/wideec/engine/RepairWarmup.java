package org.wideec.engine;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.wideec.code.LinearCode;
import org.wideec.coder.CodingKernel;
import org.wideec.coder.CodingMatrix;
import org.wideec.coder.Kernels;
import org.wideec.coder.StripedCodec;
import org.wideec.gf.Gf256;
import org.wideec.gf.Matrix;
import org.wideec.protocol.StepRequest;
import org.wideec.repair.BlockRef;
import org.wideec.repair.RepairScheme;
import org.wideec.repair.StripeRepair;
import org.wideec.repair.UnitLocation;
import org.wideec.topology.Endpoint;
import org.wideec.topology.Site;

/**
 * A DataNode's repair path run once on made-up stripes before any repair needs it. On the multi-process cluster a
 * DataNode's first repairs after it started spent 1.6-3.0 s before asking a helper (the codes' construction, the
 * planners, the request codecs and the coding kernel loaded and run for the first time, three repairs at once on a
 * restarted node), where a warm DataNode plans in a few milliseconds; every unit of a node's loss then waited for that.
 * This runs the same steps (the pinned codes built, a local, a global and a two-unit repair planned for the configured
 * scheme with the second decode's sampled requests, every request encoded and parsed back, a product by the coding
 * kernel) against made-up endpoints: nothing is dialled, sent or stored.
 *
 * <p>The kernel's product is also checked against the table-driven Java kernel: a native kernel that disagrees would
 * rebuild wrong bytes, and says so here before any repair.
 */
public final class RepairWarmup {
  private static final int SLICE_BYTES = 64 * 1024;
  private static final long UNIT_BYTES = 4L * SLICE_BYTES;
  /** Units a made-up rack holds: the racks of combined locality for Azure-LRC 12+2+2 hold at most 3. */
  private static final int UNITS_PER_RACK = 3;

  /**
   * @param plans repairs planned
   * @param requests requests encoded and parsed back unchanged
   * @param kernel the coding kernel that ran ({@link CodingKernel#name})
   * @param kernelAgrees whether its product equals the table-driven Java kernel's
   */
  public record Result(int plans, int requests, String kernel, boolean kernelAgrees, long millis) {}

  private RepairWarmup() {}

  /** Runs the repair path once for {@code scheme}; throws only what a real repair's planning would throw. */
  public static Result run(RepairScheme scheme) throws IOException {
    long start = System.nanoTime();
    int plans = 0;
    int requests = 0;
    LinearCode lrc = StripedCodec.AZURE_LRC_L2.codeFor(12, 4);
    // A local group's data unit, a global parity (every data unit), and two units of one local group at once.
    for (int[] lost : new int[][] {{0}, {lrc.n() - 1}, {0, 1}}) {
      requests += plan(lrc, lost, scheme);
      plans++;
    }
    requests += plan(StripedCodec.WIDE_RS.codeFor(6, 3), new int[] {0}, scheme);
    plans++;
    CodingKernel kernel = Kernels.best();
    boolean agrees = kernelAgrees(kernel);
    return new Result(plans, requests, kernel.name(), agrees, (System.nanoTime() - start) / 1_000_000);
  }

  /** Plans one repair as {@link RepairEngine} does, with its second decode's sample; returns the requests checked. */
  private static int plan(LinearCode code, int[] lost, RepairScheme scheme) throws IOException {
    Map<Integer, UnitLocation> survivors = new HashMap<>();
    Map<Integer, BlockRef> blocks = new HashMap<>();
    for (int u = 0; u < code.n(); u++) {
      blocks.put(u, new BlockRef("warmup", u, 1, UNIT_BYTES, new byte[0]));
      survivors.put(u, new UnitLocation(u, new Site("warmup-" + u, "/warmup-rack" + u / UNITS_PER_RACK)));
    }
    for (int u : lost) {
      survivors.remove(u);
    }
    long[] lengths = new long[lost.length];
    Arrays.fill(lengths, UNIT_BYTES);
    StripeRepair r = StripeRepair.of("warm-up of the repair path", code, lost, lengths, survivors, blocks, Set.of(),
        scheme);
    String rack = "/warmup-rack" + lost[0] / UNITS_PER_RACK;
    StreamPlan plan = StreamPlan.of(r, Set.of(), "warmup-requestor", rack,
        loc -> new Endpoint(loc.node(), 1, loc.site()), SLICE_BYTES);
    List<StreamPlan.Stream> streams = new ArrayList<>(plan.streams);
    if (scheme != RepairScheme.CYCLIC) {
      streams.addAll(plan.carrying(1, 2).streams);
    }
    for (StreamPlan.Stream s : streams) {
      byte[] bytes = s.request().toBytes();
      if (!Arrays.equals(StepRequest.parse(bytes).toBytes(), bytes)) {
        throw new IOException("a step request of the warm-up did not parse back to itself: " + s.request());
      }
    }
    return streams.size();
  }

  /** A 2 x 3 product of direct buffers by {@code kernel} against the table-driven Java kernel's. */
  static boolean kernelAgrees(CodingKernel kernel) {
    int len = 4096;
    Random random = new Random(20261201L);
    ByteBuffer[] in = new ByteBuffer[3];
    for (int i = 0; i < in.length; i++) {
      byte[] b = new byte[len];
      random.nextBytes(b);
      in[i] = ByteBuffer.allocateDirect(len).put(b).flip();
    }
    CodingMatrix m = new CodingMatrix(Matrix.of(Gf256.INSTANCE, new int[][] {{1, 2, 3}, {0x8e, 0x47, 1}}));
    ByteBuffer[] out = {ByteBuffer.allocateDirect(len), ByteBuffer.allocateDirect(len)};
    ByteBuffer[] reference = {ByteBuffer.allocateDirect(len), ByteBuffer.allocateDirect(len)};
    kernel.multiply(m, in, out, len);
    Kernels.java().multiply(m, in, reference, len);
    return out[0].equals(reference[0]) && out[1].equals(reference[1]);
  }
}
