package org.wideec.config;

import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Every configuration key this project reads, under {@code wide-ec.}: the catalogue a misspelt key is checked
 * against. Hadoop's {@code Configuration} silently ignores a key nobody reads, so {@code wide-ec.placment.scheme}
 * would leave placement at its default with no word; {@link #unknown} names such keys and the nearest known one.
 * ConfigKeysTest keeps this list equal to the keys the sources read and conf/hdfs-site-wide-ec.xml documents.
 */
public final class ConfigKeys {
  public static final String PREFIX = "wide-ec.";

  /** Every key, sorted. */
  public static final Set<String> ALL = new TreeSet<>(List.of(
      "wide-ec.archive.chain.shape",
      "wide-ec.archive.classic.chunk.bytes",
      "wide-ec.archive.dir",
      "wide-ec.archive.keeper.backoff.ms",
      "wide-ec.archive.keeper.enabled",
      "wide-ec.archive.keeper.interval.ms",
      "wide-ec.archive.keeper.max-concurrent-moves",
      "wide-ec.archive.keeper.max-pins-per-pass",
      "wide-ec.archive.manifest.replication",
      "wide-ec.archive.move.parallel",
      "wide-ec.archive.move.wait.ms",
      "wide-ec.archive.mr.code",
      "wide-ec.archive.mr.encoder",
      "wide-ec.archive.mr.hook.class",
      "wide-ec.archive.mr.listing",
      "wide-ec.archive.mr.maps",
      "wide-ec.archive.mr.placement",
      "wide-ec.archive.mr.trim",
      "wide-ec.archive.rapidraid.max-positions",
      "wide-ec.archive.repair.backoff.max.ms",
      "wide-ec.archive.repair.backoff.ms",
      "wide-ec.archive.repair.confirm.timeout.ms",
      "wide-ec.archive.repair.enabled",
      "wide-ec.archive.repair.interval.ms",
      "wide-ec.archive.repair.max-concurrent",
      "wide-ec.archive.repair.safemode.wait.ms",
      "wide-ec.archive.reprotect.interval.ms",
      "wide-ec.archive.trim.enabled",
      "wide-ec.archive.trim.interval.ms",
      "wide-ec.archive.trim.wait.ms",
      "wide-ec.client.archived-reads",
      "wide-ec.client.degraded-read",
      "wide-ec.coder.native",
      "wide-ec.coder.vector",
      "wide-ec.coder.wide.tuning",
      "wide-ec.namenode.scan.interval.ms",
      "wide-ec.placement.scheme",
      "wide-ec.repair.fallback-to-stock",
      "wide-ec.repair.helper.threads",
      "wide-ec.repair.max-attempts",
      "wide-ec.repair.scheme",
      "wide-ec.repair.unusable-helper.avoid.ms",
      "wide-ec.repair.validation.slices",
      "wide-ec.transport.auth",
      "wide-ec.transport.bind-host",
      "wide-ec.transport.connect.timeout.ms",
      "wide-ec.transport.frame.mac",
      "wide-ec.transport.handshake.timeout.ms",
      "wide-ec.transport.idle.timeout.ms",
      "wide-ec.transport.max-client-connections-per-host",
      "wide-ec.transport.max-connections",
      "wide-ec.transport.max-connections-per-host",
      "wide-ec.transport.max-credits",
      "wide-ec.transport.max-frame.bytes",
      "wide-ec.transport.max-requests-per-peer",
      "wide-ec.transport.pool.idle.ms",
      "wide-ec.transport.pool.max-idle-per-peer",
      "wide-ec.transport.port",
      "wide-ec.transport.reserved-peer-connections",
      "wide-ec.transport.secret",
      "wide-ec.transport.shaping.node.bytes-per-second",
      "wide-ec.transport.shaping.rack.bytes-per-second",
      "wide-ec.transport.slice.bytes",
      "wide-ec.transport.stall.timeout.ms",
      "wide-ec.transport.tls.enabled",
      "wide-ec.transport.window.slices",
      "wide-ec.unarchive.wait.ms"));

  private ConfigKeys() {}

  /** One key under {@code wide-ec.} that nothing reads, with the known key it most likely meant (or null). */
  public record Unknown(String key, String nearest) {
    @Override
    public String toString() {
      return "unknown configuration key " + key + " (nothing reads it" + (nearest == null ? ""
          : "; did you mean " + nearest + "?") + ")";
    }
  }

  /** The keys of {@code names} under {@code wide-ec.} that are not in the catalogue, sorted. */
  public static List<Unknown> unknown(Collection<String> names) {
    return names.stream().filter(n -> n.startsWith(PREFIX) && !ALL.contains(n)).sorted()
        .map(n -> new Unknown(n, nearest(n))).toList();
  }

  /** The known key closest to {@code key} by edit distance, if close enough to be a slip (a quarter of its length). */
  static String nearest(String key) {
    String best = null;
    int bestDistance = Integer.MAX_VALUE;
    for (String k : ALL) {
      int d = editDistance(key, k);
      if (d < bestDistance) {
        best = k;
        bestDistance = d;
      }
    }
    return bestDistance <= Math.max(2, key.length() / 4) ? best : null;
  }

  /** Levenshtein distance: insertions, deletions and substitutions of one character. */
  static int editDistance(String a, String b) {
    int[] prev = new int[b.length() + 1];
    int[] cur = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      prev[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      cur[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int substitute = prev[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
        cur[j] = Math.min(substitute, Math.min(prev[j], cur[j - 1]) + 1);
      }
      int[] t = prev;
      prev = cur;
      cur = t;
    }
    return prev[b.length()];
  }
}
