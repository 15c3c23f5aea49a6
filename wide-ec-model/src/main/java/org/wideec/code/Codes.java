package org.wideec.code;

import java.util.concurrent.ConcurrentHashMap;

/**
 * Entry point for building codes from spec strings. A spec that the on-disk format pins ({@link CodeFormat})
 * is built from its pinned coefficients, without any search; any other spec is built by its construction,
 * searching where the family does, and is good for analysis only ({@link LinearCode#pinned()} is false).
 * Built codes are cached by canonical spec (codes are immutable).
 */
public final class Codes {
  private static final ConcurrentHashMap<String, LinearCode> CACHE = new ConcurrentHashMap<>();

  private Codes() {}

  /** The code for a spec such as {@code azure-lrc:k=12,l=2,g=2}; throws InvalidCodeSpecException. */
  public static LinearCode fromSpec(String spec) {
    CodeSpec parsed = canonicalSpec(spec);
    String key = parsed.toString();
    LinearCode cached = CACHE.get(key);
    if (cached != null) {
      return cached;
    }
    PinnedCode pinned = CodeFormat.lookup(key);
    LinearCode built = pinned == null ? construct(parsed) : fromPinned(parsed, pinned);
    LinearCode prior = CACHE.putIfAbsent(key, built);
    return prior != null ? prior : built;
  }

  /**
   * The code for a spec whose coefficients the on-disk format pins: the only codes that may encode or
   * decode stored data. Refuses any other spec before building it (no search).
   *
   * @throws InvalidCodeSpecException naming the spec when it is not pinned
   */
  public static LinearCode pinnedFromSpec(String spec) {
    String key = canonical(spec);
    if (CodeFormat.lookup(key) == null) {
      String failure = CodeFormat.tableFailure();
      throw new InvalidCodeSpecException(key + " is not a code of on-disk format " + CodeFormat.FORMAT_VERSION
          + (failure != null ? " (" + failure + ")" : " (its coefficients are not pinned)")
          + ": refusing to encode or decode stored data with it; unpinned codes are for analysis only");
    }
    return fromSpec(key);
  }

  /** The canonical form of a spec: family parameters in the family's order, e.g. {@code rs:k=6,m=3}. */
  public static String canonical(String spec) {
    return canonicalSpec(spec).toString();
  }

  /** Builds the code by its construction alone, ignoring the pinned table: what the format generator pins. */
  static LinearCode construct(String spec) {
    return construct(canonicalSpec(spec));
  }

  private static LinearCode construct(CodeSpec spec) {
    return CodeFamily.byName(spec.family()).build(spec, null);
  }

  private static CodeSpec canonicalSpec(String spec) {
    CodeSpec parsed = CodeSpec.parse(spec);
    return CodeFamily.byName(parsed.family()).canonical(parsed);
  }

  /**
   * Builds from pinned coefficients: searched families take them instead of searching, closed-form ones
   * compute theirs. Either way the result must be the pinned generator, byte for byte: a construction that
   * no longer reproduces its pinned code would write other bytes under the same name.
   */
  static LinearCode fromPinned(CodeSpec spec, PinnedCode pinned) {
    LinearCode built = CodeFamily.byName(spec.family()).build(spec, pinned);
    if (!built.spec().equals(pinned.spec()) || !built.generator().equals(pinned.generator())) {
      throw new InvalidCodeSpecException(spec + ": its construction no longer yields the generator that on-disk format "
          + CodeFormat.FORMAT_VERSION + " pins; new coefficients need a new format version or codec name");
    }
    return built.asPinned(CodeFormat.FORMAT_VERSION);
  }
}
