package org.wideec.coder;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.File;
import java.util.Locale;
import org.junit.jupiter.api.Assumptions;

/**
 * When tests must have the native coder. {@code -Dwide-ec.test.native=required} or {@code auto}; the default
 * is {@code required} wherever ISA-L's headers are installed, because the build then compiles libwideec and
 * puts it into the jar, so a library that does not load is a bug. A test that needs the native coder then
 * fails, naming why it did not load; under {@code auto} it is skipped (reported as skipped, never as passed).
 */
public final class NativeRequirement {
  static final String PROPERTY = "wide-ec.test.native";
  static final File ISAL_HEADER = new File("/usr/include/isa-l/erasure_code.h");

  private NativeRequirement() {}

  /** True when a native coder that does not load fails the tests. */
  static boolean required() {
    String v = System.getProperty(PROPERTY, "").trim().toLowerCase(Locale.ROOT);
    return switch (v) {
      case "required" -> true;
      case "auto" -> false;
      case "" -> ISAL_HEADER.exists();
      default -> throw new IllegalArgumentException("-D" + PROPERTY + "=" + v + ": expected required or auto");
    };
  }

  /** Why native is required, for failure messages. */
  static String rule() {
    return System.getProperty(PROPERTY) != null ? "-D" + PROPERTY + "=" + System.getProperty(PROPERTY)
        : ISAL_HEADER + " exists, so the build compiled libwideec";
  }

  /** Call first in a test that needs the native coder: fails or skips the test when it did not load. */
  public static void nativeCoder() {
    if (IsalNative.isAvailable()) {
      return;
    }
    if (required()) {
      fail("the native coder must load (" + rule() + ") but did not: " + IsalNative.unavailableReason());
    }
    Assumptions.abort("native coder not loaded (" + IsalNative.unavailableReason() + "); " + PROPERTY + "=auto");
  }
}
