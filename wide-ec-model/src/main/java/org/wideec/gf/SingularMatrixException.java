package org.wideec.gf;

/** Thrown when a matrix that must be inverted or solved is rank deficient. */
public class SingularMatrixException extends ArithmeticException {
  public SingularMatrixException(String message) {
    super(message);
  }
}
