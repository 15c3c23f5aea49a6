package org.wideec.transport;

/** Serves a stream a peer asked for: runs on the transport's worker threads, never on an event loop. */
@FunctionalInterface
public interface RequestHandler {
  /** Produce the stream into {@code downstream}; end it with {@link Downstream#end} or {@link Downstream#fail}. */
  void onRequest(long repairId, byte[] body, Downstream downstream);

  /**
   * One port, several kinds of request: those {@code mine} recognizes (by their opening bytes) go to {@code handler},
   * every other one to {@code others}.
   */
  static RequestHandler route(java.util.function.Predicate<byte[]> mine, RequestHandler handler,
      RequestHandler others) {
    return (repairId, body, downstream) -> {
      if (mine.test(body)) {
        handler.onRequest(repairId, body, downstream);
      } else {
        others.onRequest(repairId, body, downstream);
      }
    };
  }
}
