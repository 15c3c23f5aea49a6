package org.wideec.engine;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.wideec.code.Codes;
import org.wideec.code.LinearCode;
import org.wideec.coder.ErasureCoder;
import org.wideec.repair.BlockRef;
import org.wideec.repair.MemoryUnitStore;
import org.wideec.repair.RebuildValidation;
import org.wideec.repair.RepairScheme;
import org.wideec.repair.SliceSink;
import org.wideec.repair.StripeRepair;
import org.wideec.repair.UnitLocation;
import org.wideec.topology.Endpoint;
import org.wideec.topology.Site;
import org.wideec.transport.SliceTransport;
import org.wideec.transport.TrafficCounters;
import org.wideec.transport.TrafficShaper;
import org.wideec.transport.TransportConf;

/**
 * Chains run through this process's own slice path on loopback before any user needs it (ECPipe §3.2's helper steps,
 * ECWide §4.1's in-rack sums): helpers hold the units of a made-up codeword in memory, and a requestor rebuilds a lost
 * unit from them again and again, with the frame codec and its tags, credits, dial-ahead, the steps' reads and sums
 * and the second decode all doing what they do for a DataNode's repairs and its clients' degraded reads. A JVM runs
 * that code interpreted until it has run it thousands of times, and a chain pays it at every hop: on the real-process
 * cluster a DataNode's first chains of a 1 MiB range took 0.3 to 2.5 s where warm ones took 0.15 s, 93-100% of the
 * host's CPU going to the hops' interpreters and compilers. Both codes' chains run: a local group's sums (XOR) and a
 * Reed-Solomon repair's products (GF(2^8) multiplies).
 *
 * <p>Nothing leaves the loopback: the transports bind 127.0.0.1 on free ports under a secret made for the run, and
 * close when it ends. Every rebuilt unit is compared with the one made: a chain that rebuilds wrong bytes says so here.
 */
public final class ChainWarmup {
  /** The slice of a degraded read of a 1 MiB cell (the client's 32 slices a range). */
  static final int SLICE_BYTES = 32 * 1024;
  static final int UNIT_BYTES = 1 << 20;
  /** Two codes whose chains have four helpers each, over two racks of two, the requestor in a third. */
  private static final List<String> CODES = List.of("azure-lrc:k=8,l=2,g=2", "rs:k=4,m=2");
  private static final int HELPERS = 4;

  /**
   * @param repairs chains run
   * @param hopSlices slices the helpers' steps handled in all
   * @param rebuiltRight whether every rebuilt unit equalled the lost one
   */
  public record Result(int repairs, long hopSlices, boolean rebuiltRight, long millis) {}

  private ChainWarmup() {}

