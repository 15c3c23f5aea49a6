package org.wideec.transport;

import java.io.IOException;
import java.security.GeneralSecurityException;
import javax.net.ssl.SSLEngine;

/**
 * Where one transport's TLS engines come from. On a cluster, Hadoop's keystores and truststores (ssl-server.xml,
 * ssl-client.xml), set up by the HDFS side; the transport only wraps each engine in its pipeline
 * ({@link TransportTls}). A node that never serves needs no keystore, so the serving side is set up apart.
 */
public interface TlsEngines extends AutoCloseable {
  /** Sets up one transport's engines, their client side at once; the error names the setting that is wrong. */
  @FunctionalInterface
  interface Factory {
    TlsEngines open() throws IOException;
  }

  /** Sets up the serving side (its keystore), before a node serves; again is a no-op. */
  void serve() throws IOException;

  /** An engine for an accepted connection (after {@link #serve}). */
  SSLEngine serverEngine() throws GeneralSecurityException, IOException;

  /** An engine for a connection this node opens. */
  SSLEngine clientEngine() throws GeneralSecurityException, IOException;

  @Override
  void close();
}
