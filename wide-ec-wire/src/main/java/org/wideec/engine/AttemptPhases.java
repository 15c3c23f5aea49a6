package org.wideec.engine;

/**
 * When a repair attempt began, in milliseconds after the repair did (its planning, and any attempts before it), and
 * when each of its phases ended, in milliseconds after the attempt began: the requestor's streams asked
 * (a chain's last hop only; the hops behind it are asked after, ECPipe §3.2), the first rebuilt slice (every hop set
 * up and one slice through), the first pass's last slice (and how much of it went into writing the targets), the
 * second decode's comparison (RebuildValidation) and the targets' confirmation. A recovery that is slower than its
 * bytes explain is read from these, not guessed from the daemons' timestamps. A phase the attempt did not run (no
 * second decode for a copy) ends when the one before it did.
 */
public record AttemptPhases(long beganMs, long acceptedMs, long firstSliceMs, long firstPassMs, long secondDecodeMs,
    long storedMs, long targetWritesMs) {
  /** What a repair that did nothing reports. */
  public static final AttemptPhases NONE = new AttemptPhases(0, 0, 0, 0, 0, 0, 0);

  /** For the repair's log line: each phase's end, after the attempt began. */
  public String describe() {
    return "began " + beganMs + " ms into the repair (planning, earlier attempts); streams accepted at " + acceptedMs + " ms, first slice " + firstSliceMs + ", first pass " + firstPassMs
        + " (" + targetWritesMs + " ms of it writing the targets, the rest waiting for the helpers), second decode "
        + secondDecodeMs + ", stored " + storedMs;
  }

  /** Records the phases of one attempt as they end, on the attempt's thread and the first slice's. */
  static final class Clock {
    private final long start = System.nanoTime();
    private final long began;
    private volatile long accepted = -1;
    private volatile long firstSlice = -1;
    private long firstPass = -1;
    private long secondDecode = -1;
    private long targetWrites;

    /** @param repairStart when the repair began (System.nanoTime): what came before this attempt is its planning */
    Clock(long repairStart) {
      began = (start - repairStart) / 1_000_000;
    }

    void accepted() {
      accepted = now();
    }

    void slice() {
      if (firstSlice < 0) {
        firstSlice = now();
      }
    }

    /** Adds the time since {@code from} (System.nanoTime) to writing rebuilt slices to the targets. */
    void wroteTargets(long from) {
      targetWrites += System.nanoTime() - from;
    }

    void firstPassDone() {
      firstPass = now();
    }

    void secondDecodeDone() {
      secondDecode = now();
    }

    /** The phases, the attempt's targets having confirmed just now. */
    AttemptPhases stored() {
      long a = Math.max(0, accepted);
      long f = firstSlice < 0 ? a : firstSlice; // an empty range moves no slice
      long p = Math.max(f, firstPass);
      long s = Math.max(p, secondDecode);
      return new AttemptPhases(began, a, f, p, s, Math.max(s, now()), targetWrites / 1_000_000);
    }

    private long now() {
      return (System.nanoTime() - start) / 1_000_000;
    }
  }
}
