package org.wideec.gf;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.util.Random;
import org.apache.hadoop.io.erasurecode.rawcoder.util.GF256;
import org.junit.jupiter.api.Test;

class Gf256Test {
  private final Gf256 f = Gf256.INSTANCE;

  @Test
  void multiplicationAgreesWithHadoopGf256OnEveryPair() {
    for (int a = 0; a < 256; a++) {
      for (int b = 0; b < 256; b++) {
        assertEquals(GF256.gfMul((byte) a, (byte) b) & 0xff, f.mul(a, b), a + "*" + b);
      }
    }
  }

  @Test
  void everyNonZeroElementHasAnInverse() {
    for (int a = 1; a < 256; a++) {
      assertEquals(1, f.mul(a, f.inv(a)));
    }
    assertThrows(ArithmeticException.class, () -> f.inv(0));
  }

  @Test
  void gf65536InversesAndPowersAreConsistent() {
    Gf65536 g = Gf65536.INSTANCE;
    Random r = new Random(1);
    for (int i = 0; i < 10_000; i++) {
      int a = 1 + r.nextInt(65535);
      assertEquals(1, g.mul(a, g.inv(a)));
      assertEquals(g.mul(a, g.mul(a, a)), g.pow(a, 3));
    }
  }

  @Test
  void inverseTimesMatrixIsIdentity() {
    Random r = new Random(2);
    for (int t = 0; t < 50; t++) {
      int n = 1 + r.nextInt(12);
      Matrix m = randomMatrix(n, n, r);
      if (m.rank() < n) {
        assertThrows(SingularMatrixException.class, m::inverse);
        continue;
      }
      assertEquals(Matrix.identity(f, n), m.times(m.inverse()));
      assertEquals(Matrix.identity(f, n), m.inverse().times(m));
    }
  }

  @Test
  void solveLeftFindsCombinationsAndRejectsVectorsOutsideTheRowSpace() {
    Matrix m = Matrix.of(f, new int[][] {{1, 0, 0}, {0, 1, 0}});
    assertArrayEquals(new int[] {5, 7}, m.solveLeft(new int[] {5, 7, 0}));
    assertNull(m.solveLeft(new int[] {0, 0, 1}));
    Random r = new Random(3);
    Matrix g = randomMatrix(6, 4, r);
    int[] x = {3, 0, 9, 1, 0, 200};
    int[] target = g.leftMultiply(x);
    assertArrayEquals(target, g.leftMultiply(g.solveLeft(target)));
  }

  @Test
  void leftNullSpaceAnnihilatesTheMatrix() {
    Random r = new Random(4);
    Matrix g = randomMatrix(10, 6, r);
    Matrix h = g.leftNullSpace();
    assertEquals(10 - g.rank(), h.rows());
    assertEquals(Matrix.zero(f, h.rows(), 6), h.times(g));
  }

  @Test
  void regionKernelsMatchScalarArithmeticOnArraysAndBuffers() {
    Random r = new Random(5);
    byte[] src = new byte[1031];
    r.nextBytes(src);
    byte[] dst = new byte[1031];
    r.nextBytes(dst);
    for (int c : new int[] {0, 1, 2, 0x8e, 255}) {
      byte[] expected = dst.clone();
      for (int i = 0; i < src.length; i++) {
        expected[i] ^= (byte) f.mul(c, src[i] & 0xff);
      }
      byte[] heap = dst.clone();
      RegionKernels.mulAdd(c, src, 0, heap, 0, src.length);
      assertArrayEquals(expected, heap);
      ByteBuffer s = ByteBuffer.allocateDirect(src.length).put(src).flip();
      ByteBuffer d = ByteBuffer.allocateDirect(dst.length).put(dst).flip();
      RegionKernels.mulAdd(c, s, 0, d, 0, src.length);
      byte[] direct = new byte[dst.length];
      d.get(0, direct);
      assertArrayEquals(expected, direct);
    }
  }

  private Matrix randomMatrix(int rows, int cols, Random r) {
    int[][] a = new int[rows][cols];
    for (int[] row : a) {
      for (int j = 0; j < cols; j++) {
        row[j] = r.nextInt(256);
      }
    }
    return Matrix.of(f, a);
  }
}
