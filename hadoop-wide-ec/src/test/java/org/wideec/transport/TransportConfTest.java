package org.wideec.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;

/** Misconfiguration of the slice transport is refused with a message that names the key. */
class TransportConfTest {
  private static Configuration conf(String... kv) {
    Configuration c = new Configuration(false);
    for (int i = 0; i < kv.length; i += 2) {
      c.set(kv[i], kv[i + 1]);
    }
    return c;
  }

  @Test
  void authenticationIsOnByDefaultAndNeedsASecret() {
    IOException e = assertThrows(IOException.class, () -> TransportConf.from(conf()));
    assertTrue(e.getMessage().contains(TransportConf.SECRET) && e.getMessage().contains(TransportConf.AUTH + "=none"),
        e.getMessage());
  }

  @Test
  void settingsAreReadWithDefaults() throws IOException {
    TransportConf t = TransportConf.from(conf(TransportConf.SECRET, "0123456789abcdef-secret"));
    assertTrue(t.handshake().authenticates());
    assertEquals(TransportConf.DEFAULT_SLICE_BYTES, t.sliceBytes());
    assertEquals(4, t.window());
    assertFalse(t.shaper().enabled(), "no shaping unless configured");
    TransportConf open = TransportConf.from(conf(TransportConf.AUTH, "none", TransportConf.SLICE_BYTES, "64k",
        TransportConf.SHAPE_RACK, "10m"));
    assertFalse(open.handshake().authenticates());
    assertEquals(64 * 1024, open.sliceBytes());
    assertTrue(open.shaper().enabled());
  }

  @Test
  void badValuesNameTheirKey() {
    IllegalArgumentException secret = assertThrows(IllegalArgumentException.class,
        () -> TransportConf.from(conf(TransportConf.SECRET, "short")));
    assertTrue(secret.getMessage().contains(TransportConf.SECRET), secret.getMessage());
    IllegalArgumentException auth = assertThrows(IllegalArgumentException.class,
        () -> TransportConf.from(conf(TransportConf.AUTH, "kerberos")));
    assertTrue(auth.getMessage().contains(TransportConf.AUTH) && auth.getMessage().contains("hmac, none"), auth.getMessage());
    IllegalArgumentException port = assertThrows(IllegalArgumentException.class,
        () -> TransportConf.from(conf(TransportConf.AUTH, "none", TransportConf.PORT, "fifty")));
    assertTrue(port.getMessage().contains(TransportConf.PORT) && port.getMessage().contains("'fifty'"), port.getMessage());
    IllegalArgumentException slice = assertThrows(IllegalArgumentException.class,
        () -> TransportConf.from(conf(TransportConf.AUTH, "none", TransportConf.SLICE_BYTES, "1000")));
    assertTrue(slice.getMessage().contains(TransportConf.SLICE_BYTES), slice.getMessage());
    IllegalArgumentException rate = assertThrows(IllegalArgumentException.class,
        () -> TransportConf.from(conf(TransportConf.AUTH, "none", TransportConf.SHAPE_NODE, "-5")));
    assertTrue(rate.getMessage().contains("shaping"), rate.getMessage());
  }
}
