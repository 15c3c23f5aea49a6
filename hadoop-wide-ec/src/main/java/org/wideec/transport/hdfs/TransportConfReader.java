package org.wideec.transport.hdfs;

import static org.wideec.transport.TransportConf.AUTH;
import static org.wideec.transport.TransportConf.BIND_HOST;
import static org.wideec.transport.TransportConf.CONNECT_TIMEOUT;
import static org.wideec.transport.TransportConf.DEFAULT_PORT;
import static org.wideec.transport.TransportConf.DEFAULT_SLICE_BYTES;
import static org.wideec.transport.TransportConf.HDFS_ENCRYPT;
import static org.wideec.transport.TransportConf.MAX_FRAME;
import static org.wideec.transport.TransportConf.PORT;
import static org.wideec.transport.TransportConf.SECRET;
import static org.wideec.transport.TransportConf.SHAPE_NODE;
import static org.wideec.transport.TransportConf.SHAPE_RACK;
import static org.wideec.transport.TransportConf.SLICE_BYTES;
import static org.wideec.transport.TransportConf.STALL_TIMEOUT;
import static org.wideec.transport.TransportConf.TLS;
import static org.wideec.transport.TransportConf.WINDOW;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.apache.hadoop.conf.Configuration;
import org.wideec.config.ConfigValues;
import org.wideec.transport.BackgroundWindow;
import org.wideec.transport.FrameMac;
import org.wideec.transport.PeerLimits;
import org.wideec.transport.TlsEngines;
import org.wideec.transport.TrafficShaper;
import org.wideec.transport.TransportConf;

/**
 * Reads the slice transport's settings ({@code wide-ec.transport.} keys, documented in conf/hdfs-site-wide-ec.xml)
 * from Hadoop configuration into the plain values the transport takes. A malformed or out-of-range value is refused
 * with a message naming its key and what it allows ({@link ConfigValues}).
 */
public final class TransportConfReader {
  private TransportConfReader() {}

  /**
   * A DataNode's (or any cluster member's) settings. Authentication is on unless {@code wide-ec.transport.auth=none};
   * its secret comes from {@code wide-ec.transport.secret} through Hadoop's credential providers (or the plain key).
   *
   * @throws IllegalArgumentException for a malformed or out-of-range value, naming its key and what it allows
   * @throws IOException when authentication is on and no secret can be read
   */
  public static TransportConf from(Configuration conf) throws IOException {
    return read(conf, false);
  }

  /**
   * The settings of a client of the slice port (a code-aware reader): the same limits and TLS, but no cluster secret,
   * which stays on DataNodes. A client proves a block token per stream instead.
   */
  public static TransportConf forClient(Configuration conf) throws IOException {
    return read(conf, true);
  }

  private static TransportConf read(Configuration conf, boolean client) throws IOException {
    byte[] secret = secret(conf, client);
    int maxFrame = (int) ConfigValues.bytesIn(conf, MAX_FRAME, 4 << 20, 1024, Integer.MAX_VALUE);
    TlsEngines.Factory tls = tls(conf);
    return new TransportConf(conf.getTrimmed(BIND_HOST, "0.0.0.0"),
        ConfigValues.intIn(conf, PORT, DEFAULT_PORT, 0, 65535), secret,
        (int) ConfigValues.bytesIn(conf, SLICE_BYTES, DEFAULT_SLICE_BYTES, 512, Integer.MAX_VALUE),
        ConfigValues.intIn(conf, WINDOW, 4, 1, 1 << 16), maxFrame,
        ConfigValues.positiveMillis(conf, STALL_TIMEOUT, 30_000),
        ConfigValues.intIn(conf, CONNECT_TIMEOUT, 10_000, 1, Integer.MAX_VALUE),
        new TrafficShaper(ConfigValues.bytesAtLeast(conf, SHAPE_NODE, 0, 0),
            ConfigValues.bytesAtLeast(conf, SHAPE_RACK, 0, 0)),
        tls, limits(conf), FrameMac.parse(conf.getTrimmed(FrameMac.KEY, "gmac")), backgroundWindow(conf));
  }

