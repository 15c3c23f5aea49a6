package org.wideec.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Command-line arguments of one subcommand: positional words and {@code --name value} / {@code --switch}
 * options. Unknown options are rejected by name so a typo never passes silently.
 */
public final class Options {
  private final List<String> positional = new ArrayList<>();
  private final Map<String, String> values = new LinkedHashMap<>();

  public Options(String[] args, Set<String> valued, Set<String> switches) {
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      if (a.startsWith("--")) {
        String name = a.substring(2);
        String inline = null;
        int eq = name.indexOf('=');
        if (eq >= 0) {
          inline = name.substring(eq + 1);
          name = name.substring(0, eq);
        }
        if (switches.contains(name) && inline == null) {
          values.put(name, "true");
        } else if (valued.contains(name)) {
          if (inline == null) {
            if (i + 1 >= args.length) {
              throw new UsageException("option --" + name + " needs a value");
            }
            inline = args[++i];
          }
          values.put(name, inline);
        } else {
          throw new UsageException("unknown option --" + name);
        }
      } else {
        positional.add(a);
      }
    }
  }

  public List<String> positional() {
    return positional;
  }

  public boolean has(String name) {
    return values.containsKey(name);
  }

  public String get(String name, String dflt) {
    return values.getOrDefault(name, dflt);
  }

  String require(String name) {
    String v = values.get(name);
    if (v == null) {
      throw new UsageException("missing required option --" + name);
    }
    return v;
  }

  /**
   * The code --code names (a spec, an HDFS policy name, or a codec with --k and --m), with all its names; --cell sets
   * the cell size of the policy name (default 1m).
   */
  org.wideec.coder.CodeNames.Named code() {
    Integer k = has("k") ? (int) getLong("k", 0) : null;
    Integer m = has("m") ? (int) getLong("m", 0) : null;
    return org.wideec.coder.CodeNames.resolve(require("code"), k, m, (int) bytes("cell", org.wideec.coder.CodeNames.DEFAULT_CELL));
  }

  /** A byte count with an optional k, m, g suffix. */
  long bytes(String name, long dflt) {
    String v = values.get(name);
    if (v == null) {
      return dflt;
    }
    try {
      long b = org.apache.hadoop.util.StringUtils.TraditionalBinaryPrefix.string2long(v);
      if (b <= 0 || b > Integer.MAX_VALUE) {
        throw new NumberFormatException();
      }
      return b;
    } catch (IllegalArgumentException e) {
      throw new UsageException("--" + name + " needs a byte count such as 64k or 1m, got '" + v + "'");
    }
  }

  public long getLong(String name, long dflt) {
    String v = values.get(name);
    if (v == null) {
      return dflt;
    }
    try {
      return Long.parseLong(v);
    } catch (NumberFormatException e) {
      throw new UsageException("--" + name + " needs an integer, got '" + v + "'");
    }
  }

  /** Thrown for a command line that does not parse; the tool prints it with the usage. */
  public static final class UsageException extends IllegalArgumentException {
    public UsageException(String message) {
      super(message);
    }
  }
}
