package org.wideec.transport;

/** Serves a stream a peer asked for: runs on the transport's worker threads, never on an event loop. */
@FunctionalInterface
public interface RequestHandler {
  /** Produce the stream into {@code downstream}; end it with {@link Downstream#end} or {@link Downstream#fail}. */
  void onRequest(long repairId, byte[] body, Downstream downstream);
}
