package org.wideec.transport;

/** Serves a stream a peer asked for: runs on the transport's worker threads, never on an event loop. */
@FunctionalInterface
public interface RequestHandler {
  /** Produce the stream into {@code downstream}; end it with {@link Downstream#end} or {@link Downstream#fail}. */
  void onRequest(long repairId, byte[] body, Downstream downstream);

  /**
   * Checks a request before it may take a helper thread (on the event loop, so cheap and non-blocking: parse, bound,
   * verify block tokens): throws a refusal naming what is wrong, and the transport refuses the request without
   * running it. {@link #onRequest} must not rely on it (it may be called directly).
   */
  default void screen(byte[] body) throws java.io.IOException {}

  /**
   * One port, several kinds of request: those {@code mine} recognizes (by their opening bytes) go to {@code handler},
   * every other one to {@code others}.
   */
  static RequestHandler route(java.util.function.Predicate<byte[]> mine, RequestHandler handler,
      RequestHandler others) {
    return new RequestHandler() {
      @Override
      public void onRequest(long repairId, byte[] body, Downstream downstream) {
        (mine.test(body) ? handler : others).onRequest(repairId, body, downstream);
      }

      @Override
      public void screen(byte[] body) throws java.io.IOException {
        (mine.test(body) ? handler : others).screen(body);
      }
    };
  }

  /** A handler whose requests are screened by {@code screen} before they take a helper thread. */
  static RequestHandler screened(RequestHandler handler, Screen screen) {
    return new RequestHandler() {
      @Override
      public void onRequest(long repairId, byte[] body, Downstream downstream) {
        handler.onRequest(repairId, body, downstream);
      }

      @Override
      public void screen(byte[] body) throws java.io.IOException {
        screen.check(body);
      }
    };
  }

  /** A request's check before it takes a helper thread. */
  @FunctionalInterface
  interface Screen {
    void check(byte[] body) throws java.io.IOException;
  }
}
