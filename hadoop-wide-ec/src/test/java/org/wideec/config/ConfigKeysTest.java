package org.wideec.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.test.GenericTestUtils.LogCapturer;
import org.junit.jupiter.api.Test;

class ConfigKeysTest {
  /** The product's sources: this module and the model and wire it folds in. */
  private static final List<Path> MAIN =
      List.of(Path.of("src/main/java"), Path.of("../wide-ec-model/src/main/java"), Path.of("../wide-ec-wire/src/main/java"));
  private static final Pattern LITERAL = Pattern.compile("\"(wide-ec\\.[a-z0-9.-]*[a-z0-9])\"");
  private static final Pattern TRANSPORT = Pattern.compile("(?:TransportConf\\.)?PREFIX \\+ \"([a-z0-9.-]+)\"");

  /** Every key the product's sources name, as a literal or as the slice port's prefix plus a literal. */
  private static Set<String> keysInSources() throws IOException {
    Set<String> keys = new TreeSet<>();
    for (Path root : MAIN) {
      try (Stream<Path> files = Files.walk(root)) {
        for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
          String src = Files.readString(f);
          Matcher m = LITERAL.matcher(src);
          while (m.find()) {
            keys.add(m.group(1));
          }
          if (f.toString().contains("/transport/")) {
            Matcher t = TRANSPORT.matcher(src);
            while (t.find()) {
              keys.add("wide-ec.transport." + t.group(1));
            }
          }
        }
      }
    }
    keys.remove("wide-ec.transport"); // the prefix itself
    return keys;
  }

  @Test
  void theCatalogueHoldsExactlyTheKeysTheSourcesRead() throws IOException {
    assertEquals(keysInSources(), ConfigKeys.ALL);
  }

  @Test
  void everyKeyTheShippedSettingsFileNamesIsKnown() throws IOException {
    String xml = Files.readString(Path.of("../conf/hdfs-site-wide-ec.xml"));
    Matcher m = Pattern.compile("<name>(wide-ec\\.[^<]+)</name>").matcher(xml);
    Set<String> named = new TreeSet<>();
    while (m.find()) {
      named.add(m.group(1));
    }
    assertTrue(named.size() > 10, "the settings file names our keys: " + named);
    named.removeAll(ConfigKeys.ALL);
    assertEquals(Set.of(), named, "keys in conf/hdfs-site-wide-ec.xml that nothing reads");
  }

  @Test
  void aMisspeltKeyIsNamedWithTheKeyItMeant() {
    List<ConfigKeys.Unknown> u = ConfigKeys.unknown(List.of("wide-ec.placment.scheme", "wide-ec.repair.scheme",
        "dfs.replication", "wide-ec.something.else.entirely"));
    assertEquals(List.of(new ConfigKeys.Unknown("wide-ec.placment.scheme", "wide-ec.placement.scheme"),
        new ConfigKeys.Unknown("wide-ec.something.else.entirely", null)), u);
    assertEquals("unknown configuration key wide-ec.placment.scheme (nothing reads it; did you mean"
        + " wide-ec.placement.scheme?)", u.get(0).toString());
    assertNull(ConfigKeys.nearest("wide-ec.zzzzzzzzzzzzzzzzzzzzzz"));
  }

  @Test
  void anUnknownKeyIsLoggedOncePerProcess() {
    Configuration conf = new Configuration(false);
    conf.set("wide-ec.repair.shceme", "pipelined");
    conf.set("wide-ec.repair.scheme", "pipelined");
    LogCapturer log = LogCapturer.captureLogs(org.apache.log4j.Logger.getLogger(UnknownKeys.class));
    try {
      for (int i = 0; i < 3; i++) {
        assertEquals(List.of(new ConfigKeys.Unknown("wide-ec.repair.shceme", "wide-ec.repair.scheme")),
            UnknownKeys.warn(conf, "test"));
      }
      String out = log.getOutput();
      assertEquals(1, out.split("wide-ec.repair.shceme", -1).length - 1, out);
      assertTrue(out.contains("did you mean wide-ec.repair.scheme?"), out);
    } finally {
      log.stopCapturing();
    }
  }
}
