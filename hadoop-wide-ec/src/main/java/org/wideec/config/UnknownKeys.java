package org.wideec.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.hadoop.conf.Configuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Warns about keys under {@code wide-ec.} that nothing reads ({@link ConfigKeys#unknown}), once per key and process:
 * the NameNode and DataNode plugins, {@code WideEcFileSystem} and the command each check the configuration they
 * start with, and a key is said once however many of them, or fsck calls, see it.
 */
public final class UnknownKeys {
  private static final Logger LOG = LoggerFactory.getLogger(UnknownKeys.class);
  private static final Set<String> SAID = ConcurrentHashMap.newKeySet();

  private UnknownKeys() {}

  /** Logs each unknown key of {@code conf} not logged before in this process; returns every unknown key found. */
  public static List<ConfigKeys.Unknown> warn(Configuration conf, String who) {
    List<String> names = new ArrayList<>();
    try {
      conf.getPropsWithPrefix(ConfigKeys.PREFIX).keySet().forEach(k -> names.add(ConfigKeys.PREFIX + k));
    } catch (RuntimeException e) { // a broken configuration resource is reported where it is read, not here
      LOG.debug("could not list the {} keys: {}", ConfigKeys.PREFIX, e.toString());
      return List.of();
    }
    List<ConfigKeys.Unknown> unknown = ConfigKeys.unknown(names);
    for (ConfigKeys.Unknown u : unknown) {
      if (SAID.add(u.key())) {
        LOG.warn("{}: {}", who, u);
      }
    }
    return unknown;
  }
}
