package org.wideec.transport;

import java.util.Random;

/** The protocol fuzzer's input generators, for fuzz tests of other packages. */
public final class ProtocolFuzzAccess {
  private ProtocolFuzzAccess() {}

  public static byte[] random(Random r, int max) {
    return ProtocolFuzzTest.random(r, max);
  }

  public static byte[] mutate(byte[] valid, Random r) {
    return ProtocolFuzzTest.mutate(valid, r);
  }
}