  /** How background streams size their window to the link ({@link BackgroundWindow}). */
  static BackgroundWindow backgroundWindow(Configuration conf) {
    return new BackgroundWindow(ConfigValues.bytesAtLeast(conf, BackgroundWindow.NODE_LINK, 0, 0),
        ConfigValues.bytesAtLeast(conf, BackgroundWindow.RACK_LINK, 0, 0),
        ConfigValues.longAtLeast(conf, BackgroundWindow.ROUND_TRIP, BackgroundWindow.DEFAULT_ROUND_TRIP_MS, 0));
  }

  /** The cluster secret a DataNode proves, or null (auth=none, or a client, which proves block tokens). */
  private static byte[] secret(Configuration conf, boolean client) throws IOException {
    String auth = conf.getTrimmed(AUTH, "hmac");
    if (!auth.equalsIgnoreCase("hmac") && !auth.equalsIgnoreCase("none")) {
      throw ConfigValues.invalid(AUTH, auth, "hmac, none");
    }
    if (client || auth.equalsIgnoreCase("none")) {
      return null;
    }
    char[] s = conf.getPassword(SECRET);
    if (s == null || s.length == 0) {
      throw new IOException("the wide-ec slice transport authenticates peers: set " + SECRET
          + " (the same secret, at least 16 characters, on every DataNode; a credential provider keeps it out of "
          + "hdfs-site.xml) or set " + AUTH + "=none to run it unauthenticated");
    }
    return new String(s).getBytes(StandardCharsets.UTF_8);
  }

  /** TLS engines from Hadoop's ssl-server.xml / ssl-client.xml when the slice port uses TLS, else null. */
  private static TlsEngines.Factory tls(Configuration conf) {
    boolean encrypt = ConfigValues.bool(conf, HDFS_ENCRYPT, false);
    boolean tls = ConfigValues.bool(conf, TLS, encrypt);
    if (encrypt && !tls) {
      throw new IllegalArgumentException(TLS + "=false while " + HDFS_ENCRYPT + "=true: slices carry the same bytes "
          + "as encrypted data transfer, so the slice port must use TLS too (remove " + TLS + " or set it true)");
    }
    if (!tls) {
      return null;
    }
    Configuration copy = new Configuration(conf);
    return () -> new HadoopTlsEngines(copy);
  }

  /** What a peer may hold of a slice port ({@link PeerLimits}); defaults from {@link PeerLimits#DEFAULTS}. */
  static PeerLimits limits(Configuration conf) {
    PeerLimits d = PeerLimits.DEFAULTS;
    long idle = ConfigValues.positiveMillis(conf, PeerLimits.IDLE_TIMEOUT, d.idleTimeoutMs());
    int max = ConfigValues.intIn(conf, PeerLimits.MAX_CONNECTIONS, d.maxConnections(), 1, 1 << 20);
    int perHost = ConfigValues.intIn(conf, PeerLimits.MAX_CONNECTIONS_PER_HOST, d.maxConnectionsPerHost(), 1, 1 << 20);
    return new PeerLimits(ConfigValues.intIn(conf, PeerLimits.MAX_CREDITS, d.maxCredits(), 1, 1 << 16), max, perHost,
        ConfigValues.positiveMillis(conf, PeerLimits.HANDSHAKE_TIMEOUT, d.handshakeTimeoutMs()), idle,
        ConfigValues.intIn(conf, PeerLimits.MAX_REQUESTS_PER_PEER, d.maxRequestsPerPeer(), 1, 1 << 16),
        ConfigValues.intIn(conf, PeerLimits.POOL_MAX_IDLE_PER_PEER, d.poolMaxIdlePerPeer(), 0, 1 << 16),
        // Kept below the idle timeout by default, whatever the operator set that to.
        ConfigValues.longAtLeast(conf, PeerLimits.POOL_IDLE, Math.min(d.poolIdleMs(), idle / 2), 0),
        // Half of whatever the operator allows in total, by default (the shipped 1024 of 2048).
        ConfigValues.intIn(conf, PeerLimits.RESERVED_PEER_CONNECTIONS, max / 2, 0, max - 1),
        ConfigValues.intIn(conf, PeerLimits.MAX_CLIENT_CONNECTIONS_PER_HOST,
            Math.min(perHost, d.maxClientConnectionsPerHost()), 1, perHost));
  }
}
