package org.wideec.hdfs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.util.ToolRunner;
import org.wideec.cli.WideEcTool;

/** One in-process run of the {@code wide-ec} tool, as an operator would type it: exit code, stdout and stderr. */
record ToolRun(int exit, String out, String err) {
  static ToolRun of(Configuration conf, String... args) throws Exception {
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
