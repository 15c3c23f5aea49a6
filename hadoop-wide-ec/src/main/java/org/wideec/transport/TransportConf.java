package org.wideec.transport;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.apache.hadoop.conf.Configuration;

/**
 * The slice transport's settings, read from Hadoop configuration (keys and defaults documented in
 * conf/hdfs-site-wide-ec.xml and docs/configuration.md).
 */
public record TransportConf(String bindHost, int port, byte[] secret, int sliceBytes, int window, int maxFrameBytes,
    long stallTimeoutMs, int connectTimeoutMs, TrafficShaper shaper, Configuration tls, PeerLimits limits,
    FrameMac frameMac) {

  public static final String PREFIX = "wide-ec.transport.";
  public static final String BIND_HOST = PREFIX + "bind-host";
  public static final String PORT = PREFIX + "port";
  public static final String AUTH = PREFIX + "auth";
  public static final String SECRET = PREFIX + "secret";
  public static final String SLICE_BYTES = PREFIX + "slice.bytes";
  public static final String WINDOW = PREFIX + "window.slices";
  public static final String MAX_FRAME = PREFIX + "max-frame.bytes";
  public static final String STALL_TIMEOUT = PREFIX + "stall.timeout.ms";
  public static final String CONNECT_TIMEOUT = PREFIX + "connect.timeout.ms";
  public static final String SHAPE_NODE = PREFIX + "shaping.node.bytes-per-second";
  public static final String SHAPE_RACK = PREFIX + "shaping.rack.bytes-per-second";
  public static final String TLS = PREFIX + "tls.enabled";
  /** HDFS's switch for encrypting DataTransferProtocol; slices of the same blocks follow it (TLS). */
  public static final String HDFS_ENCRYPT = "dfs.encrypt.data.transfer";

  public static final int DEFAULT_SLICE_BYTES = 256 * 1024;
  /**
   * The slice port's default: fixed, so a firewall rule can be written for it, next to the DataNode's own ports
   * (9864-9867) and unused by any Hadoop default. Embedded test clusters set 0 (any free port).
   */
  public static final int DEFAULT_PORT = 9873;

  /** Settings with the default peer limits. */
  public TransportConf(String bindHost, int port, byte[] secret, int sliceBytes, int window, int maxFrameBytes,
      long stallTimeoutMs, int connectTimeoutMs, TrafficShaper shaper, Configuration tls) {
    this(bindHost, port, secret, sliceBytes, window, maxFrameBytes, stallTimeoutMs, connectTimeoutMs, shaper, tls,
        PeerLimits.DEFAULTS);
  }

  /** Settings with the default frame MAC ({@link FrameMac#DEFAULT}). */
  public TransportConf(String bindHost, int port, byte[] secret, int sliceBytes, int window, int maxFrameBytes,
      long stallTimeoutMs, int connectTimeoutMs, TrafficShaper shaper, Configuration tls, PeerLimits limits) {
    this(bindHost, port, secret, sliceBytes, window, maxFrameBytes, stallTimeoutMs, connectTimeoutMs, shaper, tls,
        limits, FrameMac.DEFAULT);
  }

  public TransportConf {
    if (frameMac == null) {
      throw new IllegalArgumentException(FrameMac.KEY + " must be set");
    }
    if (window > limits.maxCredits()) {
      throw new IllegalArgumentException(WINDOW + "=" + window + " is more than " + PeerLimits.MAX_CREDITS + "="
          + limits.maxCredits() + ", which producers would refuse");
    }
    if (sliceBytes <= 0 || sliceBytes > maxFrameBytes) {
      throw new IllegalArgumentException(SLICE_BYTES + " must be in (0, " + MAX_FRAME + "=" + maxFrameBytes + "], got "
          + sliceBytes);
    }
    if (sliceBytes % 512 != 0) {
      throw new IllegalArgumentException(SLICE_BYTES + " must be a multiple of 512 (HDFS checksum chunks), got "
          + sliceBytes);
    }
    if (secret != null && secret.length < 16) {
      throw new IllegalArgumentException(SECRET + " must be at least 16 characters, got " + secret.length);
    }
    if (window < 1) {
      throw new IllegalArgumentException(WINDOW + " must be at least 1, got " + window);
    }
    if (stallTimeoutMs <= 0 || connectTimeoutMs <= 0) {
      throw new IllegalArgumentException(STALL_TIMEOUT + " and " + CONNECT_TIMEOUT + " must be positive");
    }
  }

  /**
   * Reads the settings. Authentication is on unless {@code wide-ec.transport.auth=none}; its secret comes from
   * {@code wide-ec.transport.secret} through Hadoop's credential providers (or the plain key).
   *
   * @throws IllegalArgumentException for a malformed or out-of-range value, naming its key and what it allows
   * @throws IOException when authentication is on and no secret can be read
   */
  public static TransportConf from(Configuration conf) throws IOException {
    return read(conf, false);
  }

  /**
   * The settings of a client of the slice port (a code-aware reader): the same limits and TLS, but no cluster secret,
   * which stays on DataNodes. A client proves a block token per stream instead ({@link Credential#ofToken}).
   */
  public static TransportConf forClient(Configuration conf) throws IOException {
    return read(conf, true);
  }

  private static TransportConf read(Configuration conf, boolean client) throws IOException {
    String auth = conf.getTrimmed(AUTH, "hmac");
    byte[] secret = null;
    if (client) {
      if (!auth.equalsIgnoreCase("hmac") && !auth.equalsIgnoreCase("none")) {
        throw ConfigValues.invalid(AUTH, auth, "hmac, none");
      }
    } else if (auth.equalsIgnoreCase("hmac")) {
      char[] s = conf.getPassword(SECRET);
      if (s == null || s.length == 0) {
        throw new IOException("the wide-ec slice transport authenticates peers: set " + SECRET
            + " (the same secret, at least 16 characters, on every DataNode; a credential provider keeps it out of "
            + "hdfs-site.xml) or set " + AUTH + "=none to run it unauthenticated");
      }
      secret = new String(s).getBytes(StandardCharsets.UTF_8);
    } else if (!auth.equalsIgnoreCase("none")) {
      throw ConfigValues.invalid(AUTH, auth, "hmac, none");
    }
    int maxFrame = (int) ConfigValues.bytesIn(conf, MAX_FRAME, 4 << 20, 1024, Integer.MAX_VALUE);
    boolean encrypt = ConfigValues.bool(conf, HDFS_ENCRYPT, false);
    boolean tls = ConfigValues.bool(conf, TLS, encrypt);
    if (encrypt && !tls) {
      throw new IllegalArgumentException(TLS + "=false while " + HDFS_ENCRYPT + "=true: slices carry the same bytes "
          + "as encrypted data transfer, so the slice port must use TLS too (remove " + TLS + " or set it true)");
    }
    return new TransportConf(conf.getTrimmed(BIND_HOST, "0.0.0.0"), ConfigValues.intIn(conf, PORT, DEFAULT_PORT, 0, 65535), secret,
        (int) ConfigValues.bytesIn(conf, SLICE_BYTES, DEFAULT_SLICE_BYTES, 512, Integer.MAX_VALUE),
        ConfigValues.intIn(conf, WINDOW, 4, 1, 1 << 16), maxFrame,
        ConfigValues.longAtLeast(conf, STALL_TIMEOUT, 30_000, 1),
        ConfigValues.intIn(conf, CONNECT_TIMEOUT, 10_000, 1, Integer.MAX_VALUE),
        new TrafficShaper(ConfigValues.bytesAtLeast(conf, SHAPE_NODE, 0, 0), ConfigValues.bytesAtLeast(conf, SHAPE_RACK, 0, 0)),
        tls ? new Configuration(conf) : null, PeerLimits.from(conf), FrameMac.parse(conf.getTrimmed(FrameMac.KEY, "gmac")));
  }

  /** The same settings with other stall and connect timeouts. */
  public TransportConf withTimeouts(int millis) {
    return new TransportConf(bindHost, port, secret, sliceBytes, window, maxFrameBytes, millis, millis, shaper, tls, limits,
        frameMac);
  }

  public Handshake handshake() {
    return new Handshake(secret, null, frameMac);
  }
}
