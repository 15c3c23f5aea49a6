package org.wideec.update;

/** One update of a block-level trace: when (microseconds from the start), where (byte offset) and how much. */
public record TraceUpdate(long timeMicros, long offset, int length) {
  public TraceUpdate {
    if (timeMicros < 0 || offset < 0 || length < 1) {
      throw new IllegalArgumentException("an update needs time >= 0, offset >= 0 and length >= 1, got " + timeMicros
          + " " + offset + " " + length);
    }
  }

  /** The trace format's line: {@code time offset length}, decimal, space-separated (docs/updates.md). */
  public String toLine() {
    return timeMicros + " " + offset + " " + length;
  }

  /** Parses a trace line; the message names the line number and what is wrong. */
  public static TraceUpdate parse(String line, int lineNumber) {
    String[] f = line.trim().split("\\s+");
    if (f.length != 3) {
      throw new IllegalArgumentException("trace line " + lineNumber + " '" + line + "' is not 'time offset length'");
    }
    try {
      return new TraceUpdate(Long.parseLong(f[0]), Long.parseLong(f[1]), Integer.parseInt(f[2]));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("trace line " + lineNumber + " '" + line + "' holds a non-integer field");
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("trace line " + lineNumber + ": " + e.getMessage());
    }
  }
}
