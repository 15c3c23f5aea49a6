package org.wideec.repair;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.wideec.topology.Endpoint;
import org.wideec.topology.Site;
import org.wideec.transport.ProtocolFuzzAccess;
import org.wideec.protocol.StepRequest;
import org.wideec.protocol.RequestLimits;

/**
 * The step-request parser and its bounds under a seeded fuzzer (random bytes, mutations of valid request trees of one
 * row (repairs) and of many (encodes, ECWide §4.2), including chains as deep and fans as wide as a stripe, and one
 * step beyond, and rewritten kinds and row counts): a malformed request is an IOException
 * and nothing else, parsing finishes at once and allocates little whatever a length field claims, and whatever parses
 * is then held to RequestLimits; what passes them is a request a helper can carry out (its slice count and byte range
 * are what they say, no arithmetic wraps).
 */
class RequestFuzzTest {
  static final long SEED = Long.getLong("wideec.fuzz.seed", 20261123L);
  static final int CASES = Integer.getInteger("wideec.fuzz.cases", 20_000);
  static final RequestLimits LIMITS = RequestLimits.forFrames(4 << 20);
  // Bytes a parse may allocate beyond a small multiple of its input: DataInputStream's buffers for one 64 KiB string
  // (about 400 KiB) and some slack. A length field alone must never buy more.
  static final long ALLOCATION_SLACK = 1 << 20;
  private static final com.sun.management.ThreadMXBean THREADS =
      (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

  @BeforeAll
  static void allocationIsMeasured() {
    // Without it every allocation bound below would hold vacuously.
    assertTrue(THREADS.isThreadAllocatedMemorySupported() && THREADS.isThreadAllocatedMemoryEnabled(),
        "this JVM measures what a thread allocates");
  }

  static StepRequest leaf(Random r) {
    return leaf(r, 1);
  }

  /** A request of {@code rows} rows (an encode's step when more than one; only a one-row request may be a digest). */
  static StepRequest leaf(Random r, int rows) {
    byte[] token = new byte[r.nextInt(3) == 0 ? 0 : r.nextInt(200)];
    r.nextBytes(token);
    long length = r.nextInt(1 << 20);
    int[] coefficients = new int[rows];
    for (int i = 0; i < rows; i++) {
      coefficients[i] = r.nextInt(256);
    }
    return new StepRequest(new BlockRef("BP-" + r.nextInt(), r.nextLong(), r.nextLong() & Long.MAX_VALUE, length, token),
        coefficients, 512L * r.nextInt(100), length, 512 * (1 + r.nextInt(512)), r.nextInt(4), 1 + r.nextInt(4),
        List.of(), rows == 1 && r.nextInt(8) == 0);
  }

  /** Rows of a random tree: one (a repair) half the time, else an encode's, up to the most a request may carry. */
  static int rows(Random r) {
    return r.nextBoolean() ? 1 : r.nextInt(8) == 0 ? StepRequest.MAX_ROWS : 2 + r.nextInt(15);
  }

  static StepRequest with(StepRequest s, List<StepRequest.Upstream> ups) {
    return new StepRequest(s.unit(), s.coefficients(), s.offset(), s.length(), s.sliceBytes(), s.firstSlice(),
        s.stride(), ups, s.digest());
  }

  static StepRequest.Upstream upstream(Random r, StepRequest request) {
    String host = "10.0." + r.nextInt(256) + "." + r.nextInt(256);
    return new StepRequest.Upstream(
        new Endpoint(host, 1 + r.nextInt(65535), new Site(host + ":9866", "/r" + r.nextInt(9))), request);
  }

  /** A random tree a few levels deep, every step carrying the same rows. */
  static StepRequest tree(Random r, int depth) {
    return tree(r, depth, rows(r));
  }

  private static StepRequest tree(Random r, int depth, int rows) {
    List<StepRequest.Upstream> ups = new ArrayList<>();
    for (int i = 0, fanOut = depth > 3 ? 0 : r.nextInt(4); i < fanOut; i++) {
      ups.add(upstream(r, tree(r, depth + 1, rows)));
    }
    return with(leaf(r, rows), ups);
  }

  /** A chain of {@code depth} upstreams below the root (ECPipe's chain through every helper of a stripe). */
  static StepRequest chain(Random r, int depth, int rows) {
    StepRequest s = leaf(r, rows);
    for (int i = 0; i < depth; i++) {
      s = with(leaf(r, rows), List.of(upstream(r, s)));
    }
    return s;
  }

  /** A root with {@code width} direct upstreams. */
  static StepRequest fan(Random r, int width) {
    List<StepRequest.Upstream> ups = new ArrayList<>();
    for (int i = 0; i < width; i++) {
      ups.add(upstream(r, leaf(r)));
    }
    return with(leaf(r), ups);
  }

  /** Overwrites an 8-byte field (block id, length, offset...) with an extreme value. */
  static byte[] extremeLong(byte[] valid, Random r) {
    byte[] b = valid.clone();
    if (b.length >= 8) {
      long[] v = {Long.MAX_VALUE, Long.MIN_VALUE, -1, Long.MAX_VALUE - r.nextInt(1 << 22), 1L << 62, 1L << 31};
      java.nio.ByteBuffer.wrap(b).putLong(r.nextInt(b.length - 7), v[r.nextInt(v.length)]);
    }
    return b;
  }

  /**
   * Rewrites the bytes that say how to read the rest: the kind byte (step, digest, multi-row step, or unknown) and,
   * in a multi-row request, its row count (0, 1, the bound, one past it), so a row count that disagrees with the bytes
   * that follow, or with the upstreams' rows, is met often.
   */
  static byte[] kindAndRows(byte[] valid, Random r) {
    byte[] b = valid.clone();
    b[0] = (byte) (r.nextInt(4) == 0 ? r.nextInt(256) : r.nextInt(3));
    int rowsAt = rowCountOffset(b);
    if (rowsAt >= 0 && rowsAt < b.length) {
      int[] counts = {0, 1, 2, StepRequest.MAX_ROWS, StepRequest.MAX_ROWS + 1, 255, r.nextInt(256)};
      b[rowsAt] = (byte) counts[r.nextInt(counts.length)];
    }
    return b;
  }

  /** Where a request's row count (or one-row coefficient) byte is: after pool, block id, stamp, length and token. */
  private static int rowCountOffset(byte[] b) {
    if (b.length < 3) {
      return -1;
    }
    int at = 1 + 2 + (((b[1] & 0xff) << 8) | (b[2] & 0xff)) + 24;
    if (at + 2 > b.length) {
      return -1;
    }
    return at + 2 + (((b[at] & 0xff) << 8) | (b[at + 1] & 0xff));
  }

  @Test
  void aMalformedRequestIsAnIOExceptionAndNothingElse() {
    Random r = new Random(SEED);
    StepRequest[] big = { // built once: chains (a repair's and an encode's) and a fan at the stripe's bound and beyond
        chain(r, RequestLimits.STRIPE_UNITS, 1), chain(r, RequestLimits.STRIPE_UNITS + 1, 1),
        chain(r, RequestLimits.STRIPE_UNITS, 4), chain(r, RequestLimits.STRIPE_UNITS + 1, StepRequest.MAX_ROWS),
        fan(r, RequestLimits.STRIPE_UNITS), fan(r, RequestLimits.STRIPE_UNITS + 1)};
    byte[][] bigBytes = Arrays.stream(big).map(StepRequest::toBytes).toArray(byte[][]::new);
    int passed = 0;
    int passedRows = 0;
    int framesRefused = 0;
    for (int c = 0; c < CASES; c++) {
      String where = "case " + c + " (seed " + SEED + ")";
      int kind = r.nextInt(20);
      byte[] valid = kind == 0 ? bigBytes[r.nextInt(big.length)] : tree(r, 0).toBytes();
      byte[] input = kind == 1 ? ProtocolFuzzAccess.random(r, 2000) : kind < 5 ? extremeLong(valid, r)
          : kind < 7 ? valid : kind == 7 ? kindAndRows(valid, r) : ProtocolFuzzAccess.mutate(valid, r);
      long start = System.nanoTime();
      long allocated = THREADS.getThreadAllocatedBytes(Thread.currentThread().getId());
      StepRequest parsed = null;
      try {
        parsed = StepRequest.parse(input);
      } catch (IOException refused) {
        // malformed: said so
      } catch (RuntimeException | StackOverflowError | OutOfMemoryError e) {
        fail(where + ": " + e, e);
      }
      allocated = THREADS.getThreadAllocatedBytes(Thread.currentThread().getId()) - allocated;
      assertTrue(allocated < ALLOCATION_SLACK + 64L * input.length,
          where + ": parsing " + input.length + " bytes allocated " + allocated);
      if (parsed != null) {
        try {
          LIMITS.check(parsed);
          assertCarriable(parsed, where);
          passed++;
          passedRows += parsed.rows() > 1 ? 1 : 0;
        } catch (IOException beyondABound) {
          // parsed, then refused naming the bound
          framesRefused += beyondABound.getMessage().contains(" rows of ") ? 1 : 0;
        } catch (RuntimeException | StackOverflowError e) {
          fail(where + ": " + e, e);
        }
      }
      assertTrue(System.nanoTime() - start < 1_000_000_000L, where + " took over a second");
    }
    assertTrue(passed > CASES / 10, "valid requests pass the limits too: " + passed);
    assertTrue(passedRows > CASES / 20, "multi-row requests pass the limits too: " + passedRows);
    assertTrue(framesRefused > CASES / 100, "rows x slice beyond a frame is met and refused: " + framesRefused);
  }

  /** What a helper computes from a request that passed the limits is what the request says, everywhere in the tree. */
  private static void assertCarriable(StepRequest s, String where) {
    BigInteger slices = BigInteger.valueOf(s.length()).add(BigInteger.valueOf(s.sliceBytes() - 1))
        .divide(BigInteger.valueOf(s.sliceBytes()));
    assertEquals(slices, BigInteger.valueOf(s.slices()), where + ": slice count of " + s.length() + " bytes in slices of "
        + s.sliceBytes() + " passed the limits but wraps");
    assertTrue(BigInteger.valueOf(s.offset()).add(BigInteger.valueOf(s.length())).bitLength() < 64,
        where + ": bytes [" + s.offset() + ", +" + s.length() + ") passed the limits but wrap past the largest offset");
    assertTrue((long) s.rows() * s.sliceBytes() <= LIMITS.maxSliceBytes(), where + ": " + s.rows() + " rows of "
        + s.sliceBytes() + "-byte slices passed the limits but overflow a frame");
    for (StepRequest.Upstream u : s.upstreams()) {
      assertEquals(s.rows(), u.request().rows(), where + ": an upstream of other rows passed");
      assertCarriable(u.request(), where);
    }
  }

  /**
   * The head of one request (no token, one slice) that claims {@code upstreams} upstreams, and the first upstream's
   * address; the upstream's own request follows.
   */
  private static void hostileLevel(DataOutputStream out, int upstreams) throws IOException {
    out.writeBoolean(false);
    out.writeUTF("");
    out.writeLong(1);
    out.writeLong(1);
    out.writeLong(512);
    out.writeShort(0);
    out.writeByte(1);
    out.writeLong(0);
    out.writeLong(512);
    out.writeInt(512);
    out.writeInt(0);
    out.writeInt(1);
    out.writeShort(upstreams);
    out.writeUTF("h");
    out.writeInt(1);
    out.writeUTF("h:1");
    out.writeUTF("/r");
  }

  @Test
  void aHostileCountIsRefusedFastAndCheaply() throws IOException {
    // Every level of a chain as deep as the parser follows claims 65535 upstreams and delivers one: a few KiB in.
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(b)) {
      for (int depth = 0; depth <= RequestLimits.STRIPE_UNITS; depth++) {
        hostileLevel(out, 65535);
      }
    }
    byte[] input = b.toByteArray();
    long allocated = THREADS.getThreadAllocatedBytes(Thread.currentThread().getId());
    long start = System.nanoTime();
    IOException e = assertThrows(IOException.class, () -> StepRequest.parse(input));
    long took = System.nanoTime() - start;
    allocated = THREADS.getThreadAllocatedBytes(Thread.currentThread().getId()) - allocated;
    assertTrue(allocated < ALLOCATION_SLACK + 64L * input.length, "a " + input.length + "-byte request claiming 65535 "
        + "upstreams at each of " + (RequestLimits.STRIPE_UNITS + 1) + " levels allocated " + allocated + " bytes");
    assertTrue(took < 1_000_000_000L, "refused in " + took / 1_000_000 + " ms: " + e.getMessage());
  }
}
