package org.wideec.datanode;

import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.wideec.repair.RebuildValidation;
import org.wideec.repair.RepairScheme;
import org.wideec.config.ConfigValues;
import org.wideec.transport.TransportConf;
import org.wideec.transport.hdfs.TransportConfReader;

/**
 * The repair worker's settings: keys, defaults and allowed values, read and checked once when the DataNode
 * plugin starts (DESIGN.md §2: validate when a plugin starts, never fail later in a DataNode thread). A bad
 * value is one error naming its key and what it allows; the DataNode then keeps HDFS's stock reconstruction.
 * Keys are documented in docs/repair.md and docs/configuration.md.
 */
public record RepairWorkerConf(RepairScheme scheme, int maxAttempts, boolean fallbackToStock, int helperThreads,
    RebuildValidation validation, TransportConf transport) {

  public static final String SCHEME = "wide-ec.repair.scheme";
  public static final String MAX_ATTEMPTS = "wide-ec.repair.max-attempts";
  public static final String FALLBACK = "wide-ec.repair.fallback-to-stock";
  public static final String HELPER_THREADS = "wide-ec.repair.helper.threads";
  /** HDFS's own switch for validating reconstruction (HDFS-15759); for our codecs it is on unless set false. */
  public static final String VALIDATION = "dfs.datanode.ec.reconstruction.validation";
  public static final String VALIDATION_SLICES = "wide-ec.repair.validation.slices";
  public static final String VALIDATION_WINDOW = "wide-ec.repair.validation.window.bytes";

  public static final RepairScheme DEFAULT_SCHEME = RepairScheme.RACK_AGGREGATED;
  public static final int DEFAULT_MAX_ATTEMPTS = 3;
  public static final boolean DEFAULT_FALLBACK = true;
  public static final int DEFAULT_HELPER_THREADS = 64;
  // A repair restarts once per blamed helper; more attempts than an LRC has survivors only delay the fallback.
  static final int MAX_MAX_ATTEMPTS = 255;

  /**
   * How rebuilt units are validated: HDFS's switch when the operator set it, else on; the sample size; the window of
   * each sampled slice decoded again.
   */
  public static RebuildValidation validation(Configuration conf) {
    int window = ConfigValues.intIn(conf, VALIDATION_WINDOW, RebuildValidation.DEFAULT_WINDOW_BYTES, 0,
        Integer.MAX_VALUE);
    if (window % RebuildValidation.WINDOW_ALIGNMENT != 0) {
      throw ConfigValues.invalid(VALIDATION_WINDOW, Integer.toString(window), "0 (whole slices) or a multiple of "
          + RebuildValidation.WINDOW_ALIGNMENT + " (HDFS's checksum chunk)");
    }
    return new RebuildValidation(!setByOperator(conf, VALIDATION) || ConfigValues.bool(conf, VALIDATION, true),
        ConfigValues.intIn(conf, VALIDATION_SLICES, RebuildValidation.DEFAULT_SLICES, 0, Integer.MAX_VALUE), window);
  }

  /**
   * Whether a key was set by the operator rather than by hdfs-default.xml (which sets HDFS's validation switch false
   * for HDFS's own codecs; ours default to validating).
   */
  static boolean setByOperator(Configuration conf, String key) {
    String[] sources = conf.getPropertySources(key);
    return sources != null && java.util.Arrays.stream(sources).anyMatch(s -> !s.equals("hdfs-default.xml"));
  }

  /**
   * Reads and checks every setting of the worker and its slice transport.
   *
   * @throws IllegalArgumentException naming the first bad key, its value and what it allows (or, for a
   *     missing secret, how to set one)
   */
  public static RepairWorkerConf from(Configuration conf) {
    RepairScheme scheme = ConfigValues.oneOf(conf, SCHEME, DEFAULT_SCHEME);
    int attempts = ConfigValues.intIn(conf, MAX_ATTEMPTS, DEFAULT_MAX_ATTEMPTS, 1, MAX_MAX_ATTEMPTS);
    boolean fallback = ConfigValues.bool(conf, FALLBACK, DEFAULT_FALLBACK);
    int threads = ConfigValues.intIn(conf, HELPER_THREADS, DEFAULT_HELPER_THREADS, 1, Integer.MAX_VALUE);
    RebuildValidation validation = validation(conf);
    TransportConf transport;
    try {
      transport = TransportConfReader.from(conf);
    } catch (IOException e) {
      throw new IllegalArgumentException(e.getMessage(), e);
    }
    return new RepairWorkerConf(scheme, attempts, fallback, threads, validation, transport);
  }
}
