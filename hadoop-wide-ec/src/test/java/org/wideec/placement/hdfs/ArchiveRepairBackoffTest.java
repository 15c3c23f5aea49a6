package org.wideec.placement.hdfs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;

/** The repair monitor's longest back-off: the key, an hour, or a longer first back-off that worked before the key. */
class ArchiveRepairBackoffTest {
  private static Configuration conf(String... kv) {
    Configuration c = new Configuration(false);
    for (int i = 0; i < kv.length; i += 2) {
      c.set(kv[i], kv[i + 1]);
    }
    return c;
  }

  @Test
  void anHourUnlessSetOrTheFirstBackOffIsLonger() {
    assertEquals(3_600_000, ArchiveRepairSettings.maxBackoff(conf()));
    assertEquals(2_000, ArchiveRepairSettings.maxBackoff(conf(ArchiveRepairSettings.MAX_BACKOFF_KEY, "2000")));
    assertEquals(7_200_000, ArchiveRepairSettings.maxBackoff(conf(ArchiveRepairSettings.BACKOFF_KEY, "7200000")),
        "a site with a two-hour first back-off keeps it");
    assertEquals(TimeUnit.DAYS.toMillis(365),
        ArchiveRepairSettings.maxBackoff(conf(ArchiveRepairSettings.MAX_BACKOFF_KEY, String.valueOf(Long.MAX_VALUE))),
        "at most a year: doubling and adding to nanoTime never wrap");
  }
}
