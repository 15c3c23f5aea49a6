package org.wideec.cli;

import java.io.PrintStream;
import java.util.Arrays;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.conf.Configured;
import org.apache.hadoop.util.Tool;
import org.apache.hadoop.util.ToolRunner;
import org.wideec.demo.DemoCommand;

/** The {@code wide-ec} command. Hadoop generic options (-D, -conf, -fs) are handled by ToolRunner. */
public final class WideEcTool extends Configured implements Tool {
  static final String USAGE = String.join("\n",
      "usage: wide-ec <command> [options]",
      "  codes list [--json]                                   code families and Hadoop codec names",
      "  codes describe --code SPEC [--json]                   layout, distance, repair costs of a code",
      "  codes verify --code SPEC --failures F [--samples N] [--seed S] [--json]",
      "                                                        how many patterns of F lost units decode",
      "  analyze --code SPEC --placement flat|tl|cl|unilrc [--t T] [--racks R] [--json]",
      "                                                        per-unit repair and cross-rack costs, ADRC/CDRC/ARC/CARC/LBNR, MTTDL",
      "  analyze cl --k K --f F --gamma G [--json]            ECWide's (n,k,r,z) combined locality design",
      "  analyze sweep --k K --f F[,F..] --gamma G [--plot FILE.png|svg] [--json]",
      "                                                        redundancy vs cross-rack repair bandwidth (ECWide Fig. 3)",
      "    MTTDL options: --nodes 400 --capacity-tib 16 --repair-fraction 0.1 --detect-minutes 30",
      "                   --mttf-years 4 --bandwidth-gbps 1 (ECWide's defaults) --inner-rack-weight 0",
      "  fsck PATH [--json]                                   per block group: units per rack, plan, rack tolerance, repair costs",
      "  endpoints [--json]                                   each live DataNode's repair worker: slice port, auth, shaping",
      "  demo [--keep DIR]                                     embedded HDFS cluster with an LRC policy, end to end",
      "  bench repair [--quick] [--json] [--block-size 32m] [--node-rate 25m] [--oversubscription 10]",
      "               [--slices 64k,256k,1m] [--full-node-stripes 16] [--full-node-block-size 4m] [--full-node-rate 5m]",
      "               [--no-stock] [--full-node-only] [--results benchmarks/RESULTS.md]",
      "                                                        repair schemes on embedded clusters with shaped links",
      "code SPEC examples: rs:k=6,m=3  azure-lrc:k=12,l=2,g=2  unilrc:alpha=1,z=6  rapidraid:n=16,k=11");

  private final PrintStream out;
  private final PrintStream err;

  public WideEcTool() {
    this(System.out, System.err);
  }

  public WideEcTool(PrintStream out, PrintStream err) {
    this.out = out;
    this.err = err;
  }

  @Override
  public int run(String[] args) throws Exception {
    if (args.length == 0 || args[0].equals("-h") || args[0].equals("--help") || args[0].equals("help")) {
      out.println(USAGE);
      return args.length == 0 ? 1 : 0;
    }
    String[] rest = Arrays.copyOfRange(args, 1, args.length);
    try {
      return switch (args[0]) {
        case "codes" -> new CodesCommand(out).run(rest);
        case "analyze" -> new AnalyzeCommand(out).run(rest);
        case "fsck" -> new FsckCommand(getConf() == null ? new Configuration() : getConf(), out).run(rest);
        case "demo" -> new DemoCommand(getConf() == null ? new Configuration() : getConf(), out).run(rest);
        case "bench" -> new BenchCommand(getConf() == null ? new Configuration() : getConf(), out).run(rest);
        case "endpoints" -> new EndpointsCommand(getConf() == null ? new Configuration() : getConf(), out).run(rest);
        default -> throw new Options.UsageException("unknown command '" + args[0] + "'");
      };
    } catch (Options.UsageException e) {
      err.println("wide-ec: " + e.getMessage());
      err.println(USAGE);
      return 2;
    } catch (IllegalArgumentException | IllegalStateException e) {
      err.println("wide-ec: " + e.getMessage());
      return 1;
    }
  }

  public static void main(String[] args) throws Exception {
    System.exit(ToolRunner.run(new Configuration(), new WideEcTool(), args));
  }
}
