package org.wideec.hdfs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.security.PrivilegedExceptionAction;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.util.ToolRunner;
import org.wideec.cli.WideEcTool;

/** One in-process run of the {@code wide-ec} tool, as an operator would type it: exit code, stdout and stderr. */
record ToolRun(int exit, String out, String err) {
  /**
   * Runs the tool on a copy of {@code conf}: Hadoop's option parser writes a command line's {@code -D} settings into
   * the configuration it is given, and the test's configuration is shared by every later run and by the test's own
   * FileSystem. A command line that sets options also gets a FileSystem of its own, made from them (the cached one
   * keeps the configuration it was made with), as the tool's own JVM would; it is closed when the run ends.
   */
  static ToolRun of(Configuration conf, String... args) throws Exception {
    Configuration own = new Configuration(conf);
    if (!java.util.Arrays.stream(args).anyMatch(a -> a.startsWith("-D") || a.equals("-conf") || a.equals("-fs"))) {
      return run(own, args);
    }
    UserGroupInformation me = UserGroupInformation.getCurrentUser();
    UserGroupInformation fresh = UserGroupInformation.createRemoteUser(me.getUserName());
    fresh.addCredentials(me.getCredentials());
    try {
      return fresh.doAs((PrivilegedExceptionAction<ToolRun>) () -> run(own, args));
    } finally {
      FileSystem.closeAllForUGI(fresh);
    }
  }

  private static ToolRun run(Configuration conf, String... args) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int rc = ToolRunner.run(conf, new WideEcTool(new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8)), args);
    return new ToolRun(rc, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  /** Stdout as JSON (the commands' --json output). */
  JsonNode json() throws Exception {
    return new ObjectMapper().readTree(out);
  }
}
