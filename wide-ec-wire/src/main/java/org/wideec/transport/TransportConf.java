package org.wideec.transport;

/**
 * The slice transport's settings as plain values (the HDFS side reads them from Hadoop configuration; keys and
 * defaults documented in conf/hdfs-site-wide-ec.xml and docs/configuration.md). {@code tls} is null when the slice
 * port runs without TLS. {@code window} is the least window of any stream; background work's is sized to the link
 * by {@code backgroundWindow}.
 */
public record TransportConf(String bindHost, int port, byte[] secret, int sliceBytes, int window, int maxFrameBytes,
    long stallTimeoutMs, int connectTimeoutMs, TrafficShaper shaper, TlsEngines.Factory tls, PeerLimits limits,
    FrameMac frameMac, BackgroundWindow backgroundWindow) {

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
      long stallTimeoutMs, int connectTimeoutMs, TrafficShaper shaper, TlsEngines.Factory tls) {
    this(bindHost, port, secret, sliceBytes, window, maxFrameBytes, stallTimeoutMs, connectTimeoutMs, shaper, tls,
        PeerLimits.DEFAULTS);
  }

  /** Settings with the default frame MAC ({@link FrameMac#DEFAULT}). */
  public TransportConf(String bindHost, int port, byte[] secret, int sliceBytes, int window, int maxFrameBytes,
      long stallTimeoutMs, int connectTimeoutMs, TrafficShaper shaper, TlsEngines.Factory tls, PeerLimits limits) {
    this(bindHost, port, secret, sliceBytes, window, maxFrameBytes, stallTimeoutMs, connectTimeoutMs, shaper, tls,
        limits, FrameMac.DEFAULT);
  }

  /** Settings with the default background window ({@link BackgroundWindow#DEFAULT}). */
  public TransportConf(String bindHost, int port, byte[] secret, int sliceBytes, int window, int maxFrameBytes,
      long stallTimeoutMs, int connectTimeoutMs, TrafficShaper shaper, TlsEngines.Factory tls, PeerLimits limits,
      FrameMac frameMac) {
    this(bindHost, port, secret, sliceBytes, window, maxFrameBytes, stallTimeoutMs, connectTimeoutMs, shaper, tls,
        limits, frameMac, BackgroundWindow.DEFAULT);
  }

  public TransportConf {
    if (backgroundWindow == null) {
      throw new IllegalArgumentException(BackgroundWindow.ROUND_TRIP + " must be set");
    }
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

  /** The same settings with other stall and connect timeouts. */
  public TransportConf withTimeouts(int millis) {
    return new TransportConf(bindHost, port, secret, sliceBytes, window, maxFrameBytes, millis, millis, shaper, tls, limits,
        frameMac, backgroundWindow);
  }

  public Handshake handshake() {
    return new Handshake(secret, null, frameMac);
  }
}
