package org.wideec.datanode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.wideec.repair.RepairScheme;
import org.wideec.transport.TransportConf;

/** Every setting of the repair worker is checked at start; a bad one is refused naming its key and what it allows. */
class RepairWorkerConfTest {
  private static final String SECRET = "0123456789abcdef-a-cluster-secret";

  private static Configuration conf(String... kv) {
    Configuration c = new Configuration(false);
    c.set(TransportConf.SECRET, SECRET);
    for (int i = 0; i < kv.length; i += 2) {
      c.set(kv[i], kv[i + 1]);
    }
    return c;
  }

  /** The error for one bad value: it must name the key, repeat the value and list what is allowed. */
  private static void refused(String key, String value, String allowed) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> RepairWorkerConf.from(conf(key, value)),
        key + "=" + value);
    assertTrue(e.getMessage().contains(key), e.getMessage());
    assertTrue(e.getMessage().contains("'" + value + "'"), e.getMessage());
    assertTrue(e.getMessage().contains(allowed), e.getMessage());
  }

  @Test
  void defaultsAreTheDocumentedOnes() {
    RepairWorkerConf c = RepairWorkerConf.from(conf());
    assertEquals(RepairScheme.RACK_AGGREGATED, c.scheme());
    assertEquals(3, c.maxAttempts());
    assertTrue(c.fallbackToStock());
    assertEquals(64, c.helperThreads());
    assertEquals(TransportConf.DEFAULT_SLICE_BYTES, c.transport().sliceBytes());
    assertEquals(30_000, c.transport().stallTimeoutMs());
    assertNull(c.transport().tls());
  }

  @Test
  void valuesAreReadInAnyCase() {
    RepairWorkerConf c = RepairWorkerConf.from(conf(RepairWorkerConf.SCHEME, " Pipelined ", RepairWorkerConf.FALLBACK,
        "FALSE", RepairWorkerConf.MAX_ATTEMPTS, "5", RepairWorkerConf.HELPER_THREADS, "8", TransportConf.MAX_FRAME, "8m"));
    assertEquals(RepairScheme.PIPELINED, c.scheme());
    assertFalse(c.fallbackToStock());
    assertEquals(5, c.maxAttempts());
    assertEquals(8, c.helperThreads());
    assertEquals(8 << 20, c.transport().maxFrameBytes());
  }

  @Test
  void anUnknownRepairSchemeNamesEveryAllowedOne() {
    refused(RepairWorkerConf.SCHEME, "rack_agregated", "conventional, pipelined, cyclic, weighted, rack_aggregated");
  }

  @Test
  void malformedOrOutOfRangeNumbersNameTheirKey() {
    refused(RepairWorkerConf.MAX_ATTEMPTS, "three", "an integer from 1 to 255");
    refused(RepairWorkerConf.MAX_ATTEMPTS, "0", "an integer from 1 to 255");
    refused(RepairWorkerConf.HELPER_THREADS, "0", "an integer from 1");
    refused(TransportConf.PORT, "slice", "an integer from 0 to 65535");
    refused(TransportConf.PORT, "70000", "an integer from 0 to 65535");
    refused(TransportConf.WINDOW, "4.5", "an integer from 1");
    refused(TransportConf.STALL_TIMEOUT, "30s", "an integer from 1");
    refused(TransportConf.SLICE_BYTES, "64q", "a byte count");
    refused(TransportConf.MAX_FRAME, "4g", "a byte count (optional suffix k, m, g, t) from 1024 to 2147483647");
    refused(TransportConf.SHAPE_RACK, "-1", "a byte count");
  }

  @Test
  void aMisspeltBooleanIsRefusedNotTakenAsTheDefault() {
    refused(RepairWorkerConf.FALLBACK, "flase", "true or false");
    refused(TransportConf.TLS, "yes", "true or false");
  }

  @Test
  void transportAuthenticationNeedsAKnownModeAndALongEnoughSecret() {
    refused(TransportConf.AUTH, "kerberos", "hmac, none");
    IllegalArgumentException missing = assertThrows(IllegalArgumentException.class,
        () -> RepairWorkerConf.from(new Configuration(false)));
    assertTrue(missing.getMessage().contains(TransportConf.SECRET) && missing.getMessage().contains(TransportConf.AUTH + "=none"),
        missing.getMessage());
    IllegalArgumentException shortSecret = assertThrows(IllegalArgumentException.class,
        () -> RepairWorkerConf.from(conf(TransportConf.SECRET, "too-short")));
    assertTrue(shortSecret.getMessage().contains(TransportConf.SECRET) && shortSecret.getMessage().contains("16"),
        shortSecret.getMessage());
  }

  @Test
  void validationIsOnForOurCodecsUnlessTheOperatorTurnsHdfsSwitchOff() {
    // hdfs-default.xml sets HDFS's switch false (for HDFS's codecs): that is not the operator's choice.
    Configuration withDefaults = new org.apache.hadoop.hdfs.HdfsConfiguration();
    withDefaults.set(TransportConf.SECRET, SECRET);
    assertEquals("false", withDefaults.get(RepairWorkerConf.VALIDATION));
    assertEquals(new org.wideec.repair.RebuildValidation(true, 2, 16 * 1024),
        RepairWorkerConf.from(withDefaults).validation());
    withDefaults.setBoolean(RepairWorkerConf.VALIDATION, false);
    assertFalse(RepairWorkerConf.from(withDefaults).validation().enabled());
    assertEquals(new org.wideec.repair.RebuildValidation(true, 0, 0),
        RepairWorkerConf.from(conf(RepairWorkerConf.VALIDATION, "true", RepairWorkerConf.VALIDATION_SLICES, "0",
            RepairWorkerConf.VALIDATION_WINDOW, "0")).validation());
    refused(RepairWorkerConf.VALIDATION, "yes", "true or false");
    refused(RepairWorkerConf.VALIDATION_SLICES, "-1", "an integer from 0");
    refused(RepairWorkerConf.VALIDATION_WINDOW, "1000", "a multiple of 512 (HDFS's checksum chunk)");
  }
}
