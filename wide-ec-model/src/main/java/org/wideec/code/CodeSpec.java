package org.wideec.code;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * A parsed code spec: {@code family:key=value,key=value}, e.g. {@code azure-lrc:k=12,l=2,g=2}. Values are
 * integers. Parsing checks syntax only; each construction checks its own parameters.
 */
public record CodeSpec(String family, Map<String, Integer> params) {
  public CodeSpec {
    params = Collections.unmodifiableMap(new LinkedHashMap<>(params));
  }

  public static CodeSpec parse(String text) {
    if (text == null || text.isBlank()) {
      throw new InvalidCodeSpecException("empty code spec; expected family:key=value,... e.g. rs:k=6,m=3");
    }
    String s = text.trim();
    int colon = s.indexOf(':');
    if (colon <= 0) {
      throw new InvalidCodeSpecException("code spec '" + text + "' has no family prefix; expected family:key=value,...");
    }
    String family = s.substring(0, colon).trim().toLowerCase(java.util.Locale.ROOT);
    Map<String, Integer> params = new LinkedHashMap<>();
    String body = s.substring(colon + 1).trim();
    if (!body.isEmpty()) {
      for (String part : body.split(",")) {
        int eq = part.indexOf('=');
        if (eq <= 0) {
          throw new InvalidCodeSpecException("code spec '" + text + "': parameter '" + part.trim() + "' is not key=value");
        }
        String key = part.substring(0, eq).trim().toLowerCase(java.util.Locale.ROOT);
        String value = part.substring(eq + 1).trim();
        int v;
        try {
          v = Integer.parseInt(value);
        } catch (NumberFormatException e) {
          throw new InvalidCodeSpecException("code spec '" + text + "': " + key + "='" + value + "' is not an integer");
        }
        if (params.put(key, v) != null) {
          throw new InvalidCodeSpecException("code spec '" + text + "': parameter " + key + " given twice");
        }
      }
    }
    return new CodeSpec(family, params);
  }

  /** The value of a required parameter. */
  public int require(String key) {
    Integer v = params.get(key);
    if (v == null) {
      throw new InvalidCodeSpecException(this + ": missing parameter " + key);
    }
    return v;
  }

  public boolean has(String key) {
    return params.containsKey(key);
  }

  /** Rejects parameters outside the allowed set, naming them. */
  public void allowOnly(Set<String> allowed) {
    for (String key : params.keySet()) {
      if (!allowed.contains(key)) {
        throw new InvalidCodeSpecException(this + ": unknown parameter " + key + " for " + family
            + " (allowed: " + String.join(", ", allowed) + ")");
      }
    }
  }

  /** Throws unless lo <= value <= hi. */
  public int requireInRange(String key, int lo, int hi) {
    int v = require(key);
    if (v < lo || v > hi) {
      throw new InvalidCodeSpecException(this + ": " + key + " = " + v + " must lie in " + lo + ".." + hi);
    }
    return v;
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder(family).append(':');
    boolean first = true;
    for (Map.Entry<String, Integer> e : params.entrySet()) {
      sb.append(first ? "" : ",").append(e.getKey()).append('=').append(e.getValue());
      first = false;
    }
    return sb.toString();
  }
}
