package org.wideec.repair;

import java.io.IOException;

/**
 * What a helper accepts from a peer before it allocates or dials anything (issue 11's first bound): a slice no
 * larger than a frame, a request tree no deeper and no wider than a stripe has units (a chain of every helper of a
 * 255-unit stripe is the deepest legitimate request), and a slice count that fits an int. A peer that asks for
 * more gets a clear error naming the bound, not a 2 GiB buffer. The other bounds of issue 11 (credits,
 * addresses, connections, timeouts) are not here yet.
 */
public record RequestLimits(int maxSliceBytes, int maxDepth, int maxFanOut) {
  /** Units in the widest stripe any code here builds (LinearCode.MAX_UNITS). */
  public static final int STRIPE_UNITS = org.wideec.code.LinearCode.MAX_UNITS;

  public static RequestLimits forFrames(int maxFrameBytes) {
    return new RequestLimits(maxFrameBytes, STRIPE_UNITS, STRIPE_UNITS);
  }

  /** Throws an IOException naming the first bound the request exceeds. */
  public void check(StepRequest r) throws IOException {
    check(r, 0);
  }

  private void check(StepRequest r, int depth) throws IOException {
    if (depth > maxDepth) {
      throw new IOException("step request nested " + depth + " deep; at most " + maxDepth + " (units in a stripe)");
    }
    if (r.sliceBytes() > maxSliceBytes) {
      throw new IOException("step request asks for slices of " + r.sliceBytes() + " bytes; at most " + maxSliceBytes
          + " (wide-ec.transport.max-frame.bytes)");
    }
    // Reads past a replica's end are zeros (a short unit of a group), so only the slice count is bounded here.
    if ((r.length() + r.sliceBytes() - 1) / r.sliceBytes() > Integer.MAX_VALUE) {
      throw new IOException("step request reads " + r.length() + " bytes in slices of " + r.sliceBytes()
          + ": more than " + Integer.MAX_VALUE + " slices");
    }
    if (r.upstreams().size() > maxFanOut) {
      throw new IOException("step request names " + r.upstreams().size() + " upstreams; at most " + maxFanOut);
    }
    for (StepRequest.Upstream u : r.upstreams()) {
      check(u.request(), depth + 1);
    }
  }
}
