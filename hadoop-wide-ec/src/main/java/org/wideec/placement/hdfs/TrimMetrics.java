package org.wideec.placement.hdfs;

import org.apache.hadoop.metrics2.lib.MetricsRegistry;
import org.apache.hadoop.metrics2.lib.MutableCounterLong;
import org.apache.hadoop.metrics2.lib.MutableGaugeLong;

/**
 * What the archive trimmer did: passes, data blocks trimmed to their planned replica, blocks off plan, blocks waiting
 * for another look, failures. Its metrics live in the NameNode source's registry, so they stay attributes of the one
 * JMX bean under their names.
 */
public final class TrimMetrics {
  final MutableCounterLong passes;
  final MutableCounterLong blocksTrimmed;
  final MutableCounterLong blocksOffPlan;
  final MutableGaugeLong blocksAwaiting;
  final MutableCounterLong failures;

  TrimMetrics(MetricsRegistry registry) {
    passes = registry.newCounter("TrimPasses", "completed passes of the archive trimmer over the manifests", 0L);
    blocksTrimmed = registry.newCounter("BlocksTrimmed",
        "archived data blocks trimmed to their planned replica (the others marked excess)", 0L);
    blocksOffPlan = registry.newCounter("BlocksOffPlan",
        "archived data blocks whose planned node holds no live replica, so they were not trimmed (each once)", 0L);
    blocksAwaiting = registry.newGauge("BlocksAwaitingTrim",
        "archived data blocks lowered to one replica that the trimmer must look at again (stale or postponed)", 0L);
    failures = registry.newCounter("TrimFailures", "trim passes or manifests that failed (see the NameNode log)", 0L);
  }

  public long passes() {
    return passes.value();
  }

  public long blocksTrimmed() {
    return blocksTrimmed.value();
  }

  public long blocksOffPlan() {
    return blocksOffPlan.value();
  }

  public long blocksAwaiting() {
    return blocksAwaiting.value();
  }

  public long failures() {
    return failures.value();
  }
}
