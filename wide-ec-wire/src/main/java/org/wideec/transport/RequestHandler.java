package org.wideec.transport;

import java.io.IOException;

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
  default void screen(byte[] body) throws IOException {}

  /**
   * The screen the transport runs: {@link #screen(byte[])}, for a connection that proved the cluster secret or not
   * ({@code clusterPeer}: orders only the cluster may give are refused here to anyone else). Returns the client on
   * whose behalf the request runs, when it carries a client's authority (the user its block token was issued to): the
   * transport counts its helper thread under that client whoever relays it, since a DataNode dials a relayed step
   * with its own credential. Null when it runs on the connection's own authority (a DataNode's own repair).
   */
  default String screen(byte[] body, boolean clusterPeer) throws IOException {
    screen(body);
    return null;
  }

  /** A handler whose requests are screened by {@code screen} before they take a helper thread. */
  static RequestHandler screened(RequestHandler handler, Screen screen) {
    return new RequestHandler() {
      @Override
      public void onRequest(long repairId, byte[] body, Downstream downstream) {
        handler.onRequest(repairId, body, downstream);
      }

      @Override
      public String screen(byte[] body, boolean clusterPeer) throws IOException {
        return screen.check(body, clusterPeer);
      }
    };
  }

  /**
   * A handler for orders only this cluster gives (the NameNode's, relayed by DataNodes): a connection that did not
   * prove the cluster secret is refused before it takes a helper thread: "only a peer that proved the cluster secret
   * may {@code order}".
   */
  static RequestHandler clusterOnly(String order, RequestHandler handler) {
    return screened(handler, (body, clusterPeer) -> {
      if (!clusterPeer) {
        throw new IOException("only a peer that proved the cluster secret (" + TransportConf.SECRET + ") may " + order);
      }
      return null;
    });
  }

  /** A request's check before it takes a helper thread; returns the client it runs for, as {@link #screen} does. */
  @FunctionalInterface
  interface Screen {
    String check(byte[] body, boolean clusterPeer) throws IOException;
  }
}
