package org.wideec.config;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.util.StringUtils;

/**
 * Typed reads of Hadoop configuration that refuse a malformed value with a message naming the key and what it
 * allows. Configuration's own getters say only "For input string: ..." for a bad number and quietly use the
 * default for a misspelt boolean, so a typo would run with a setting the operator never chose.
 */
public final class ConfigValues {
  private ConfigValues() {}

  /** The error for a bad value: the key, the value and what is allowed. */
  public static IllegalArgumentException invalid(String key, String value, String allowed) {
    return new IllegalArgumentException(key + "='" + value + "' is not valid; allowed: " + allowed);
  }

  /** An integer in [min, max]; the default when unset. */
  public static int intIn(Configuration conf, String key, int dflt, int min, int max) {
    return (int) number(conf, key, dflt, min, max, false);
  }

  /** A long of at least min; the default when unset. */
  public static long longAtLeast(Configuration conf, String key, long dflt, long min) {
    return number(conf, key, dflt, min, Long.MAX_VALUE, false);
  }

  /** A positive number of milliseconds (a timeout, an interval, a back-off); the default when unset. */
  public static long positiveMillis(Configuration conf, String key, long dflt) {
    return number(conf, key, dflt, 1, Long.MAX_VALUE, false);
  }

  /** A byte count of at least min, with an optional k, m, g, t suffix (as Configuration.getLongBytes). */
  public static long bytesAtLeast(Configuration conf, String key, long dflt, long min) {
    return number(conf, key, dflt, min, Long.MAX_VALUE, true);
  }

  /** A byte count in [min, max], with an optional k, m, g, t suffix. */
  public static long bytesIn(Configuration conf, String key, long dflt, long min, long max) {
    return number(conf, key, dflt, min, max, true);
  }

  /** true or false (any case); the default when unset. */
  public static boolean bool(Configuration conf, String key, boolean dflt) {
    String v = conf.getTrimmed(key);
    if (v == null || v.isEmpty()) {
      return dflt;
    }
    if (v.equalsIgnoreCase("true") || v.equalsIgnoreCase("false")) {
      return Boolean.parseBoolean(v.toLowerCase(Locale.ROOT));
    }
    throw invalid(key, v, "true or false");
  }

  /** One of an enum's constants, written in lower case (case is ignored); the default when unset. */
  public static <E extends Enum<E>> E oneOf(Configuration conf, String key, E dflt) {
    String v = conf.getTrimmed(key);
    if (v == null || v.isEmpty()) {
      return dflt;
    }
    for (E e : dflt.getDeclaringClass().getEnumConstants()) {
      if (e.name().equalsIgnoreCase(v)) {
        return e;
      }
    }
    throw invalid(key, v, names(dflt.getDeclaringClass()));
  }

  /** An enum's constants as configuration values: "a, b, c". */
  public static String names(Class<? extends Enum<?>> type) {
    return Arrays.stream(type.getEnumConstants()).map(e -> e.name().toLowerCase(Locale.ROOT))
        .collect(Collectors.joining(", "));
  }

  private static long number(Configuration conf, String key, long dflt, long min, long max, boolean bytes) {
    String v = conf.getTrimmed(key);
    String allowed = (bytes ? "a byte count (optional suffix k, m, g, t)" : "an integer") + " from " + min
        + (max == Long.MAX_VALUE ? " up" : " to " + max);
    if (v == null || v.isEmpty()) {
      return dflt;
    }
    long n;
    try {
      n = bytes ? StringUtils.TraditionalBinaryPrefix.string2long(v) : Long.parseLong(v);
    } catch (IllegalArgumentException e) { // NumberFormatException included
      throw invalid(key, v, allowed);
    }
    if (n < min || n > max) {
      throw invalid(key, v, allowed);
    }
    return n;
  }
}
