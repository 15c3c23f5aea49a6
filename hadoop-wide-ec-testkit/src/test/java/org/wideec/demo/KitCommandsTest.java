package org.wideec.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.util.ToolRunner;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.wideec.cli.KitCommand;
import org.wideec.cli.WideEcTool;

/**
 * With the test kit on the classpath the product's {@code wide-ec} finds demo and bench in it: their own checks of
 * the command line answer (the operator probe's bad inputs for them), before any cluster starts.
 */
class KitCommandsTest {
  @Test
  void theKitProvidesDemoAndBench() {
    assertInstanceOf(DemoCommand.Provider.class, KitCommand.named("demo"));
    assertInstanceOf(BenchCommand.Provider.class, KitCommand.named("bench"));
  }

  static Stream<Arguments> badInputs() {
    return Stream.of(
        Arguments.of("demo takes no arguments but 'archive', got 'X'", new String[] {"demo", "--dir", "/tmp/x", "X"}),
        Arguments.of("demo takes no arguments but 'archive', got 'X'", new String[] {"demo", "archive", "X"}),
        Arguments.of("demo archive does not take --keep", new String[] {"demo", "archive", "--keep"}),
        Arguments.of("unknown option --kep", new String[] {"demo", "--kep", "X"}),
        Arguments.of("unknown option --quik", new String[] {"bench", "repair", "--quik"}),
        Arguments.of("bench takes one benchmark: repair, encode, archive, update, ops or cluster", new String[] {"bench", "encodee"}),
        Arguments.of("bench archive takes options only", new String[] {"bench", "archive", "now"}),
        Arguments.of("unknown option --quik", new String[] {"bench", "archive", "--quik"}),
        Arguments.of("bench encode takes options only", new String[] {"bench", "encode", "now"}),
        Arguments.of("bench ops takes options only, got 'now'", new String[] {"bench", "ops", "now"}),
        Arguments.of("unknown option --quik", new String[] {"bench", "ops", "--quik"}),
        Arguments.of("--scrub-corruptions must be at least 1", new String[] {"bench", "ops", "--scrub-corruptions", "0"}),
        Arguments.of("bench update takes options only, got 'now'", new String[] {"bench", "update", "now"}),
        Arguments.of("unknown option --quik", new String[] {"bench", "update", "--quik"}),
        Arguments.of("bench update takes options only, got 'now'", new String[] {"bench", "update", "--product", "now"}),
        Arguments.of("--layers must be paper, product or both (--product is --layers product), got 'real'",
            new String[] {"bench", "update", "--layers", "real"}),
        Arguments.of("--executor must be client or datanode, got 'namenode'",
            new String[] {"bench", "update", "--product", "--executor", "namenode"}),
        Arguments.of("--volumes: no volume 'vol-64k' (known: vol-4.3k, vol-8k, vol-15k, vol-28k, vol-52k)",
            new String[] {"bench", "update", "--volumes", "vol-4.3k,vol-64k"}),
        Arguments.of("--cross-rack-rates needs rates in bits per second such as 100m or 1g, got 'fast'",
            new String[] {"bench", "update", "--cross-rack-rates", "100m,fast"}),
        Arguments.of("--updates, --oversubscription and --concurrency must be at least 1, got 1000, 0, 4",
            new String[] {"bench", "update", "--oversubscription", "0"}),
        Arguments.of("unknown option --quik", new String[] {"bench", "encode", "--quik"}),
        Arguments.of("--encoders takes classic, chain or rack-tree, not 'chian'",
            new String[] {"bench", "encode", "--encoders", "classic,chian"}),
        Arguments.of("block sizes must be whole MiB", new String[] {"bench", "repair", "--block-size", "1500k"}),
        Arguments.of("--decommission-policies takes two policies, a stock RS one then one of ours (like"
            + " RS-10-4-1024k,AZURE-LRC-L2-12-4-1024k), got 'RS-10-4-1024k'",
            new String[] {"bench", "cluster", "--decommission-policies", "RS-10-4-1024k"}),
        Arguments.of("--decommission-policies takes two policies, a stock RS one then one of ours (like"
            + " RS-6-3-1024k,AZURE-LRC-L2-6-4-1024k), got 'RS-6-3-1024k,'",
            new String[] {"bench", "cluster", "--nodes", "12", "--decommission-policies", "RS-6-3-1024k,"}),
        Arguments.of("--decommission runs the decommission alone, --no-decommission leaves it out: give one",
            new String[] {"bench", "cluster", "--decommission", "--no-decommission"}),
        Arguments.of("--decommission and --faults are separate runs: give one",
            new String[] {"bench", "cluster", "--decommission", "--faults"}),
        Arguments.of("--decommission-data needs a size like 64m, got '2gb'",
            new String[] {"bench", "cluster", "--decommission-data", "2gb"}),
        Arguments.of("--updates and --faults are separate runs: give one",
            new String[] {"bench", "cluster", "--updates", "--faults"}),
        // Refused before the launcher: a command line that passes would bring a real cluster up (and down).
        Arguments.of("--update-schemes takes baseline, cau and rackcu, got 'parix'",
            new String[] {"bench", "cluster", "--updates", "--update-schemes", "rackcu,parix"}));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badInputs")
  void aBadCommandLineIsRefusedByTheKitsCommand(String says, String[] args) throws Exception {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int rc = ToolRunner.run(new Configuration(), new WideEcTool(new PrintStream(new ByteArrayOutputStream(), true,
        StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8)), args);
    String e = err.toString(StandardCharsets.UTF_8).strip();
    assertEquals(WideEcTool.EXIT_USAGE, rc, e);
    assertEquals(1, e.lines().count(), e);
    assertTrue(e.startsWith("wide-ec " + args[0] + ": " + says), e);
  }
}
