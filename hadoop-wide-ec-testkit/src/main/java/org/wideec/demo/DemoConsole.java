package org.wideec.demo;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.util.ToolRunner;
import org.wideec.cli.WideEcTool;

/**
 * How the demos talk to the operator: numbered-free steps, the command an operator would type, and that command
 * run for real through the product's tool against the embedded cluster, its output indented.
 */
final class DemoConsole {
  private final PrintStream out;
  private final String tag;

  DemoConsole(PrintStream out, String tag) {
    this.out = out;
    this.tag = tag;
  }

  PrintStream out() {
    return out;
  }

  void step(String s) {
    out.println("[" + tag + "] " + s);
    out.flush();
  }

  void command(String c) {
    out.println("    $ " + c);
  }

  /** What {@code bin/wide-ec ARGS} prints, run in this process against the cluster; its exit status. */
  Run tool(MiniDFSCluster cluster, String... args) throws Exception {
    return run(new Configuration(cluster.getConfiguration(0)), false, args);
  }

  /**
   * As {@link #tool(MiniDFSCluster, String...)} with the given configuration (a cluster's and more, such as where
   * YARN is), and the tool's stderr (a job's id and progress) shown indented as it comes, not only kept.
   */
  Run toolShowingProgress(Configuration conf, String... args) throws Exception {
    return run(new Configuration(conf), true, args);
  }

  private Run run(Configuration conf, boolean showErr, String... args) throws Exception {
    command("bin/wide-ec " + String.join(" ", args));
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    OutputStream errTo = showErr ? new Indented(err, out) : err;
    int rc = ToolRunner.run(conf, new WideEcTool(new PrintStream(buf, true, StandardCharsets.UTF_8),
        new PrintStream(errTo, true, StandardCharsets.UTF_8)), args);
    out.flush();
    return new Run(rc, buf.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  /** Prints a run's output indented, at most {@code maxLines} lines of it. */
  void show(Run r, int maxLines) {
    String[] lines = r.out().split("\n");
    for (int i = 0; i < Math.min(lines.length, maxLines); i++) {
      out.println("    " + lines[i]);
    }
    if (lines.length > maxLines) {
      out.println("    ... (" + (lines.length - maxLines) + " more lines)");
    }
    out.println("    (exit " + r.rc() + ")");
    out.flush();
  }

  /** Keeps every byte and copies it to the console, each line (also one rewritten after a carriage return) indented. */
  private static final class Indented extends OutputStream {
    private final ByteArrayOutputStream kept;
    private final PrintStream console;
    private boolean lineStart = true;

    Indented(ByteArrayOutputStream kept, PrintStream console) {
      this.kept = kept;
      this.console = console;
    }

    @Override
    public void write(int b) {
      kept.write(b);
      boolean lineEnd = b == '\n' || b == '\r';
      if (lineStart && !lineEnd) {
        console.print("    ");
      }
      console.write(b);
      lineStart = lineEnd;
      if (lineEnd) {
        console.flush();
      }
    }
  }

  /** One run of the tool. */
  record Run(int rc, String out, String err) {}
}
