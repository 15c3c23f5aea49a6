package org.wideec.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.hadoop.hdfs.util.StripedBlockUtil;
import org.junit.jupiter.api.Test;
import org.wideec.client.BlockGroupLayout.CellRun;
import org.wideec.client.DegradedReadPlan.UnitRange;
import org.wideec.code.LinearCode;
import org.wideec.code.NotDecodableException;
import org.wideec.coder.CellLayout;
import org.wideec.coder.CodingKernel;
import org.wideec.coder.CodingMatrix;
import org.wideec.coder.ErasureCoder;
import org.wideec.coder.Kernels;
import org.wideec.coder.StripedCodec;

/** Degraded-read planning and decoding against what the code stores, byte for byte, without HDFS. */
class DegradedReadPlanTest {
  static final LinearCode CODE = StripedCodec.AZURE_LRC_L2.codeFor(12, 4);
  static final ErasureCoder CODER = ErasureCoder.java(CODE);
  static final int CELL = 64;

  /** A group's data and what each internal block holds, as HDFS writes it. */
  record Group(byte[] data, byte[][] units, BlockGroupLayout layout) {
    static Group random(int bytes, long seed) {
      byte[] data = new byte[bytes];
      new Random(seed).nextBytes(data);
      byte[][] units = new byte[CODE.n()][];
      for (int u = 0; u < units.length; u++) {
        units[u] = CellLayout.internalBlock(CODE, CELL, data, u);
      }
      return new Group(data, units, new BlockGroupLayout(12, CELL, bytes));
    }
  }

  static BitSet liveWithout(int... lost) {
    BitSet b = new BitSet();
    b.set(0, CODE.n());
    for (int u : lost) {
      b.clear(u);
    }
    return b;
  }

  /** Fetches as a DataNode would serve them, then assembles; returns the bytes read. */
  static byte[] read(Group g, DegradedReadPlan plan) {
    Map<Integer, ByteBuffer> fetched = new HashMap<>();
    for (UnitRange r : plan.fetches()) {
      assertTrue(r.end() <= g.units()[r.unit()].length, "fetch " + r + " stays inside the internal block");
      fetched.put(r.unit(), ByteBuffer.wrap(Arrays.copyOfRange(g.units()[r.unit()], (int) r.start(), (int) r.end())));
    }
    ByteBuffer dst = ByteBuffer.allocate((int) (plan.to() - plan.from()) + 3);
    dst.position(3);
    plan.assemble(fetched, CODER, dst);
    assertEquals(dst.capacity(), dst.position());
    return Arrays.copyOfRange(dst.array(), 3, dst.capacity());
  }

  @Test
  void internalLengthsAndRunsMatchHadoopsStripedLayout() {
    for (long bytes : new long[] {0, 1, 63, 64, 65, 12 * 64 - 1, 12 * 64, 12 * 64 + 1, 3 * 12 * 64 + 5 * 64 + 17}) {
      BlockGroupLayout l = new BlockGroupLayout(12, CELL, bytes);
      for (int u = 0; u < 16; u++) {
        assertEquals(StripedBlockUtil.getInternalBlockLength(bytes, CELL, 12, u), l.internalLength(u), bytes + " bytes, unit " + u);
      }
      List<CellRun> runs = l.runs(0, bytes);
      long at = 0;
      for (CellRun r : runs) {
        assertEquals(at, r.groupOffset());
        assertEquals(StripedBlockUtil.offsetInBlkToOffsetInBG(CELL, 12, r.internalOffset(), r.unit()), r.groupOffset());
        at += r.length();
      }
      assertEquals(bytes, at);
    }
  }

  @Test
  void everyRangeReadsBackThroughEveryDecodableLossPattern() {
    Random r = new Random(3);
    int[][] patterns = {{}, {3}, {9, 10, 11}, {0, 1, 6, 7}, {12, 13}, {5, 14}, {0, 11, 12}};
    for (int bytes : new int[] {1, 100, 12 * CELL, 3 * 12 * CELL + 5 * CELL + 17, 12 * CELL * 2 - 1}) {
      Group g = Group.random(bytes, bytes);
      for (int[] lost : patterns) {
        for (int i = 0; i < 40; i++) {
          long from = i == 0 ? 0 : r.nextInt(bytes);
          long to = i == 0 ? bytes : from + r.nextInt((int) (bytes - from) + 1);
          DegradedReadPlan plan = DegradedReadPlan.of(CODE, g.layout(), liveWithout(lost), from, to);
          for (UnitRange f : plan.fetches()) {
            assertTrue(Arrays.stream(lost).noneMatch(u -> u == f.unit()), "never fetches a lost unit: " + plan);
          }
          assertArrayEquals(Arrays.copyOfRange(g.data(), (int) from, (int) to), read(g, plan),
              bytes + " bytes, lost " + Arrays.toString(lost) + ": " + plan);
        }
      }
    }
  }

