package org.wideec.cli;

import java.io.PrintStream;
import java.util.ServiceLoader;
import org.apache.hadoop.conf.Configuration;

/**
 * A {@code wide-ec} command whose implementation lives in the test kit ({@code hadoop-wide-ec-testkit}): {@code demo}
 * and {@code bench} run embedded HDFS clusters, which a NameNode, DataNode or client never loads, so the product jar
 * only knows their names and usage and finds them with {@link ServiceLoader} when the kit is on the classpath.
 */
public interface KitCommand {
  /** The subcommand it implements, e.g. {@code demo}. */
  String name();

  /** Runs the command; the return value is the exit code, as for every {@code wide-ec} command. */
  int run(Configuration conf, PrintStream out, String[] args) throws Exception;

  /**
   * The kit's implementation of {@code command}. Without the kit (an installed wide-ec) it throws an
   * IllegalStateException whose message says what is needed, which the tool prints as one line with exit code 3.
   */
  static KitCommand named(String command) {
    // The context loader first: under `hadoop jar` it is RunJar's, which also sees the jars on HADOOP_CLASSPATH.
    ClassLoader loader = Thread.currentThread().getContextClassLoader();
    for (KitCommand c : ServiceLoader.load(KitCommand.class, loader != null ? loader : KitCommand.class.getClassLoader())) {
      if (c.name().equals(command)) {
        return c;
      }
    }
    throw new IllegalStateException(command + " needs the hadoop-wide-ec test kit (a source checkout: bin/wide-ec "
        + command + "); an installed wide-ec runs codes, policy, analyze, fsck, nodes and check-cluster");
  }
}
