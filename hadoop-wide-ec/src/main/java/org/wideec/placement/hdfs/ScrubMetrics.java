package org.wideec.placement.hdfs;

import org.apache.hadoop.metrics2.lib.MetricsRegistry;
import org.apache.hadoop.metrics2.lib.MutableCounterLong;

/**
 * What the continuous scrubber checked and found: passes, stripes and block groups checked from their units'
 * summaries, summary bytes, mismatches, undecidable ones, repairs requested, failures. Its metrics live in the
 * NameNode source's registry, so they stay attributes of the one JMX bean under their names.
 */
public final class ScrubMetrics {
  final MutableCounterLong passes;
  final MutableCounterLong stripesChecked;
  final MutableCounterLong summaryBytes;
  final MutableCounterLong mismatches;
  final MutableCounterLong undecidable;
  final MutableCounterLong repairsRequested;
  final MutableCounterLong failures;

  ScrubMetrics(MetricsRegistry registry) {
    passes = registry.newCounter("ScrubPasses",
        "completed passes of the continuous scrubber over every archived stripe and block group of our policies", 0L);
    stripesChecked = registry.newCounter("ScrubStripesChecked",
        "archived stripes and block groups the scrubber checked from their units' summaries", 0L);
    summaryBytes = registry.newCounter("ScrubSummaryBytes",
        "summary bytes the DataNodes sent the scrubber (one page per unit checked)", 0L);
    mismatches = registry.newCounter("ScrubMismatches",
        "stripes and block groups the scrubber found not to be what their code computes", 0L);
    undecidable = registry.newCounter("ScrubUndecidable",
        "of the mismatches, those no single unit explains (several units corrupt, or a code of distance 2)", 0L);
    repairsRequested = registry.newCounter("ScrubRepairsRequested",
        "units at fault whose disagreeing replicas the scrubber reported corrupt, so they are rebuilt from the units"
            + " that agree", 0L);
    failures = registry.newCounter("ScrubFailures",
        "stripes, block groups, files or archives the scrubber could not check (see the NameNode log)", 0L);
  }

  public long passes() {
    return passes.value();
  }

  public long stripesChecked() {
    return stripesChecked.value();
  }

  public long summaryBytes() {
    return summaryBytes.value();
  }

  public long mismatches() {
    return mismatches.value();
  }

  public long undecidable() {
    return undecidable.value();
  }

  public long repairsRequested() {
    return repairsRequested.value();
  }

  public long failures() {
    return failures.value();
  }
}