  /**
   * Runs chains until the helpers' steps handled {@code hopSlices} slices, with {@code like}'s limits, frame tags and
   * windows (no shaping, no TLS) and {@code validation}'s second decode.
   */
  public static Result run(TransportConf like, RebuildValidation validation, long hopSlices) throws IOException {
    long start = System.nanoTime();
    byte[] secret = new byte[24];
    new SecureRandom().nextBytes(secret);
    TransportConf conf = new TransportConf("127.0.0.1", 0, secret, SLICE_BYTES, like.window(),
        Math.max(like.maxFrameBytes(), SLICE_BYTES), like.stallTimeoutMs(), like.connectTimeoutMs(), TrafficShaper.OFF,
        null, like.limits(), like.frameMac(), like.backgroundWindow());
    ExecutorService workers = Executors.newCachedThreadPool(r -> {
      Thread t = new Thread(r, "wide-ec-warmup-step");
      t.setDaemon(true);
      return t;
    });
    List<SliceTransport> transports = new ArrayList<>();
    try {
      List<Stripe> stripes = new ArrayList<>();
      for (String spec : CODES) {
        stripes.add(new Stripe(Codes.fromSpec(spec)));
      }
      Map<String, Integer> ports = new HashMap<>();
      for (int h = 0; h < HELPERS; h++) {
        Map<Long, byte[]> held = new HashMap<>();
        for (int c = 0; c < stripes.size(); c++) {
          held.put(blockId(c, stripes.get(c).helpers[h]), stripes.get(c).units[stripes.get(c).helpers[h]]);
        }
        SliceTransport t = new SliceTransport(conf, "warmup-" + h, TrafficCounters.NONE, workers);
        transports.add(t);
        ports.put("warmup-" + h, t.start(new StepService(t, new MemoryUnitStore("warmup-" + h, held),
            RepairCounters.NONE)));
      }
      SliceTransport requestor = new SliceTransport(conf, "warmup-requestor", TrafficCounters.NONE, workers);
      transports.add(requestor);
      RepairEngine engine = new RepairEngine(requestor,
          loc -> new Endpoint("127.0.0.1", ports.get(loc.node()), loc.site()), RepairCounters.NONE, 1, validation);
      UnitLocation self = new UnitLocation(-1, new Site("warmup-requestor", "/warmup-rack2"));
      long perRepair = (long) HELPERS * (UNIT_BYTES / SLICE_BYTES);
      int repairs = (int) Math.max(1, (hopSlices + perRepair - 1) / perRepair);
      boolean right = true;
      for (int i = 0; i < repairs; i++) {
        Stripe s = stripes.get(i % stripes.size());
        byte[] rebuilt = new byte[UNIT_BYTES];
        engine.repair(s.repair(i % stripes.size()), self, (u, len) -> SliceSink.into(rebuilt), SLICE_BYTES, 0,
            UNIT_BYTES);
        right &= Arrays.equals(rebuilt, s.units[Stripe.LOST]);
      }
      return new Result(repairs, repairs * perRepair, right, (System.nanoTime() - start) / 1_000_000);
    } finally {
      transports.forEach(SliceTransport::close);
      workers.shutdownNow();
    }
  }

  private static long blockId(int code, int unit) {
    return code * 1000L + unit;
  }

  /** A made-up codeword of one code: unit 0 lost, its repair plan's helpers on warmup-0..3 (racks of two). */
  private static final class Stripe {
    static final int LOST = 0;
    final LinearCode code;
    final byte[][] units;
    final int[] helpers;

    Stripe(LinearCode code) {
      this.code = code;
      this.helpers = code.repairPlan(LOST).helpers();
      if (helpers.length != HELPERS) {
        throw new IllegalStateException(code.spec() + " repairs unit " + LOST + " from " + helpers.length
            + " helpers, not " + HELPERS);
      }
      Random random = new Random(code.spec().hashCode());
      ByteBuffer[] data = new ByteBuffer[code.k()];
      for (int i = 0; i < data.length; i++) {
        byte[] b = new byte[UNIT_BYTES];
        random.nextBytes(b);
        data[i] = ByteBuffer.wrap(b);
      }
      ErasureCoder coder = ErasureCoder.java(code);
      int[] encoded = coder.encodedUnits();
      ByteBuffer[] parities = new ByteBuffer[encoded.length];
      for (int i = 0; i < parities.length; i++) {
        parities[i] = ByteBuffer.allocate(UNIT_BYTES);
      }
      coder.encode(data, parities);
      units = new byte[code.n()][];
      for (int i = 0; i < encoded.length; i++) {
        units[encoded[i]] = parities[i].array();
      }
      for (int u = 0; u < code.k(); u++) {
        if (units[u] == null) {
          units[u] = data[u].array();
        }
      }
    }

    StripeRepair repair(int codeIndex) {
      Map<Integer, UnitLocation> survivors = new HashMap<>();
      Map<Integer, BlockRef> blocks = new HashMap<>();
      for (int h = 0; h < helpers.length; h++) {
        survivors.put(helpers[h], new UnitLocation(helpers[h], new Site("warmup-" + h, "/warmup-rack" + h / 2)));
      }
      for (int u = 0; u < code.n(); u++) {
        blocks.put(u, new BlockRef("warmup", blockId(codeIndex, u), 1, UNIT_BYTES, new byte[0]));
      }
      return StripeRepair.of("warm-up chain of " + code.spec(), code, new int[] {LOST}, new long[] {UNIT_BYTES},
          survivors, blocks, Set.of(), RepairScheme.RACK_AGGREGATED);
    }
  }
}
