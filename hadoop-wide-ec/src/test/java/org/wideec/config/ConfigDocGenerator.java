package org.wideec.config;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Collectors;
import org.wideec.config.ConfigKey.Area;
import org.wideec.config.ConfigKey.Role;

/**
 * Writes docs/configuration.md from {@link ConfigCatalogue}: a table per area (key, default, read by, meaning) and
 * the keys each process reads. Development only ({@code dev-support/generate-config-doc.sh}); ConfigCatalogueTest
 * fails while the checked-in file differs from what this renders.
 */
public final class ConfigDocGenerator {
  static final String DOC = "docs/configuration.md";

  private ConfigDocGenerator() {}

  /** The document, as checked in. */
  static String markdown() {
    StringBuilder out = new StringBuilder();
    out.append("# Configuration keys\n\n")
        .append("<!-- Generated: do not edit. Change hadoop-wide-ec/src/main/java/org/wideec/config/"
            + "ConfigCatalogue.java and run dev-support/generate-config-doc.sh. -->\n\n")
        .append("Generated from `org.wideec.config.ConfigCatalogue` by `dev-support/generate-config-doc.sh`;"
            + " `ConfigCatalogueTest` fails while this file, the catalogue and `conf/hdfs-site-wide-ec.xml`"
            + " disagree. Every key lives under `wide-ec.`; a key under `wide-ec.` that nothing reads is logged once"
            + " per process with the nearest known key. A default is the value the code applies when the key is"
            + " unset; a derived default names what it follows and what that gives when everything is unset."
            + " The pages of docs/ (docs/README.md lists them) tell the longer story of each area.\n");
    for (Area area : Area.values()) {
      out.append("\n## ").append(area.title).append("\n\n").append(area.intro).append("\n\n")
          .append("| key | default | read by | meaning |\n|---|---|---|---|\n");
      ConfigCatalogue.KEYS.stream().filter(k -> k.area() == area).forEach(k -> out.append("| `").append(k.name())
          .append("` | ").append(cell(k.defaultText())).append(" | ").append(readers(k)).append(" | ")
          .append(cell(k.doc())).append(" |\n"));
    }
    out.append("\n## Keys by process\n\n");
    for (Role role : Role.values()) {
      out.append("- ").append(role.label).append(": ").append(ConfigCatalogue.KEYS.stream()
          .filter(k -> k.readBy().contains(role)).map(k -> "`" + k.name() + "`").sorted()
          .collect(Collectors.joining(", "))).append("\n");
    }
    return out.toString();
  }

  private static String readers(ConfigKey k) {
    return k.readBy().stream().sorted(Comparator.naturalOrder()).map(r -> r.label).collect(Collectors.joining(", "));
  }

  /** A table cell: a pipe would end it. */
  private static String cell(String s) {
    return s.replace("|", "\\|");
  }

  /** Writes (or with {@code --check} compares) the document under the repository root given as the first argument. */
  public static void main(String[] args) throws IOException {
    Path file = Path.of(args.length > 0 ? args[0] : ".").resolve(DOC);
    String doc = markdown();
    if (args.length > 1 && args[1].equals("--check")) {
      boolean same = Files.exists(file) && Files.readString(file).equals(doc);
      System.out.println(file + (same ? " is up to date" : " differs from the catalogue: run without --check"));
      System.exit(same ? 0 : 1);
    }
    Files.createDirectories(file.getParent());
    Files.writeString(file, doc, StandardCharsets.UTF_8);
    System.out.println("wrote " + file);
  }
}
