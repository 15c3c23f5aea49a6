package org.wideec.placement;

import java.util.List;

/**
 * The placement configuration, checked once when the policy starts (DESIGN.md §2: a misspelt value must not
 * surface later inside a NameNode thread). {@code wide-ec.placement.scheme}: auto (default; by codec), flat, tl,
 * cl or unilrc.
 */
public final class PlacementConf {
  public static final List<String> SCHEMES = List.of(StripedPlacement.AUTO, "flat", "tl", "cl", "unilrc");

  private PlacementConf() {}

  /** The scheme, trimmed and lower-cased; PlacementException naming the key and the allowed values otherwise. */
  public static String scheme(String raw) {
    String s = raw == null ? StripedPlacement.AUTO : raw.trim().toLowerCase(java.util.Locale.ROOT);
    if (s.isEmpty()) {
      return StripedPlacement.AUTO;
    }
    if (!SCHEMES.contains(s)) {
      throw new PlacementException(StripedPlacement.SCHEME_KEY + " = '" + raw + "' is not a placement scheme (allowed: "
          + String.join(", ", SCHEMES) + ")");
    }
    return s;
  }
}
