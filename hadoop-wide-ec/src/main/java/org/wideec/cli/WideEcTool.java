package org.wideec.cli;

import java.io.PrintStream;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.conf.Configured;
import org.apache.hadoop.util.Tool;
import org.apache.hadoop.util.ToolRunner;

/**
 * The {@code wide-ec} command. Hadoop generic options (-D, -conf, -fs) are handled by ToolRunner.
 *
 * <p>Every error is one line on stderr naming the command and the problem, never a stack trace (set
 * {@code WIDE_EC_DEBUG=1} to see one). Exit codes: 0 done; 1 the command ran and found a problem (fsck, endpoints);
 * 2 the command line is wrong; 3 the command could not run (a value out of range, an unreachable cluster, an I/O
 * error); 70 an internal error (a bug: please report it with the WIDE_EC_DEBUG=1 output).
 */
public final class WideEcTool extends Configured implements Tool {
  public static final int EXIT_FOUND_PROBLEM = 1;
  public static final int EXIT_USAGE = 2;
  public static final int EXIT_FAILED = 3;
  public static final int EXIT_INTERNAL = 70;

  /** Hadoop's generic options (GenericOptionsParser), which ToolRunner reads before the command name only. */
  private static final java.util.Set<String> GENERIC_OPTIONS = java.util.Set.of("-conf", "-fs", "-jt", "-files",
      "-libjars", "-archives", "-tokenCacheFile");

  /** A subcommand: its usage (what `help NAME` and `NAME --help` print) and how it runs. */
  private record Command(String usage, Runner runner) {}

  @FunctionalInterface
  private interface Runner {
    int run(String[] args) throws Exception;
  }

  private static final String SPEC_EXAMPLES =
      "a code is a SPEC (rs:k=6,m=3  azure-lrc:k=12,l=2,g=2  unilrc:alpha=1,z=6  rapidraid:n=16,k=11), an HDFS policy\n"
      + "  name (AZURE-LRC-L2-12-4-1024k) or a codec with HDFS's k and m (--code azure-lrc-l2 --k 12 --m 4)";

  private final PrintStream out;
  private final PrintStream err;
  private final Map<String, Command> commands = new LinkedHashMap<>();

  public WideEcTool() {
    this(System.out, System.err);
  }

  public WideEcTool(PrintStream out, PrintStream err) {
    this.out = out;
    this.err = err;
    codeCommands();
    clusterCommands();
    kitCommands();
  }

  /** The commands about codes alone: no cluster needed. */
  private void codeCommands() {
    commands.put("codes", new Command(String.join("\n",
        "  codes list [--json]                                   code families and Hadoop codec names",
        "  codes describe --code SPEC|POLICY|CODEC [--k K --m M] [--cell 1m] [--json]",
        "                                                        layout, distance, repair costs and all names of a code",
        "  codes verify --code SPEC --failures F [--samples N] [--seed S] [--json]",
        "                                                        how many patterns of F lost units decode",
        SPEC_EXAMPLES), a -> new CodesCommand(out, err).run(a)));
    commands.put("policy", new Command(String.join("\n",
        "  policy --code SPEC|POLICY|CODEC [--k K --m M] [--cell 1m]",
        "                                                        the hdfs ec -addPolicies file for a code, or why HDFS cannot hold it",
        SPEC_EXAMPLES), a -> new PolicyCommand(out).run(a)));
    commands.put("analyze", new Command(String.join("\n",
        "  analyze --code SPEC --placement flat|tl|cl|unilrc [--t T] [--racks R] [--json]",
        "                                                        per-unit repair and cross-rack costs, ADRC/CDRC/ARC/CARC/LBNR, MTTDL",
        "  analyze cl --k K --f F --gamma G [--json]            ECWide's (n,k,r,z) combined locality design",
        "  analyze sweep --k K --f F[,F..] --gamma G [--plot FILE.png|svg] [--json]",
        "                                                        redundancy vs cross-rack repair bandwidth (ECWide Fig. 3)",
        "    MTTDL options: --nodes 400 --capacity-tib 16 --repair-fraction 0.1 --detect-minutes 30",
        "                   --mttf-years 4 --bandwidth-gbps 1 (ECWide's defaults) --inner-rack-weight 0",
        SPEC_EXAMPLES), a -> new AnalyzeCommand(out).run(a)));
    commands.put("update", new Command(UpdateCommand.USAGE + "\n" + SPEC_EXAMPLES, a -> new UpdateCommand(out).run(a)));
  }