  /**
   * A lost range decoded from a whole local group's worth of losses (units 0, 1 and 2: a global decode from 12
   * helpers) goes to ISA-L when it is loaded, as HDFS's own reader's decode does: the kernel is handed direct
   * buffers only, which is what routes it there (Kernels.best), and the bytes are the file's.
   */
  @Test
  void aLostRangeIsDecodedByIsaLWhenItIsLoaded() {
    assertTrue(Kernels.nativeInUse() || "false".equals(System.getProperty(Kernels.NATIVE_PROPERTY)),
        "ISA-L must load in this suite (libisal2), unless switched off: " + Kernels.describe());
    List<Boolean> directness = new ArrayList<>();
    CodingKernel recording = new CodingKernel() {
      @Override
      public String name() {
        return "recording " + Kernels.best().name();
      }

      @Override
      public void multiply(CodingMatrix m, ByteBuffer[] inputs, ByteBuffer[] outputs, int len) {
        for (ByteBuffer[] side : new ByteBuffer[][] {inputs, outputs}) {
          for (ByteBuffer b : side) {
            if (b != null) {
              directness.add(b.isDirect());
            }
          }
        }
        Kernels.best().multiply(m, inputs, outputs, len);
      }
    };
    Group g = Group.random(3 * 12 * CELL, 7);
    DegradedReadPlan plan = DegradedReadPlan.of(CODE, g.layout(), liveWithout(0, 1, 2), 12 * CELL + 5, 13 * CELL - 9);
    Map<Integer, ByteBuffer> fetched = new HashMap<>();
    for (UnitRange r : plan.fetches()) {
      fetched.put(r.unit(), ByteBuffer.wrap(Arrays.copyOfRange(g.units()[r.unit()], (int) r.start(), (int) r.end())));
    }
    ByteBuffer dst = ByteBuffer.allocate((int) (plan.to() - plan.from()));
    plan.assemble(fetched, new ErasureCoder(CODE, recording), dst);
    assertArrayEquals(Arrays.copyOfRange(g.data(), (int) plan.from(), (int) plan.to()), dst.array());
    assertTrue(directness.size() >= 12 + 1, "the 12 helpers' rows and unit 0's went through the kernel: " + directness);
    assertEquals(List.of(Kernels.nativeInUse()), directness.stream().distinct().toList(),
        "every buffer the kernel saw is direct exactly when ISA-L is in use: " + directness);
  }

  @Test
  void oneLostCellIsRebuiltFromItsLocalGroupOverItsOwnRowsOnly() {
    Group g = Group.random(2 * 12 * CELL, 1);
    // Bytes 10..20 of unit 3's cell in stripe 1.
    long from = 12 * CELL + 3 * CELL + 10;
    DegradedReadPlan plan = DegradedReadPlan.of(CODE, g.layout(), liveWithout(3), from, from + 10);
    assertArrayEquals(new int[] {3}, plan.wanted());
    assertArrayEquals(new int[] {0, 1, 2, 4, 5, 14}, plan.sources());
    for (UnitRange f : plan.fetches()) {
      assertEquals(new UnitRange(f.unit(), CELL + 10, CELL + 20), f, "only the rows asked for");
    }
    assertArrayEquals(Arrays.copyOfRange(g.data(), (int) from, (int) from + 10), read(g, plan));
  }

  @Test
  void liveCellsOfADegradedGroupAreReadAsTheyAre() {
    Group g = Group.random(12 * CELL, 2);
    DegradedReadPlan plan = DegradedReadPlan.of(CODE, g.layout(), liveWithout(9, 10, 11), 5, 70);
    assertEquals(0, plan.wanted().length);
    assertEquals(List.of(new UnitRange(0, 5, 64), new UnitRange(1, 0, 6)), plan.fetches());
  }

  @Test
  void theTailOfAShortGroupIsFreeZeros() {
    Group g = Group.random(2 * CELL + 10, 4); // units 0, 1 full, unit 2 holds 10 bytes, 3..11 nothing
    DegradedReadPlan plan = DegradedReadPlan.of(CODE, g.layout(), liveWithout(0, 3, 4, 5, 6, 7, 8, 9, 10, 11), 0, 64);
    assertArrayEquals(new int[] {0}, plan.wanted());
    assertEquals(List.of(1, 2, 14), plan.fetches().stream().map(UnitRange::unit).toList(), plan.toString());
    assertEquals(new UnitRange(2, 0, 10), plan.fetches().get(1), "a short cell is fetched as far as it is stored");
    assertArrayEquals(Arrays.copyOfRange(g.data(), 0, 64), read(g, plan));
  }

  @Test
  void aPatternTheCodeCannotDecodeIsRejectedNamingTheUnits() {
    Group g = Group.random(12 * CELL, 5);
    NotDecodableException e = assertThrows(NotDecodableException.class,
        () -> DegradedReadPlan.of(CODE, g.layout(), liveWithout(0, 1, 2, 3), 0, 12 * CELL));
    assertTrue(e.getMessage().contains("[0, 1, 2, 3]"), e.getMessage());
  }
}
