package org.wideec.cli;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.UnknownHostException;

/**
 * One line for an exception that ends a command: what went wrong in the operator's terms, never a stack trace.
 * Expected failures (bad values, unreachable services, I/O) say what to do; anything else is a bug and says so.
 */
final class CliErrors {
  private CliErrors() {}

  /** Whether the exception is a bug of ours rather than a problem with the input or the cluster. */
  static boolean internal(Throwable e) {
    return !(e instanceof IllegalArgumentException || e instanceof IllegalStateException || e instanceof IOException
        || e instanceof UnsupportedOperationException);
  }

  static String describe(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    if (root instanceof ConnectException) {
      // Hadoop's message names the target amid a wiki link and the exception's class: keep the target only.
      java.util.regex.Matcher m = java.util.regex.Pattern.compile(" to (\\S+) failed").matcher(firstLine(e));
      boolean rpc = m.find();
      if (!rpc && e != root) {
        // Not Hadoop's RPC client (a web UI, a DataNode's port): its own message names what was dialled.
        return "cannot connect: " + root.getMessage() + " (" + firstLine(e) + ")";
      }
      return "cannot connect to " + (rpc ? m.group(1) : "the NameNode") + ": " + root.getMessage()
          + " (is the NameNode running, and fs.defaultFS / HADOOP_CONF_DIR right?)";
    }
    if (root instanceof UnknownHostException) {
      return "unknown host " + root.getMessage() + " (check fs.defaultFS / HADOOP_CONF_DIR)";
    }
    if (root instanceof ClassNotFoundException && e.getMessage() != null && e.getMessage().contains("FileSystem")) {
      return "no file system for that path on this classpath (" + root.getMessage() + "); wide-ec works on HDFS paths";
    }
    if (e instanceof FileNotFoundException) {
      return "not found: " + firstLine(e);
    }
    if (internal(e)) {
      return "internal error: " + e.getClass().getSimpleName() + ": " + firstLine(e)
          + " (a bug; rerun with WIDE_EC_DEBUG=1 and report the stack trace)";
    }
    return firstLine(e);
  }

  /** What a command needs that this installation lacks, from the class it could not load. */
  static String missingClass(String command, LinkageError e) {
    String cls = String.valueOf(e.getMessage()).replace('/', '.');
    if (cls.contains("MiniDFSCluster") || cls.contains("org.wideec.demo") || cls.contains("org.wideec.minicluster")) {
      return command + " runs embedded HDFS clusters, which need the hadoop-wide-ec test kit and Hadoop's test jars: "
          + "run it from a source checkout (bin/wide-ec " + command + " there builds the classpath), not from an installed "
          + "Hadoop (missing " + cls + ")";
    }
    if (cls.contains("jfree")) {
      return "charts need JFreeChart on the classpath (jfreechart and jfreesvg, shipped beside the wide-ec jar); "
          + "without --plot the command runs (missing " + cls + ")";
    }
    return "this installation lacks a class the command needs (" + cls + "); is the wide-ec jar complete and "
        + "on the classpath of a supported Hadoop (3.4.3 or 3.5.0)?";
  }

  private static String firstLine(Throwable e) {
    String m = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    int nl = m.indexOf('\n');
    return nl < 0 ? m : m.substring(0, nl);
  }
}
