package org.wideec.gf;

/**
 * A finite field of characteristic 2, elements encoded as non-negative ints below {@link #size()}.
 *
 * <p>Coding always happens in {@link Gf256}. A larger field ({@link Gf65536}) is used only by the analysis
 * side, to tell a structural (natural) dependency of a construction from an accidental one of its GF(2^8)
 * coefficients (RapidRAID §V-A): what is dependent for random coefficients of a big field is dependent
 * for every choice.
 */
public interface Field {
  /** Number of elements, 2^w. */
  int size();

  default int add(int a, int b) {
    return a ^ b;
  }

  int mul(int a, int b);

  /** Multiplicative inverse; throws ArithmeticException for 0. */
  int inv(int a);

  default int div(int a, int b) {
    return mul(a, inv(b));
  }

  /** a^e for e >= 0. */
  int pow(int a, int e);

  /** The element whose discrete log (base the primitive element) is e. */
  int exp(int e);
}
