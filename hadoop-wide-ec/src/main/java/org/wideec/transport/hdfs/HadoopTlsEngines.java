package org.wideec.transport.hdfs;

import java.io.IOException;
import java.security.GeneralSecurityException;
import javax.net.ssl.SSLEngine;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.security.ssl.SSLFactory;
import org.wideec.transport.TlsEngines;
import org.wideec.transport.TransportConf;

/**
 * The slice port's TLS engines from Hadoop's {@link SSLFactory}: keystores and truststores from ssl-server.xml /
 * ssl-client.xml ({@code hadoop.ssl.server.conf}, {@code hadoop.ssl.client.conf}), client certificates when
 * {@code hadoop.ssl.require.client.cert} is set, as Hadoop sets up TLS everywhere else.
 */
final class HadoopTlsEngines implements TlsEngines {
  private final Configuration conf;
  /** Set up by {@link #serve}: a client that never serves needs no keystore (only ssl-client.xml). */
  private volatile SSLFactory server;
  private final SSLFactory client;

  HadoopTlsEngines(Configuration conf) throws IOException {
    this.conf = conf;
    client = init(new SSLFactory(SSLFactory.Mode.CLIENT, conf));
  }

  @Override
  public synchronized void serve() throws IOException {
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

  @Override
  public SSLEngine serverEngine() throws GeneralSecurityException, IOException {
    return server.createSSLEngine();
  }

  @Override
  public SSLEngine clientEngine() throws GeneralSecurityException, IOException {
    return client.createSSLEngine();
  }

  @Override
  public void close() {
    if (server != null) {
      server.destroy();
    }
    client.destroy();
  }
}
