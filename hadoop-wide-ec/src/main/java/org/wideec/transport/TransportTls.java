package org.wideec.transport;

import io.netty.handler.ssl.SslHandler;
import java.io.IOException;
import java.security.GeneralSecurityException;
import javax.net.ssl.SSLEngine;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.security.ssl.SSLFactory;

/**
 * Optional TLS for the slice port, configured the way Hadoop configures TLS everywhere else: keystores and
 * truststores from ssl-server.xml / ssl-client.xml ({@code hadoop.ssl.server.conf}, {@code hadoop.ssl.client.conf}),
 * client certificates when {@code hadoop.ssl.require.client.cert} is set. The HMAC handshake still runs inside.
 */
final class TransportTls implements AutoCloseable {
  private final Configuration conf;
  /** Set up by {@link #serve}: a client that never serves needs no keystore (only ssl-client.xml). */
  private volatile SSLFactory server;
  private final SSLFactory client;

  TransportTls(Configuration conf) throws IOException {
    this.conf = conf;
    client = init(new SSLFactory(SSLFactory.Mode.CLIENT, conf));
  }

  /** Sets up the server side (its keystore), before a node serves. */
  synchronized void serve() throws IOException {
    if (server == null) {
      server = init(new SSLFactory(SSLFactory.Mode.SERVER, conf));
    }
  }

  private static SSLFactory init(SSLFactory f) throws IOException {
    try {
      f.init();
      return f;
    } catch (GeneralSecurityException | IOException e) {
      f.destroy();
      throw new IOException("cannot set up TLS for the wide-ec slice transport (" + TransportConf.TLS + "): "
          + e.getMessage(), e);
    }
  }

  SslHandler serverHandler() {
    return new SslHandler(engine(server));
  }

  SslHandler clientHandler() {
    return new SslHandler(engine(client));
  }

  private static SSLEngine engine(SSLFactory f) {
    try {
      return f.createSSLEngine();
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalStateException("cannot create a TLS engine: " + e.getMessage(), e);
    }
  }

  @Override
  public void close() {
    if (server != null) {
      server.destroy();
    }
    client.destroy();
  }
}
