package org.wideec.install;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * A {@code hadoop} launcher made of Hadoop's own jars, for running an installed {@code bin/wide-ec} without a Hadoop
 * installation. It does what {@code bin/wide-ec} asks of the real launcher, the way the real one does it:
 * {@code hadoop jar JAR CLASS ARGS} through Hadoop's RunJar, and {@code hadoop classpath}; HADOOP_CONF_DIR first on
 * the classpath, HADOOP_CLASSPATH after Hadoop's jars, JAVA_LIBRARY_PATH as java.library.path, HADOOP_OPTS to the JVM.
 */
final class HadoopStandIn {
  /**
   * What a Hadoop installation does not hold: Hadoop's test jars (MiniDFSCluster), our own artifacts and the charting
   * jars (the distribution must bring those), and the test frameworks.
   */
  private static final Pattern NOT_HADOOP = Pattern.compile(
      ".*(-tests\\.jar|/org/wideec/.*|/hadoop-wide-ec[^/]*/target/.*|/org/jfree/.*|/org/junit/.*|/org/opentest4j/.*"
          + "|/org/apiguardian/.*)");

  private HadoopStandIn() {}

  /** Writes {@code dir/hadoop} and returns dir, to put first on PATH. */
  static Path write(Path dir) throws IOException {
    Files.createDirectories(dir);
    Path script = dir.resolve("hadoop");
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Files.writeString(script, String.join("\n",
        "#!/usr/bin/env bash",
        "# A stand-in for Hadoop's bin/hadoop made of Hadoop's jars (written by " + HadoopStandIn.class.getName() + ").",
        "set -euo pipefail",
        "cp='" + String.join(File.pathSeparator, hadoopJars()) + "'",
        "cp=\"${HADOOP_CONF_DIR:+$HADOOP_CONF_DIR:}$cp${HADOOP_CLASSPATH:+:$HADOOP_CLASSPATH}\"",
        "case \"${1:-}\" in",
        "  classpath) echo \"$cp\" ;;",
        "  jar)",
        "    [ $# -ge 2 ] || { echo 'Usage: hadoop jar <jar> [mainClass] args...' >&2; exit 1; }",
        "    shift",
        "    exec '" + java + "' ${HADOOP_OPTS:-} ${JAVA_LIBRARY_PATH:+\"-Djava.library.path=$JAVA_LIBRARY_PATH\"} \\",
        "      -cp \"$cp\" org.apache.hadoop.util.RunJar \"$@\" ;;",
        "  *) echo \"hadoop (test stand-in): only 'jar' and 'classpath', not '${1:-}'\" >&2; exit 1 ;;",
        "esac",
        ""));
    Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
    return dir;
  }

  /** The Hadoop jars of this test's classpath (surefire passes it in a property; its own is a booter jar). */
  static List<String> hadoopJars() {
    String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    List<String> jars = new ArrayList<>();
    for (String entry : classpath.split(File.pathSeparator)) {
      if (entry.endsWith(".jar") && !NOT_HADOOP.matcher(entry).matches()) {
        jars.add(entry);
      }
    }
    if (jars.stream().noneMatch(j -> j.contains("/hadoop-common-")) || jars.stream().noneMatch(j -> j.contains("/hadoop-hdfs-"))) {
      throw new IllegalStateException("no hadoop-common or hadoop-hdfs jar on the test classpath: " + classpath);
    }
    return jars;
  }
}