  /** The commands an operator runs against a cluster (in the order usage lists them). */
  private void clusterCommands() {
    commands.put("archive", new Command(ArchiveCommand.USAGE + "\n" + SPEC_EXAMPLES,
        a -> new ArchiveCommand(conf(), out, err).run(a)));
    commands.put("status", new Command(String.join("\n",
        "  status PATH [--json]                                 an archived path: stripes per state, redundancy, bytes saved",
        "                                                        once trimmed"), a -> new StatusCommand(conf(), out).run(a)));
    commands.put("fsck", new Command(String.join("\n",
        "  fsck PATH [--json]                                   per block group: units per rack, plan, rack tolerance, repair costs;",
        "                                                        per archived stripe: missing, off plan, stale, stuck, decodes?,",
        "                                                        more losses; orphaned manifests, parity and pointers"),
        a -> new FsckCommand(conf(), out).run(a)));
    commands.put("verify", new Command(VerifyCommand.USAGE, a -> new VerifyCommand(conf(), out, err).run(a)));
    commands.put("unarchive", new Command(UnarchiveCommand.USAGE, a -> new UnarchiveCommand(conf(), out, err).run(a)));
    commands.put("rm", new Command(MemberUpdateCommand.USAGE,
        a -> new MemberUpdateCommand(conf(), out, false).run(a)));
    commands.put("replace", new Command(MemberUpdateCommand.REPLACE_USAGE,
        a -> new MemberUpdateCommand(conf(), out, true).run(a)));
    Command nodes = new Command(String.join("\n",
        "  nodes [--json]                                       each live DataNode's repair worker: running or off and why,",
        "                                                        version, coder, slice endpoint, auth, TLS, tokens, tasks, last error",
        "  endpoints [--json]                                   the same (older name)"),
        a -> new NodesCommand(conf(), out).run(a));
    commands.put("nodes", nodes);
    commands.put("check-cluster", new Command(String.join("\n",
        "  check-cluster [--scheme auto|flat|tl|cl|unilrc] [--json]",
        "                                                        can the live topology hold every enabled policy of ours, does a",
        "                                                        rack loss stay readable, does every DataNode run the native worker"),
        a -> new CheckClusterCommand(conf(), out).run(a)));
    commands.put("endpoints", nodes);
    commands.put("decommission", new Command(DecommissionCommand.USAGE,
        a -> new DecommissionCommand(conf(), out, err).run(a)));
    commands.put("caps", new Command(CapsCommand.USAGE, a -> new CapsCommand(conf(), out).run(a)));
  }

  /** The test kit's commands: embedded clusters, never a daemon's classpath. */
  private void kitCommands() {
    commands.put("demo", new Command(String.join("\n",
        "  demo [--keep] [--dir DIR]                             embedded HDFS cluster with an LRC policy, end to end: a whole rack",
        "                                                        lost and rebuilt; --keep leaves it running to try commands on",
        "  demo archive [--dir DIR]                              wide stripes (k = 64) by archival: plan, archive, trim, lose a",
        "                                                        rack, read through, repair under the same block ids, unarchive"),
        a -> KitCommand.named("demo").run(conf(), out, a)));
    commands.put("bench", new Command(String.join("\n",
        "  bench repair [--quick] [--json] [--block-size 32m] [--node-rate 25m] [--oversubscription 10]",
        "               [--slices 64k,256k,1m] [--full-node-stripes 16] [--full-node-block-size 4m] [--full-node-rate 5m]",
        "               [--no-stock] [--full-node-only] [--results benchmarks/RESULTS.md]",
        "                                                        repair schemes on embedded clusters with shaped links",
        "  bench encode [--quick] [--json] [--unit-size 64m] [--node-rate 25m] [--oversubscription 0] [--runs 3]",
        "               [--codes rs:k=64,m=4,azure-lrc:k=64,l=4,g=4] [--encoders classic,chain,rack-tree] [--auth hmac|none]",
        "                                                        archival encoding of one wide stripe: classic vs chain (ECWide 4.2)",
        "  bench archive [--quick] [--json] [--unit-size 64m] [--node-rate 25m] [--oversubscription 0] [--runs 3]",
        "               [--slice 64k] [--wide-code rs:k=64,m=4] [--auth hmac|none]",
        "                                                        archival: RapidRAID (16,11) pipeline vs classic, one object and",
        "                                                        16 at once; a k = 64 stripe, chain vs classic",
        "  bench update [--quick] [--json] [--volumes vol-4.3k,...] [--updates 1000] [--cross-rack-rates 100m,200m,500m,1g]",
        "               [--oversubscription 10] [--concurrency 4] [--seed 1]",
        "                                                        parity updates (RackCU 5-C): RS(12,4), 8 racks of 2 in-process",
        "                                                        nodes, MSR-like traces; baseline, CAU, Parix, RackCU",
        "  bench update --product|--layers product|both [--executor client|datanode] [--quick] [--json]",
        "                                                        file churn on LRC and RS archives of an embedded racked",
        "                                                        cluster: bytes per reclaimed GiB, re-encode crossover"),
        a -> KitCommand.named("bench").run(conf(), out, a)));
  }

