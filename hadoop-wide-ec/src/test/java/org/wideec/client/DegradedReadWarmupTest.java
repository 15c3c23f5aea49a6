package org.wideec.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.wideec.engine.ChainWarmup;

class DegradedReadWarmupTest {
  @Test
  void offByDefault() {
    assertNull(DegradedReadWarmup.start(new Configuration(false)));
  }

  @Test
  void runsItsLoopbackChainsInTheBackgroundAndComparesWhatTheyRebuilt() throws Exception {
    Configuration conf = new Configuration(false);
    conf.setLong(DegradedReadWarmup.SLICES, 300);
    DegradedReadWarmup w = DegradedReadWarmup.start(conf);
    assertNotNull(w);
    ChainWarmup.Result r = w.await(60_000);
    assertNotNull(r, "finished within a minute");
    assertEquals(3, r.repairs(), "300 slices: three chains of four helpers and 32 slices each: " + r);
    assertTrue(r.rebuiltRight(), r.toString());
  }

  @Test
  void aNegativeCountIsRefusedNamingTheKey() {
    Configuration conf = new Configuration(false);
    conf.set(DegradedReadWarmup.SLICES, "-1");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> DegradedReadWarmup.start(conf));
    assertTrue(e.getMessage().contains(DegradedReadWarmup.SLICES), e.getMessage());
  }
}
