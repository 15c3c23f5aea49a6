package org.wideec.cli;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * benchmarks/RESULTS.md is shared by several benchmarks, each owning one top-level section ("# ..."): a
 * benchmark rewrites its own section and keeps the others.
 */
public final class ResultsFile {
  private ResultsFile() {}

  /** Replaces (or appends) the section that starts with the first line of {@code section}. */
  public static void writeSection(Path file, String section) throws IOException {
    String heading = section.lines().findFirst().orElseThrow();
    if (!heading.startsWith("# ")) {
      throw new IllegalArgumentException("a results section starts with a '# ' heading, not: " + heading);
    }
    String text = section.endsWith("\n") ? section : section + "\n";
    // Sections of the current file, each starting at a "# " line (anything before the first is kept as is).
    List<StringBuilder> sections = new ArrayList<>();
    sections.add(new StringBuilder());
    if (Files.exists(file)) {
      for (String line : Files.readAllLines(file)) {
        if (line.startsWith("# ")) {
          sections.add(new StringBuilder());
        }
        sections.get(sections.size() - 1).append(line).append('\n');
      }
    }
    StringBuilder out = new StringBuilder();
    boolean placed = false;
    for (StringBuilder s : sections) {
      if (s.toString().startsWith(heading + "\n")) {
        out.append(text);
        placed = true;
      } else {
        out.append(s);
      }
    }
    if (!placed) {
      if (out.length() > 0 && !out.toString().endsWith("\n\n")) {
        out.append('\n');
      }
      out.append(text);
    }
    Path parent = file.toAbsolutePath().getParent();
    Files.createDirectories(parent);
    Files.writeString(file, out.toString());
  }

  /** CPU model, cores, heap and OS: the machine line of every results section. */
  public static String machine() {
    String model = "unknown CPU";
    try {
      for (String line : Files.readAllLines(new File("/proc/cpuinfo").toPath())) {
        if (line.startsWith("model name")) {
          model = line.substring(line.indexOf(':') + 1).trim();
          break;
        }
      }
    } catch (IOException e) {
      // keep "unknown CPU"
    }
    return model + ", " + Runtime.getRuntime().availableProcessors() + " cores, "
        + (Runtime.getRuntime().maxMemory() >> 20) + " MiB max heap, " + System.getProperty("os.name") + " "
        + System.getProperty("os.arch");
  }
}