  private Configuration conf() {
    return getConf() == null ? new Configuration() : getConf();
  }

  private String usage() {
    StringBuilder sb = new StringBuilder("usage: wide-ec <command> [options]   (wide-ec help COMMAND, wide-ec --version)\n");
    commands.values().stream().distinct()
        .forEach(c -> sb.append(c.usage().replace("\n" + SPEC_EXAMPLES, "")).append('\n'));
    return sb.append(SPEC_EXAMPLES).toString();
  }

  @Override
  public int run(String[] args) {
    if (args.length == 0) {
      err.println(usage());
      return EXIT_USAGE;
    }
    String name = args[0];
    String[] rest = Arrays.copyOfRange(args, 1, args.length);
    if (name.equals("-h") || name.equals("--help") || name.equals("help")) {
      return help(rest);
    }
    if (name.equals("--version") || name.equals("version")) {
      out.println(org.wideec.Version.describe());
      return 0;
    }
    Command c = commands.get(name);
    if (c == null) {
      err.println("wide-ec: unknown command '" + name + "' (commands: " + String.join(", ", commands.keySet()) + ")");
      return EXIT_USAGE;
    }
    if (Arrays.asList(rest).contains("--help") || Arrays.asList(rest).contains("-h")) {
      out.println("usage:\n" + c.usage());
      return 0;
    }
    for (String a : rest) {
      if (GENERIC_OPTIONS.contains(a) || a.startsWith("-D")) {
        // Hadoop's generic options are read before the command name, so here one would be taken for an argument.
        err.println("wide-ec " + name + ": Hadoop's generic option " + a + " goes before the command: wide-ec " + a
            + " ... " + name + " ...");
        return EXIT_USAGE;
      }
    }
    for (org.wideec.config.ConfigKeys.Unknown u : org.wideec.config.ConfigKeys.unknown(
        conf().getPropsWithPrefix(org.wideec.config.ConfigKeys.PREFIX).keySet().stream()
            .map(k -> org.wideec.config.ConfigKeys.PREFIX + k).toList())) {
      err.println("wide-ec " + name + ": warning: " + u);
    }
    try {
      return c.runner().run(rest);
    } catch (Options.UsageException e) {
      err.println("wide-ec " + name + ": " + e.getMessage() + " (see 'wide-ec help " + name + "')");
      return EXIT_USAGE;
    } catch (OutOfMemoryError e) {
      err.println("wide-ec " + name + ": ran out of memory (" + e.getMessage() + "); give it a smaller problem or more "
          + "heap (WIDE_EC_JAVA_OPTS=-Xmx8g)");
      return EXIT_FAILED;
    } catch (Exception e) {
      debug(e);
      err.println("wide-ec " + name + ": " + CliErrors.describe(e));
      return CliErrors.internal(e) ? EXIT_INTERNAL : EXIT_FAILED;
    } catch (LinkageError e) {
      // An installed tool without the parts a command needs: say which, not a NoClassDefFoundError.
      debug(e);
      err.println("wide-ec " + name + ": " + CliErrors.missingClass(name, e));
      return EXIT_FAILED;
    } catch (Error e) {
      debug(e);
      err.println("wide-ec " + name + ": internal error: " + e);
      return EXIT_INTERNAL;
    }
  }

  private int help(String[] rest) {
    if (rest.length == 0) {
      out.println(usage());
      return 0;
    }
    Command c = commands.get(rest[0]);
    if (c == null) {
      err.println("wide-ec help: unknown command '" + rest[0] + "' (commands: " + String.join(", ", commands.keySet()) + ")");
      return EXIT_USAGE;
    }
    out.println("usage:\n" + c.usage());
    return 0;
  }

  private void debug(Throwable e) {
    if (System.getenv("WIDE_EC_DEBUG") != null) {
      e.printStackTrace(err);
    }
  }

  public static void main(String[] args) throws Exception {
    System.exit(ToolRunner.run(new Configuration(), new WideEcTool(), args));
  }
}
