package org.wideec.demo;

import java.io.ByteArrayOutputStream;
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
    command("bin/wide-ec " + String.join(" ", args));
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int rc = ToolRunner.run(new Configuration(cluster.getConfiguration(0)),
        new WideEcTool(new PrintStream(buf, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8)),
        args);
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

  /** One run of the tool. */
  record Run(int rc, String out, String err) {}
}
