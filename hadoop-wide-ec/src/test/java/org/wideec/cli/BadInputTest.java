package org.wideec.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.util.ToolRunner;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The operator probe's bad inputs: each ends with its documented exit code and one line on stderr that names the
 * command and says what is wrong, never a stack trace, an overflowed count or a silently ignored option.
 */
class BadInputTest {
  static Stream<Arguments> inputs() {
    return Stream.of(
        // command line
        bad(2, "unknown command 'codez'", "codez"),
        bad(2, "unknown command", "--frobnicate"),
        bad(2, "unknown command 'nope'", "help", "nope"),
        bad(2, "archive: Hadoop's generic option -D goes before the command: wide-ec -D ... archive ...", "archive",
            "/a", "-D", "wide-ec.archive.chain.concurrent-stripes=2"),
        bad(2, "status: Hadoop's generic option -D goes before the command", "status", "/a", "-Dk=v"),
        bad(2, "codes needs one of: list, describe, verify", "codes"),
        bad(2, "codes needs one of", "codes", "explain"),
        bad(2, "missing required option --code", "codes", "describe"),
        bad(2, "option --code needs a value", "codes", "describe", "--code"),
        bad(2, "unknown option --cod", "codes", "describe", "--cod", "rs:k=6,m=3"),
        bad(2, "--failures must lie in 0..9", "codes", "verify", "--code", "rs:k=6,m=3", "--failures", "60"),
        bad(2, "--failures needs an integer, got 'three'", "codes", "verify", "--code", "rs:k=6,m=3", "--failures", "three"),
        bad(2, "--samples must be positive", "codes", "verify", "--code", "rs:k=6,m=3", "--failures", "2", "--samples", "0"),
        bad(2, "--samples needs an integer", "codes", "verify", "--code", "rs:k=6,m=3", "--failures", "2", "--samples", "1e9"),
        bad(2, "too many to enumerate (about ", "codes", "verify", "--code", "rs:k=200,m=55", "--failures", "30"),
        // code specs
        bad(3, "need 1 <= k < n (at least one parity unit)", "codes", "describe", "--code", "rs:k=6,m=0"),
        bad(3, "need 1 <= k < n (at least one parity unit)", "codes", "describe", "--code", "rapidraid:n=8,k=8"),
        bad(3, "RapidRAID needs k <= n <= 2k", "codes", "describe", "--code", "rapidraid:n=20,k=8"),
        bad(3, "exceeds", "codes", "describe", "--code", "rs:k=250,m=10"),
        bad(3, "unknown code family 'reed'", "codes", "describe", "--code", "reed:k=6,m=3"),
        bad(3, "'k=6,m=3' is neither a code spec (family:key=value,...)", "codes", "describe", "--code", "k=6,m=3"),
        bad(3, "rs:k=-1,m=3", "codes", "describe", "--code", "rs:k=-1,m=3"),
        bad(3, "rs:k=x,m=3", "codes", "describe", "--code", "rs:k=x,m=3"),
        bad(3, "azure-lrc", "codes", "describe", "--code", "azure-lrc:k=12,l=13,g=2"),
        bad(3, "azure-lrc", "codes", "describe", "--code", "azure-lrc:k=12,l=0,g=2"),
        bad(3, "unilrc", "codes", "describe", "--code", "unilrc:alpha=0,z=6"),
        bad(3, "rs:k=6,m=3,q=1", "codes", "describe", "--code", "rs:k=6,m=3,q=1"),
        bad(3, "rs:k=6,m=3,k=7", "codes", "describe", "--code", "rs:k=6,m=3,k=7"),
        // analyze
        bad(2, "--racks must lie in 1..1000000, got 1000000000", "analyze", "--code", "rs:k=6,m=3", "--placement", "flat",
            "--racks", "1000000000"),
        bad(2, "--racks must lie in 1..1000000, got 0", "analyze", "--code", "rs:k=6,m=3", "--racks", "0"),
        bad(2, "--t (local groups per rack) applies to --placement unilrc only", "analyze", "--code", "rs:k=6,m=3",
            "--placement", "flat", "--t", "100"),
        bad(2, "--t must lie in 1..", "analyze", "--code", "unilrc:alpha=1,z=6", "--placement", "unilrc", "--t", "100"),
        bad(3, "unknown placement 'ring'", "analyze", "--code", "rs:k=6,m=3", "--placement", "ring"),
        bad(2, "analyze takes --code ..., 'cl' or 'sweep', not 'sweeps'", "analyze", "sweeps"),
        bad(2, "analyze cl needs --k, --f and --gamma", "analyze", "cl", "--k", "10"),
        bad(2, "--gamma needs a number, got 'lots'", "analyze", "cl", "--k", "10", "--f", "2", "--gamma", "lots"),
        bad(3, "need 1 <= k <= 255", "analyze", "sweep", "--k", "128", "--f", "4", "--gamma", "0.1"),
        bad(2, "--f takes integers separated by commas", "analyze", "sweep", "--k", "64", "--f", "2,x", "--gamma", "1.1"),
        bad(3, "cannot write the chart to /nonexistent/x.png: directory /nonexistent does not exist", "analyze", "sweep",
            "--k", "64", "--f", "2", "--gamma", "1.1", "--plot", "/nonexistent/x.png"),
        bad(2, "--plot writes .png or .svg files, not chart.gif", "analyze", "sweep", "--k", "64", "--f", "2", "--gamma",
            "1.1", "--plot", "chart.gif"),
        bad(2, "--nodes needs an integer", "analyze", "--code", "rs:k=6,m=3", "--nodes", "many"),
        // cluster commands without a cluster
        bad(2, "fsck needs exactly one PATH", "fsck"),
        bad(3, "fsck needs an HDFS path, s3a://bucket/x is on s3a://", "fsck", "s3a://bucket/x"),
        bad(3, "fsck needs an HDFS path, /x is on file:///", "fsck", "/x"),
        bad(3, "cannot connect", "-D", "ipc.client.connect.max.retries=0", "-D", "ipc.client.connect.timeout=500",
            "fsck", "hdfs://127.0.0.1:1/x"),
        bad(2, "archive needs exactly one PATH (several go with --mr or --paths-from FILE)", "archive", "/a", "/b",
            "--code", "rs:k=6,m=3"),
        bad(2, "--paths-from lists the paths: give no PATH with it (got /a)", "archive", "/a", "--paths-from",
            "/list", "--code", "rs:k=6,m=3"),
        bad(2, "--stripe shows one stripe of a single path's --dry-run plan, not with --paths-from", "archive",
            "--paths-from", "/list", "--dry-run", "--stripe", "0", "--code", "rs:k=6,m=3"),
        bad(3, "--paths-from file:///nonexistent/wide-ec-paths: no such file", "archive", "--paths-from",
            "file:///nonexistent/wide-ec-paths", "--code", "rs:k=6,m=3"),
        bad(2, "rapidraid:n=8,k=4 is non-systematic: it seals the file (no --placement, --no-trim, --stripe or --mr)",
            "archive", "/a", "/b", "--mr", "--code", "rapidraid:n=8,k=4"),
        bad(2, "rapidraid:n=8,k=4 is non-systematic: archive it with --encoder classic or rapidraid (got 'chain'",
            "archive", "--paths-from", "file:///nonexistent/wide-ec-paths", "--code", "rapidraid:n=8,k=4", "--encoder",
            "chain"),
        bad(2, "archive --mr needs at least one PATH", "archive", "--mr", "--code", "rs:k=6,m=3"),
        bad(2, "--maps sets the map tasks of the archival job: it goes with --mr", "archive", "/a", "--code",
            "rs:k=6,m=3", "--maps", "4"),
        bad(2, "--maps must be 1..100000, got 0", "archive", "/a", "--mr", "--maps", "0", "--code", "rs:k=6,m=3"),
        bad(2, "--maps needs an integer, got 'many'", "archive", "/a", "--mr", "--maps", "many", "--code", "rs:k=6,m=3"),
        bad(2, "--stripe shows one stripe of a single path's --dry-run plan, not with --mr", "archive", "/a", "--mr",
            "--dry-run", "--stripe", "1", "--code", "rs:k=6,m=3"),
        bad(3, "archive --mr needs an HDFS path, /a is on file:///", "archive", "/a", "/b", "--mr", "--code",
            "rs:k=6,m=3"),
        bad(2, "unarchive needs exactly one PATH", "unarchive"),
        bad(2, "--replication must be 2..32767, got 1", "unarchive", "/x", "--replication", "1"),
        bad(3, "unarchive needs an HDFS path, /x is on file:///", "unarchive", "/x"),
        bad(3, "nodes needs HDFS as fs.defaultFS, not file:///", "endpoints"),
        bad(3, "nodes needs HDFS as fs.defaultFS, not file:///", "nodes"),
        bad(2, "nodes takes no arguments", "nodes", "now"),
        // demo and bench live in the test kit, which this module's classpath (like an installed wide-ec) lacks; the
        // kit's own test (KitCommandsTest) checks their bad inputs
        bad(3, "demo needs the hadoop-wide-ec test kit (a source checkout: bin/wide-ec demo)", "demo"),
        bad(3, "bench needs the hadoop-wide-ec test kit (a source checkout: bin/wide-ec bench)", "bench", "repair", "--quick"),
        // names
        bad(3, "cannot be an HDFS erasure-coding policy: n = 76 > 16", "policy", "--code", "azure-lrc:k=64,l=4,g=8"),
        bad(3, "codec azure-lrc-l2 needs HDFS's data and parity counts: --k K --m M", "codes", "describe", "--code",
            "azure-lrc-l2"),
        bad(3, "is neither a code spec", "codes", "describe", "--code", "AZURE-LRC-L9-12-4-1024k"),
        bad(3, "--k and --m go with a codec name", "codes", "describe", "--code", "rs:k=6,m=3", "--k", "6"),
        bad(2, "--cell needs a byte count such as 64k or 1m, got 'big'", "policy", "--code", "rs:k=6,m=3", "--cell", "big"),
        bad(3, "exceeds HDFS's 16-unit striped group", "policy", "--code", "wide-rs", "--k", "20", "--m", "4"));
  }

