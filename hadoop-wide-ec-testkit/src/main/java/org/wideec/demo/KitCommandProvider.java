package org.wideec.demo;

import java.io.PrintStream;
import org.apache.hadoop.conf.Configuration;
import org.wideec.cli.KitCommand;

/**
 * What the test kit's commands share as services of the product's tool: ServiceLoader needs one public class with a
 * no-argument constructor per command, so each command's Provider only names itself and says how it runs.
 */
abstract class KitCommandProvider implements KitCommand {
  /** A command of the kit, built for one run. */
  @FunctionalInterface
  interface Body {
    int run(Configuration conf, PrintStream out, String[] args) throws Exception;
  }

  private final String name;
  private final Body body;

  KitCommandProvider(String name, Body body) {
    this.name = name;
    this.body = body;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public int run(Configuration conf, PrintStream out, String[] args) throws Exception {
    return body.run(conf, out, args);
  }
}
