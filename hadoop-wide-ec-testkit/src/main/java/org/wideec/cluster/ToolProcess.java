package org.wideec.cluster;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A {@code wide-ec} command run as its own JVM in the client's namespace, with this process's classpath (the cluster's
 * configuration first) and flags, and the JIT {@code bin/wide-ec} gives it: the archiver as an operator runs it, a
 * process the fault drills can kill -9; or another tool the same way (DistCp, which users run as a command too).
 */
final class ToolProcess {
  private final Process process;
  private final Path output;
  private final String command;

  private ToolProcess(Process process, Path output, String command) {
    this.process = process;
    this.output = output;
    this.command = command;
  }

  /** A {@code wide-ec} command with the JIT {@code bin/wide-ec} gives it: C1 alone unless WIDE_EC_JIT=tiered. */
  static ToolProcess start(String... args) throws IOException {
    String chosen = System.getenv("WIDE_EC_JIT");
    List<String> jit = switch (chosen == null ? "" : chosen) {
      case "", "c1" -> List.of("-XX:TieredStopAtLevel=1");
      case "tiered" -> List.of();
      default -> throw new IOException("WIDE_EC_JIT is c1 or tiered, not '" + chosen + "'");
    };
    return startMain("org.wideec.cli.WideEcTool", "wide-ec", jit, args);
  }

  /**
   * Another command line tool of the classpath (Hadoop's DistCp) as its own JVM, as its users run it: with this JVM's
   * flags, as {@code hadoop} starts its commands with the same JVM options.
   *
   * @param name what the tool is called in messages
   */
  static ToolProcess startMain(String mainClass, String name, String... args) throws IOException {
    return startMain(mainClass, name, List.of(), args);
  }

  private static ToolProcess startMain(String mainClass, String name, List<String> flags, String... args)
      throws IOException {
    List<String> c = new ArrayList<>();
    c.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    boolean ownJit = flags.stream().anyMatch(f -> f.startsWith("-XX:TieredStopAtLevel"));
    for (String a : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      if (!a.startsWith("-Xmx") && !a.startsWith("-agentlib") && !a.startsWith("-javaagent")
          && !(ownJit && a.startsWith("-XX:TieredStopAtLevel"))) {
        c.add(a);
      }
    }
    c.addAll(flags);
    c.add("-Xmx1g");
    c.add("-cp");
    c.add(System.getProperty("java.class.path"));
    c.add(mainClass);
    c.addAll(List.of(args));
    Path out = Files.createTempFile("wide-ec-tool", ".txt");
    out.toFile().deleteOnExit(); // read by this run only (its failure message carries what the tool said)
    Process p = new ProcessBuilder(c).redirectErrorStream(true).redirectOutput(out.toFile()).start();
    return new ToolProcess(p, out, name + " " + String.join(" ", args));
  }

  /** Runs to the end; throws with its output when it fails. */
  static String run(long timeoutMs, String... args) throws IOException {
    return finish(start(args), timeoutMs);
  }

  /** Waits for {@code t} to end; its output, or an exception with it when it fails. */
  static String finish(ToolProcess t, long timeoutMs) throws IOException {
    int exit = t.waitFor(timeoutMs);
    if (exit != 0) {
      // One line: callers print only an exception's first line, and the JVM's own warnings come first.
      String said = String.join(" | ", t.output().lines().filter(l -> !l.startsWith("WARNING:")).toList());
      throw new IOException(t.command + " failed (exit " + exit + "): " + said);
    }
    return t.output();
  }

  /** The exit status, or -1 (the process killed) when it runs past the timeout. */
  int waitFor(long timeoutMs) throws IOException {
    try {
      if (!process.waitFor(timeoutMs, TimeUnit.MILLISECONDS)) {
        process.destroyForcibly().waitFor();
        return -1;
      }
      return process.exitValue();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted waiting for " + command, e);
    }
  }

  /** kill -9, as a crash would. */
  void killHard() throws IOException {
    try {
      process.destroyForcibly().waitFor();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted killing " + command, e);
    }
  }

  boolean isAlive() {
    return process.isAlive();
  }

  String output() throws IOException {
    return Files.readString(output, StandardCharsets.UTF_8);
  }

  String command() {
    return command;
  }
}
