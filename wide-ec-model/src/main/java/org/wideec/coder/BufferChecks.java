package org.wideec.coder;

import java.nio.ByteBuffer;
import org.wideec.code.LinearCode;

/** Argument checks at the door, so nothing malformed reaches a kernel (or, later, native code). */
final class BufferChecks {
  private BufferChecks() {}

  /**
   * Checks counts, nulls, equal lengths, writability and one buffer kind; returns the common length.
   */
  static int check(LinearCode code, String op, ByteBuffer[] inputs, int inputCount, ByteBuffer[] outputs,
      int outputCount) {
    if (inputs == null || inputs.length != inputCount) {
      throw new IllegalArgumentException(code.spec() + ": " + op + " needs " + inputCount + " input buffers, got "
          + (inputs == null ? "null" : inputs.length));
    }
    if (outputs == null || outputs.length != outputCount) {
      throw new IllegalArgumentException(code.spec() + ": " + op + " needs " + outputCount + " output buffers, got "
          + (outputs == null ? "null" : outputs.length));
    }
    int len = -1;
    Boolean direct = null;
    for (int i = 0; i < inputs.length; i++) {
      ByteBuffer b = inputs[i];
      if (b == null) {
        throw new IllegalArgumentException(code.spec() + ": " + op + ": input " + i + " is null");
      }
      len = sameLength(code, op, "input", i, b, len);
      direct = sameKind(code, op, "input", i, b, direct);
    }
    for (int i = 0; i < outputs.length; i++) {
      ByteBuffer b = outputs[i];
      if (b == null) {
        throw new IllegalArgumentException(code.spec() + ": " + op + ": output " + i + " is null");
      }
      if (b.isReadOnly()) {
        throw new IllegalArgumentException(code.spec() + ": " + op + ": output " + i + " is read-only");
      }
      len = sameLength(code, op, "output", i, b, len);
      direct = sameKind(code, op, "output", i, b, direct);
    }
    return Math.max(len, 0);
  }

  private static int sameLength(LinearCode code, String op, String what, int i, ByteBuffer b, int len) {
    if (len >= 0 && b.remaining() != len) {
      throw new IllegalArgumentException(code.spec() + ": " + op + ": " + what + " " + i + " has " + b.remaining()
          + " bytes remaining, others have " + len);
    }
    return b.remaining();
  }

  private static Boolean sameKind(LinearCode code, String op, String what, int i, ByteBuffer b, Boolean direct) {
    if (direct != null && b.isDirect() != direct) {
      throw new IllegalArgumentException(code.spec() + ": " + op + ": " + what + " " + i + " is "
          + (b.isDirect() ? "direct" : "heap") + " but earlier buffers are " + (direct ? "direct" : "heap")
          + "; mixing heap and direct buffers is not supported");
    }
    return b.isDirect();
  }

  /**
   * A kernel's own checks of what it is handed ({@code who} names it in the messages; null: element messages without a
   * name): the matrix's counts of inputs (or {@code inputCount}) and outputs, nulls, {@code len} bytes remaining in
   * each, writable outputs, and with {@code direct} only direct buffers (native code reads and writes their memory).
   */
  static void kernelArguments(String who, CodingMatrix m, ByteBuffer[] inputs, int inputCount, ByteBuffer[] outputs,
      int len, boolean direct) {
    String name = who == null ? "coder" : who;
    if (inputs == null || inputs.length != inputCount) {
      throw new IllegalArgumentException(name + " needs " + inputCount + " inputs, got "
          + (inputs == null ? "null" : inputs.length));
    }
    if (outputs == null || outputs.length != m.rows()) {
      throw new IllegalArgumentException(name + " needs " + m.rows() + " outputs, got "
          + (outputs == null ? "null" : outputs.length));
    }
    if (len < 0) {
      throw new IllegalArgumentException("negative length " + len);
    }
    String at = who == null ? "" : who + ": ";
    for (int i = 0; i < inputs.length; i++) {
      kernelBuffer(at, inputs[i], "input", i, len, direct);
    }
    for (int i = 0; i < outputs.length; i++) {
      kernelBuffer(at, outputs[i], "output", i, len, direct);
      if (outputs[i].isReadOnly()) {
        throw new IllegalArgumentException(at + "output " + i + " is read-only");
      }
    }
  }

  private static void kernelBuffer(String at, ByteBuffer b, String what, int i, int len, boolean direct) {
    if (b == null) {
      throw new IllegalArgumentException(at + what + " " + i + " is null");
    }
    if (direct && !b.isDirect()) {
      throw new IllegalArgumentException(at + what + " " + i + " is a heap buffer; direct buffers are required");
    }
    if (b.remaining() < len) {
      throw new IllegalArgumentException(at + what + " " + i + " has " + b.remaining() + " bytes remaining, " + len
          + " needed");
    }
  }
}
