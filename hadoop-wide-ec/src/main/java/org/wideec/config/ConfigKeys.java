package org.wideec.config;

import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * The names of every configuration key this project reads, under {@code wide-ec.} (from {@link ConfigCatalogue}):
 * what a misspelt key is checked against. Hadoop's {@code Configuration} silently ignores a key nobody reads, so
 * {@code wide-ec.placment.scheme} would leave placement at its default with no word; {@link #unknown} names such
 * keys and the nearest known one. ConfigKeysTest keeps the names equal to the keys the sources read and
 * conf/hdfs-site-wide-ec.xml documents.
 */
public final class ConfigKeys {
  public static final String PREFIX = "wide-ec.";

  /** Every key's name ({@link ConfigCatalogue#KEYS}), sorted. */
  public static final SortedSet<String> ALL = Collections.unmodifiableSortedSet(
      ConfigCatalogue.KEYS.stream().map(ConfigKey::name).collect(Collectors.toCollection(TreeSet::new)));

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
