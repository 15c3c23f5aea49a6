package org.wideec.transport;

import io.netty.handler.ssl.SslHandler;
import java.io.IOException;
import java.security.GeneralSecurityException;

/**
 * Optional TLS for the slice port, configured the way Hadoop configures TLS everywhere else (the engines come from
 * {@link TlsEngines}: keystores and truststores from ssl-server.xml / ssl-client.xml, client certificates when
 * {@code hadoop.ssl.require.client.cert} is set). The HMAC handshake still runs inside.
 */
final class TransportTls implements AutoCloseable {
  private final TlsEngines engines;

  TransportTls(TlsEngines.Factory factory) throws IOException {
    this.engines = factory.open();
  }

  /** Sets up the server side (its keystore), before a node serves. */
  void serve() throws IOException {
    engines.serve();
  }

  SslHandler serverHandler() {
    try {
      return new SslHandler(engines.serverEngine());
    } catch (GeneralSecurityException | IOException e) {
      throw engineFailed(e);
    }
  }

  SslHandler clientHandler() {
    try {
      return new SslHandler(engines.clientEngine());
    } catch (GeneralSecurityException | IOException e) {
      throw engineFailed(e);
    }
  }

  private static IllegalStateException engineFailed(Exception e) {
    return new IllegalStateException("cannot create a TLS engine: " + e.getMessage(), e);
  }

  @Override
  public void close() {
    engines.close();
  }
}
