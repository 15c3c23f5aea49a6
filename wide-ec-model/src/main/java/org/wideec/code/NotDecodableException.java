package org.wideec.code;

/** An erasure set (or a choice of inputs) from which the wanted units cannot be rebuilt. */
public class NotDecodableException extends IllegalStateException {
  public NotDecodableException(String message) {
    super(message);
  }
}
