package org.wideec.code;

/** A code spec string that does not parse or names impossible parameters. */
public class InvalidCodeSpecException extends IllegalArgumentException {
  public InvalidCodeSpecException(String message) {
    super(message);
  }
}
