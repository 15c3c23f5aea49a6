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
  private final SSLFactory server;
  private final SSLFactory client;

  TransportTls(Configuration conf) throws IOException {
    server = new SSLFactory(SSLFactory.Mode.SERVER, conf);
    client = new SSLFactory(SSLFactory.Mode.CLIENT, conf);
    try {
      server.init();
      client.init();
    } catch (GeneralSecurityException | IOException e) {
      close();
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
    server.destroy();
    client.destroy();
  }
}
