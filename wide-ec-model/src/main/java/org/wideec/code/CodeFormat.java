package org.wideec.code;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The on-disk format: a codec name plus (k, m), or a spec, must always mean the same generator matrix
 * (DESIGN.md §2). The coefficients of every code that may define stored bytes are checked-in data, the
 * table {@code format-1.coefficients} next to this class, chosen once at development time by the
 * constructions of this version (dev-support/generate-format.sh) and never searched for on a cluster. New
 * coefficients for a spec need a new format version or a new codec name, never the same name with other
 * bytes; golden vectors (GoldenVectorTest) fail the build when any byte moves.
 *
 * <p>The table is read once, on first use, so a NameNode that never meets our codecs never reads it.
 */
public final class CodeFormat {
  /** The format whose table this build carries. */
  public static final int FORMAT_VERSION = 1;
  static final String RESOURCE = "format-" + FORMAT_VERSION + ".coefficients";
  private static final String HEADER = "format\t";

  private CodeFormat() {}

  /** The table, or why it could not be read (then nothing is pinned and stored data is refused). */
  private static final class Table {
    static final Map<String, PinnedCode> CODES;
    static final String FAILURE;

    static {
      Map<String, PinnedCode> codes = Map.of();
      String failure = null;
      try (InputStream in = CodeFormat.class.getResourceAsStream(RESOURCE)) {
        if (in == null) {
          failure = "coefficient table " + RESOURCE + " is missing from the classpath (incomplete jar?)";
        } else {
          codes = read(new InputStreamReader(in, StandardCharsets.UTF_8), RESOURCE);
        }
      } catch (IOException | IllegalArgumentException e) {
        failure = "coefficient table " + RESOURCE + " is unreadable: " + e.getMessage();
      }
      CODES = codes;
      FAILURE = failure;
    }
  }

  /** True when the spec (any parameter order) names a code whose coefficients this format pins. */
  public static boolean isPinned(String spec) {
    return Table.CODES.containsKey(Codes.canonical(spec));
  }

  /** The canonical specs of every pinned code, in table order. */
  public static Set<String> pinnedSpecs() {
    return Collections.unmodifiableSet(Table.CODES.keySet());
  }

  /** Why no code is pinned, or null when the table loaded. */
  static String tableFailure() {
    return Table.FAILURE;
  }

  static PinnedCode lookup(String canonicalSpec) {
    return Table.CODES.get(canonicalSpec);
  }

  static Map<String, PinnedCode> read(Reader reader, String source) throws IOException {
    Map<String, PinnedCode> codes = new LinkedHashMap<>();
    BufferedReader in = new BufferedReader(reader);
    boolean versionSeen = false;
    int lineNo = 0;
    for (String line = in.readLine(); line != null; line = in.readLine()) {
      lineNo++;
      if (line.isBlank() || line.startsWith("#")) {
        continue;
      }
      String where = source + ":" + lineNo;
      if (!versionSeen) {
        if (!line.equals(HEADER + FORMAT_VERSION)) {
          throw new IllegalArgumentException(where + ": expected '" + HEADER.trim() + " " + FORMAT_VERSION
              + "' before any code, got '" + line + "'");
        }
        versionSeen = true;
        continue;
      }
      PinnedCode c = PinnedCode.parse(line, where);
      if (codes.put(c.spec(), c) != null) {
        throw new IllegalArgumentException(where + ": " + c.spec() + " pinned twice");
      }
    }
    if (!versionSeen) {
      throw new IllegalArgumentException(source + ": no '" + HEADER.trim() + " " + FORMAT_VERSION + "' line");
    }
    return codes;
  }

  /** Writes a table of this format version (the generator's output); {@code comment} lines go first. */
  static void write(Writer out, Collection<String> comment, Collection<PinnedCode> codes) {
    try {
      for (String c : comment) {
        out.write("# " + c + "\n");
      }
      out.write(HEADER + FORMAT_VERSION + "\n");
      for (PinnedCode c : codes) {
        out.write(c.toLine() + "\n");
      }
      out.flush();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
