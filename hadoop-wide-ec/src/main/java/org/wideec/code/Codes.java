package org.wideec.code;

import java.util.concurrent.ConcurrentHashMap;

/**
 * Entry point for building codes from spec strings. Constructions that search coefficients are costly,
 * so built codes are cached by canonical spec (codes are immutable).
 */
public final class Codes {
  private static final ConcurrentHashMap<String, LinearCode> CACHE = new ConcurrentHashMap<>();

  private Codes() {}

  /** The code for a spec such as {@code azure-lrc:k=12,l=2,g=2}; throws InvalidCodeSpecException. */
  public static LinearCode fromSpec(String spec) {
    CodeSpec parsed = CodeSpec.parse(spec);
    String key = parsed.toString();
    LinearCode cached = CACHE.get(key);
    if (cached != null) {
      return cached;
    }
    LinearCode built = CodeFamily.byName(parsed.family()).build(parsed);
    LinearCode prior = CACHE.putIfAbsent(key, built);
    return prior != null ? prior : built;
  }
}
