package org.wideec.cli;

import java.io.PrintStream;
import java.util.Set;
import org.wideec.coder.CodeNames;

/**
 * {@code wide-ec policy --code SPEC [--cell 1m]}: the {@code hdfs ec -addPolicies} file for a code, with the commands
 * that add, enable and set it; or why HDFS cannot hold it as a striped policy.
 */
final class PolicyCommand {
  private final PrintStream out;

  PolicyCommand(PrintStream out) {
    this.out = out;
  }

  int run(String[] args) {
    Options o = new Options(args, Set.of("code", "k", "m", "cell"), Set.of());
    if (!o.positional().isEmpty()) {
      throw new Options.UsageException("policy takes no arguments, got '" + o.positional().get(0) + "'");
    }
    CodeNames.Named n = o.code();
    if (!n.striped()) {
      throw new IllegalArgumentException(n.spec() + " cannot be an HDFS erasure-coding policy: " + n.stripedNote());
    }
    String id = n.codec().replaceAll("[^A-Za-z0-9]", "") + n.k() + "x" + n.m();
    out.println(String.join("\n",
        "<?xml version=\"1.0\"?>",
        "<!--",
        "  " + n.spec() + " as HDFS policy " + n.policy() + " (" + n.k() + " data + " + n.m() + " parity units, "
            + n.cellSize() + "-byte cells). Save this file, then:",
        "    hdfs ec -addPolicies -policyFile \"$PWD/FILE\"    (an absolute path: a relative one is read as a URL and fails)",
        "    hdfs ec -enablePolicy -policy " + n.policy(),
        "    hdfs ec -setPolicy -path DIR -policy " + n.policy(),
        "  The hadoop-wide-ec jar must be on the classpath of the NameNode, every DataNode and every client,",
        "  for as long as data written under this policy exists.",
        "-->",
        "<configuration>",
        "  <layoutversion>1</layoutversion>",
        "  <schemas>",
        "    <schema id=\"" + id + "\">",
        "      <codec>" + n.codec() + "</codec>",
        "      <k>" + n.k() + "</k>",
        "      <m>" + n.m() + "</m>",
        "    </schema>",
        "  </schemas>",
        "  <policies>",
        "    <policy>",
        "      <schema>" + id + "</schema>",
        "      <cellsize>" + n.cellSize() + "</cellsize>",
        "    </policy>",
        "  </policies>",
        "</configuration>"));
    return 0;
  }
}