  private static Arguments bad(int exit, String says, String... args) {
    return Arguments.of(String.join(" ", args), exit, says, args);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("inputs")
  void aBadInputGetsOneClearLine(String line, int exit, String says, String[] args) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int rc = ToolRunner.run(new Configuration(), new WideEcTool(new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8)), args);
    String e = err.toString(StandardCharsets.UTF_8).strip();
    assertEquals(exit, rc, line + " -> " + e);
    assertEquals(1, e.lines().count(), "one line: " + e);
    assertTrue(e.startsWith("wide-ec"), e);
    assertTrue(e.contains(says), "'" + says + "' in: " + e);
    assertFalse(e.contains("Exception") || e.contains("\tat ") || e.contains("internal error"), e);
    assertFalse(e.contains(String.valueOf(Long.MAX_VALUE)), e);
  }

  @org.junit.jupiter.api.Test
  void aMisspeltKeyIsNamedWithTheKeyItMeantAndTheCommandStillRuns() throws Exception {
    Configuration conf = new Configuration();
    conf.set("wide-ec.placment.scheme", "cl");
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int rc = ToolRunner.run(conf, new WideEcTool(new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8)), new String[] {"codes", "list"});
    assertEquals(0, rc);
    assertEquals("wide-ec codes: warning: unknown configuration key wide-ec.placment.scheme (nothing reads it; did you"
        + " mean wide-ec.placement.scheme?)", err.toString(StandardCharsets.UTF_8).strip());
  }
}
