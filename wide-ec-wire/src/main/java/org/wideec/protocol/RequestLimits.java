package org.wideec.protocol;

import java.io.IOException;

/**
 * What a helper accepts from a peer before it allocates or dials anything: a slice, times the rows it carries, no
 * larger than a frame, a request tree no deeper and no wider than a stripe has units (a chain of every helper of a
 * 255-unit stripe is the deepest legitimate request), a slice count that fits an int, and upstreams that are
 * DataNode slice ports: a valid port on the very host of the DataNode the request names (DataNodes are named by
 * their transfer address, host:port). A dialled upstream must then prove the cluster secret before anything is
 * sent to it, so a request can make a helper talk only to this cluster's DataNodes. A peer that asks for more gets
 * a clear error naming the bound, not a 2 GiB buffer. Credits, connections and timeouts are bounded by the
 * transport (PeerLimits).
 */
public record RequestLimits(int maxSliceBytes, int maxDepth, int maxFanOut) {
  /** Units in the widest stripe any code here builds (LinearCode.MAX_UNITS). */
  public static final int STRIPE_UNITS = org.wideec.code.LinearCode.MAX_UNITS;

  public static RequestLimits forFrames(int maxFrameBytes) {
    return new RequestLimits(maxFrameBytes, STRIPE_UNITS, STRIPE_UNITS);
  }

  /** Throws an IOException naming the first bound the request exceeds. */
  public void check(StepRequest r) throws IOException {
    int steps = steps(r, 0);
    if (steps > STRIPE_UNITS) {
      throw new IOException("step request tree has " + steps + " steps; at most " + STRIPE_UNITS
          + " (units in a stripe: a repair or encode asks each helper once)");
    }
    check(r, 0);
  }

  /** Steps in a tree, counted only up to one past the bound (so a hostile tree costs no more than that). */
  private static int steps(StepRequest r, int counted) {
    int n = counted + 1;
    for (StepRequest.Upstream u : r.upstreams()) {
      if (n > STRIPE_UNITS) {
        break;
      }
      n = steps(u.request(), n);
    }
    return n;
  }

  /**
   * An upstream a request names: a valid port on the very host of the DataNode it names. Shared by every request
   * that has a node dial a peer (a repair step, a RapidRAID position, a chain encode's tree).
   */
  public static void checkAddress(org.wideec.topology.Endpoint e) throws IOException {
    if (e.host().isEmpty() || e.port() < 1 || e.port() > 65535) {
      throw new IOException("request names upstream " + e + ": not a host and port");
    }
    int colon = e.node().lastIndexOf(':');
    if (colon > 0 && !e.node().substring(0, colon).equals(e.host())) {
      throw new IOException("request names upstream " + e + " on another host than DataNode " + e.node()
          + ": a node dials only slice ports of this cluster's DataNodes");
    }
  }

  private void check(StepRequest r, int depth) throws IOException {
    if (depth > maxDepth) {
      throw new IOException("step request nested " + depth + " deep; at most " + maxDepth + " (units in a stripe)");
    }
    if (r.sliceBytes() > maxSliceBytes) {
      throw new IOException("step request asks for slices of " + r.sliceBytes() + " bytes; at most " + maxSliceBytes
          + " (wide-ec.transport.max-frame.bytes)");
    }
    // A multi-row step's frame holds one slice per row (ECWide §4.2 encoding): the frame, not the slice, is bounded.
    if ((long) r.rows() * r.sliceBytes() > maxSliceBytes) {
      throw new IOException("step request asks for " + r.rows() + " rows of " + r.sliceBytes() + "-byte slices: frames of "
          + (long) r.rows() * r.sliceBytes() + " bytes; at most " + maxSliceBytes + " (wide-ec.transport.max-frame.bytes)");
    }
    // Reads past a replica's end are zeros (a short unit of a group), so only the slice count is bounded here.
    // Rounded up without adding first: length + sliceBytes - 1 wraps for a length near Long.MAX_VALUE.
    if (r.length() / r.sliceBytes() + (r.length() % r.sliceBytes() == 0 ? 0 : 1) > Integer.MAX_VALUE) {
      throw new IOException("step request reads " + r.length() + " bytes in slices of " + r.sliceBytes()
          + ": more than " + Integer.MAX_VALUE + " slices");
    }
    if (r.offset() > Long.MAX_VALUE - r.length()) { // both are >= 0 (StepRequest checks)
      throw new IOException("step request reads " + r.length() + " bytes from offset " + r.offset()
          + ": past the largest offset a replica can have");
    }
    if (r.upstreams().size() > maxFanOut) {
      throw new IOException("step request names " + r.upstreams().size() + " upstreams; at most " + maxFanOut);
    }
    for (StepRequest.Upstream u : r.upstreams()) {
      checkAddress(u.endpoint());
      check(u.request(), depth + 1);
    }
  }
}
