package org.wideec.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.wideec.code.RemainingTolerance;
import org.wideec.placement.hdfs.AtRiskLog;

/** What fsck's table and the NameNode's at-risk log say is what is true. */
class FsckOutputTest {
  private static FsckCommand.GroupReport group(int[] lost, int[] cross) {
    return new FsckCommand.GroupReport("/f", "blk_-1", "azure-lrc:k=6,l=2,g=2", Map.of("/r0", List.of(0)), lost, true,
        true, true, null, true, true, 3, true, true, cross);
  }

  @Test
  void aGroupShorterThanAStripeSaysSoRatherThanUnitsLost() {
    assertEquals("n/a (group shorter than a stripe)", FsckCommand.crossRackColumn(group(new int[0], null)));
    assertEquals("n/a (units lost)", FsckCommand.crossRackColumn(group(new int[] {2}, null)));
    assertEquals("[1, 2]", FsckCommand.crossRackColumn(group(new int[0], new int[] {1, 2})));
    assertEquals("n/a (no code)", FsckCommand.crossRackColumn(
        FsckCommand.GroupReport.unbuildable("/f", "P", "no such code")));
  }

  @Test
  void aGroupOneLossFromDataLossIsAWarningAndDataLostAnError() {
    List<String> lines = new java.util.ArrayList<>();
    org.apache.log4j.Logger logger = org.apache.log4j.Logger.getLogger(AtRiskLog.class.getName());
    org.apache.log4j.AppenderSkeleton capture = new org.apache.log4j.AppenderSkeleton() {
      @Override
      protected void append(org.apache.log4j.spi.LoggingEvent e) {
        lines.add(e.getLevel() + " " + e.getRenderedMessage());
      }

      @Override
      public void close() {}

      @Override
      public boolean requiresLayout() {
        return false;
      }
    };
    logger.addAppender(capture);
    try {
      AtRiskLog.report(-1234567L, "/x", "AZURE-LRC-6-2-2", new int[] {0, 6, 7}, new RemainingTolerance(0, true));
      AtRiskLog.report(-7654321L, "/y", "AZURE-LRC-6-2-2", new int[] {0, 1, 6, 7}, new RemainingTolerance(-1, true));
    } finally {
      logger.removeAppender(capture);
    }
    assertEquals(List.of(
        "WARN block group blk_-1234567 of /x (AZURE-LRC-6-2-2) has lost units [0, 6, 7]: one more loss of the"
            + " wrong unit loses data (HDFS counts it as readable)",
        "ERROR block group blk_-7654321 of /y (AZURE-LRC-6-2-2) has lost units [0, 1, 6, 7]: its survivors no longer"
            + " decode: DATA LOST"), lines);
  }
}
