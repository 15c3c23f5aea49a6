package org.wideec.placement.hdfs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;

/** The repair monitor's times are read as every other positive number of milliseconds is: a wrong one names its key. */
class ArchiveRepairSettingsTest {
  @Test
  void aTimeThatIsNotAPositiveNumberOfMillisecondsIsRefusedNamingItsKey() {
    for (String key : new String[] {ArchiveRepairSettings.BACKOFF_KEY, ArchiveRepairSettings.CONFIRM_KEY}) {
      for (String value : new String[] {"0", "-5", "30s"}) {
        Configuration conf = new Configuration(false);
        conf.set(key, value);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> ArchiveRepairSettings.from(conf), key + "=" + value);
        assertEquals(key + "='" + value + "' is not valid; allowed: an integer from 1 up", e.getMessage());
      }
    }
  }

  @Test
  void positiveTimesAreTakenAsSet() {
    Configuration conf = new Configuration(false);
    conf.set(ArchiveRepairSettings.BACKOFF_KEY, "1500");
    conf.set(ArchiveRepairSettings.CONFIRM_KEY, "2500");
    ArchiveRepairSettings s = ArchiveRepairSettings.from(conf);
    assertEquals(1500, s.backoff());
    assertEquals(2500, s.confirmTimeout());
  }
}
