package org.wideec.install;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * An unpacked distribution, laid out by {@code dev-support/dist.sh --stage} (so its file list lives in one place),
 * whose {@code bin/wide-ec} runs with a chosen PATH and HADOOP_CONF_DIR and nothing else of this JVM's environment
 * that Hadoop's launcher reads.
 */
final class StagedDistribution {
  /** One run of a command: its exit code and what it printed. */
  record Run(String command, int exit, String out, String err) {
    @Override
    public String toString() {
      return command + " -> exit " + exit + "\n--- stdout\n" + out + "--- stderr\n" + err;
    }
  }

  private static final long TIMEOUT_SECONDS = 60;
  private final Path root;
  private final Path work;
  private final Map<String, String> env;

  private StagedDistribution(Path root, Path work, Map<String, String> env) {
    this.root = root;
    this.work = work;
    this.env = env;
  }

  /** Stages the distribution of the source tree {@code source} (built by Maven) into {@code root}. */
  static StagedDistribution stage(Path source, Path root, Path work) throws IOException, InterruptedException {
    Files.createDirectories(work);
    // The JDK's own tools (jar, java) first: dist.sh lists the product jar with `jar`.
    String path = Path.of(System.getProperty("java.home"), "bin") + ":" + System.getenv("PATH");
    Run staged = run(List.of("bash", source.resolve("dev-support/dist.sh").toString(), "--stage", root.toString()), work,
        Map.of("PATH", path));
    if (staged.exit() != 0) {
      throw new IOException("dist.sh --stage failed: " + staged);
    }
    return new StagedDistribution(root, work, Map.of("PATH", path));
  }

  Path root() {
    return root;
  }

  /** The same distribution, run with {@code binDir} first on PATH and HADOOP_CONF_DIR set. */
  StagedDistribution with(Path binDir, Path hadoopConfDir) {
    return new StagedDistribution(root, work, Map.of("PATH", binDir + ":" + env.get("PATH"),
        "HADOOP_CONF_DIR", hadoopConfDir.toString()));
  }

  /** Runs the installed {@code bin/wide-ec ARGS} in the work directory. */
  Run wideEc(String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of("bash", root.resolve("bin/wide-ec").toString()));
    command.addAll(List.of(args));
    return run(command, work, env);
  }

  private static Run run(List<String> command, Path dir, Map<String, String> env) throws IOException, InterruptedException {
    ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile());
    // Nothing of the caller's Hadoop set-up leaks in: the run sees the launcher and configuration it is given.
    for (String name : List.of("HADOOP_CLASSPATH", "HADOOP_CONF_DIR", "HADOOP_HOME", "HADOOP_OPTS", "JAVA_LIBRARY_PATH",
        "WIDE_EC_JAR", "WIDE_EC_JAVA_OPTS", "WIDE_EC_DEBUG")) {
      pb.environment().remove(name);
    }
    pb.environment().putAll(env);
    Path out = Files.createTempFile(dir, "stdout", ".txt");
    Path err = Files.createTempFile(dir, "stderr", ".txt");
    Process p = pb.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    if (!p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
      throw new IOException(String.join(" ", command) + " did not finish in " + TIMEOUT_SECONDS + " s; stderr so far: "
          + Files.readString(err, StandardCharsets.UTF_8));
    }
    return new Run(String.join(" ", command.subList(1, command.size())), p.exitValue(),
        Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8));
  }
}
