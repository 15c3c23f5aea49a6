package org.wideec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The layers of DESIGN.md §4 (model <- wire <- hdfs <- cli), checked on the sources of the three product modules.
 * Maven already keeps Hadoop and Netty out of the model and Hadoop out of the wire (enforcer rules in their poms);
 * the HDFS layer and the CLI share this module, so this test is what keeps an arrow from pointing up between them
 * (or from the model to the wire, which the reactor order alone would also refuse to compile).
 */
class LayerRulesTest {
  private static final Path MODULE = Path.of("").toAbsolutePath();
  private static final Map<String, Path> ROOTS = Map.of(
      "wide-ec-model", MODULE.resolveSibling("wide-ec-model").resolve("src/main/java"),
      "wide-ec-wire", MODULE.resolveSibling("wide-ec-wire").resolve("src/main/java"),
      "hadoop-wide-ec", MODULE.resolve("src/main/java"));
  private static final Pattern OURS = Pattern.compile("\\borg\\.wideec((?:\\.[a-z][a-z0-9]*)*)\\.(?:[A-Z]|\\*)");
  private static final Pattern PACKAGE = Pattern.compile("(?m)^package ([a-z0-9.]+);");

  enum Layer { MODEL, WIRE, HDFS, CLI }

  static Layer layerOf(String pkg) {
    return switch (pkg) {
      case "org.wideec.gf", "org.wideec.code", "org.wideec.coder", "org.wideec.topology", "org.wideec.analysis",
          "org.wideec.placement", "org.wideec.archive", "org.wideec.archive.encode", "org.wideec.repair",
          "org.wideec.time", "org.wideec.update", "org.wideec.scrub" -> Layer.MODEL;
      case "org.wideec.transport", "org.wideec.protocol", "org.wideec.engine" -> Layer.WIRE;
      case "org.wideec.cli" -> Layer.CLI;
      default -> Layer.HDFS;
    };
  }

  @Test
  void everyPackageSitsInTheModuleOfItsLayer() throws IOException {
    List<String> misplaced = new ArrayList<>();
    for (Map.Entry<String, Path> root : ROOTS.entrySet()) {
      Layer expected = switch (root.getKey()) {
        case "wide-ec-model" -> Layer.MODEL;
        case "wide-ec-wire" -> Layer.WIRE;
        default -> null; // the HDFS layer and the CLI
      };
      for (Path f : sources(root.getValue())) {
        Layer l = layerOf(packageOf(f));
        boolean ok = expected == null ? l == Layer.HDFS || l == Layer.CLI : l == expected;
        if (!ok) {
          misplaced.add(root.getKey() + ": " + f.getFileName() + " (" + packageOf(f) + ", " + l + ")");
        }
      }
    }
    assertEquals(List.of(), misplaced);
  }

  @Test
  void noArrowPointsUpALayer() throws IOException {
    TreeSet<String> against = new TreeSet<>();
    int files = 0;
    for (Path root : ROOTS.values()) {
      for (Path f : sources(root)) {
        files++;
        String pkg = packageOf(f);
        Matcher m = OURS.matcher(code(Files.readString(f)));
        while (m.find()) {
          String used = "org.wideec" + m.group(1);
          if (layerOf(used).compareTo(layerOf(pkg)) > 0) {
            against.add(pkg + " (" + layerOf(pkg) + ") -> " + used + " (" + layerOf(used) + ") in " + f.getFileName());
          }
        }
      }
    }
    assertTrue(files > 300, "read only " + files + " sources from " + ROOTS.values());
    assertEquals(List.of(), List.copyOf(against));
  }

  @Test
  void theRuleSeesAnArrowUp() {
    // The check itself: a CLI class named from the HDFS layer is an arrow up; a comment or a string is not.
    String source = "package org.wideec.client;\n// org.wideec.cli.Json in a comment\nimport org.wideec.cli.*;\n"
        + "class X { String s = \"/* org.wideec.cli.Table\"; org.wideec.cli.Json j; }\n";
    Matcher m = OURS.matcher(code(source));
    List<String> used = new ArrayList<>();
    while (m.find()) {
      used.add("org.wideec" + m.group(1));
    }
    assertEquals(List.of("org.wideec.cli", "org.wideec.cli"), used);
    assertTrue(layerOf("org.wideec.cli").compareTo(layerOf("org.wideec.client")) > 0);
  }

  private static List<Path> sources(Path root) throws IOException {
    try (Stream<Path> s = Files.walk(root)) {
      return s.filter(p -> p.toString().endsWith(".java")).sorted().toList();
    }
  }

  private static String packageOf(Path f) throws IOException {
    Matcher m = PACKAGE.matcher(Files.readString(f));
    return m.find() ? m.group(1) : "";
  }

  /** The code only: comments, string and character literals blanked (one pass, so each hides the others), and the
   * package line dropped. */
  static String code(String source) {
    StringBuilder out = new StringBuilder(source.length());
    int i = 0;
    while (i < source.length()) {
      char c = source.charAt(i);
      if (source.startsWith("/*", i)) {
        int end = source.indexOf("*/", i + 2);
        i = end < 0 ? source.length() : end + 2;
        out.append(' ');
      } else if (source.startsWith("//", i)) {
        int end = source.indexOf('\n', i);
        i = end < 0 ? source.length() : end;
      } else if (c == '"' || c == '\'') {
        int j = i + 1;
        while (j < source.length() && source.charAt(j) != c && source.charAt(j) != '\n') {
          j += source.charAt(j) == '\\' ? 2 : 1;
        }
        i = Math.min(j + 1, source.length());
        out.append(c).append(c);
      } else {
        out.append(c);
        i++;
      }
    }
    return out.toString().replaceAll("(?m)^package [^;]+;", " ");
  }
}
