package org.wideec.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.wideec.transport.hdfs.TransportConfReader;

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
    IOException e = assertThrows(IOException.class, () -> TransportConfReader.from(conf()));
    assertTrue(e.getMessage().contains(TransportConf.SECRET) && e.getMessage().contains(TransportConf.AUTH + "=none"),
        e.getMessage());
  }

  @Test
  void settingsAreReadWithDefaults() throws IOException {
    TransportConf t = TransportConfReader.from(conf(TransportConf.SECRET, "0123456789abcdef-secret"));
    assertTrue(t.handshake().authenticates());
    assertEquals(TransportConf.DEFAULT_SLICE_BYTES, t.sliceBytes());
    assertEquals(4, t.window());
    assertEquals(new BackgroundWindow(0, 0, 0), t.backgroundWindow(), "off: background streams keep window.slices");
    assertEquals(new BackgroundWindow(25_000_000, 10_000_000, 0), TransportConfReader.from(conf(TransportConf.AUTH,
        "none", BackgroundWindow.NODE_LINK, "25000000", BackgroundWindow.RACK_LINK, "10000000", BackgroundWindow.ROUND_TRIP,
        "0")).backgroundWindow());
    assertFalse(t.shaper().enabled(), "no shaping unless configured");
    assertEquals(9873, t.port(), "a fixed port a firewall rule can name");
    assertEquals(4 << 20, t.maxFrameBytes());
    assertEquals(8 << 20, TransportConfReader.from(conf(TransportConf.AUTH, "none", TransportConf.MAX_FRAME, "8m")).maxFrameBytes(),
        "byte counts take the suffixes docs/configuration.md shows");
    TransportConf open = TransportConfReader.from(conf(TransportConf.AUTH, "none", TransportConf.SLICE_BYTES, "64k",
        TransportConf.SHAPE_RACK, "10m"));
    assertFalse(open.handshake().authenticates());
    assertEquals(64 * 1024, open.sliceBytes());
    assertTrue(open.shaper().enabled());
  }

  @Test
  void badValuesNameTheirKey() {
    IllegalArgumentException secret = assertThrows(IllegalArgumentException.class,
        () -> TransportConfReader.from(conf(TransportConf.SECRET, "short")));
    assertTrue(secret.getMessage().contains(TransportConf.SECRET), secret.getMessage());
    IllegalArgumentException auth = assertThrows(IllegalArgumentException.class,
        () -> TransportConfReader.from(conf(TransportConf.AUTH, "kerberos")));
    assertTrue(auth.getMessage().contains(TransportConf.AUTH) && auth.getMessage().contains("hmac, none"), auth.getMessage());
    IllegalArgumentException port = assertThrows(IllegalArgumentException.class,
        () -> TransportConfReader.from(conf(TransportConf.AUTH, "none", TransportConf.PORT, "fifty")));
    assertTrue(port.getMessage().contains(TransportConf.PORT) && port.getMessage().contains("'fifty'"), port.getMessage());
    IllegalArgumentException slice = assertThrows(IllegalArgumentException.class,
        () -> TransportConfReader.from(conf(TransportConf.AUTH, "none", TransportConf.SLICE_BYTES, "1000")));
    assertTrue(slice.getMessage().contains(TransportConf.SLICE_BYTES), slice.getMessage());
    IllegalArgumentException rate = assertThrows(IllegalArgumentException.class,
        () -> TransportConfReader.from(conf(TransportConf.AUTH, "none", TransportConf.SHAPE_NODE, "-5")));
    assertTrue(rate.getMessage().contains("shaping"), rate.getMessage());
  }

  @Test
  void aNegativeBackgroundWindowSettingNamesItsKey() {
    for (String key : new String[] {BackgroundWindow.NODE_LINK, BackgroundWindow.RACK_LINK, BackgroundWindow.ROUND_TRIP}) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> TransportConfReader.from(conf(TransportConf.AUTH, "none", key, "-1")));
      assertTrue(e.getMessage().contains(key), e.getMessage());
    }
  }

  @Test
  void tlsFollowsHdfsDataTransferEncryption() throws IOException {
    assertTrue(TransportConfReader.from(conf(TransportConf.AUTH, "none", TransportConf.HDFS_ENCRYPT, "true")).tls() != null);
    assertTrue(TransportConfReader.from(conf(TransportConf.AUTH, "none")).tls() == null);
    IllegalArgumentException off = assertThrows(IllegalArgumentException.class, () -> TransportConfReader.from(
        conf(TransportConf.AUTH, "none", TransportConf.HDFS_ENCRYPT, "true", TransportConf.TLS, "false")));
    assertTrue(off.getMessage().contains(TransportConf.TLS + "=false while " + TransportConf.HDFS_ENCRYPT), off.getMessage());
  }

  @Test
  void peerLimitsAreReadWithSafeDefaultsAndNamedWhenWrong() throws IOException {
    assertEquals(PeerLimits.DEFAULTS, TransportConfReader.from(conf(TransportConf.AUTH, "none")).limits());
    PeerLimits set = TransportConfReader.from(conf(TransportConf.AUTH, "none", PeerLimits.MAX_CREDITS, "8",
        PeerLimits.MAX_CONNECTIONS, "10", PeerLimits.MAX_CONNECTIONS_PER_HOST, "3", PeerLimits.HANDSHAKE_TIMEOUT, "500",
        PeerLimits.IDLE_TIMEOUT, "900", PeerLimits.MAX_REQUESTS_PER_PEER, "2")).limits();
    assertEquals(new PeerLimits(8, 10, 3, 500, 900, 2), set);
    IllegalArgumentException zero = assertThrows(IllegalArgumentException.class,
        () -> TransportConfReader.from(conf(TransportConf.AUTH, "none", PeerLimits.MAX_REQUESTS_PER_PEER, "0")));
    assertTrue(zero.getMessage().contains(PeerLimits.MAX_REQUESTS_PER_PEER), zero.getMessage());
    IllegalArgumentException window = assertThrows(IllegalArgumentException.class,
        () -> TransportConfReader.from(conf(TransportConf.AUTH, "none", PeerLimits.MAX_CREDITS, "2", TransportConf.WINDOW, "4")));
    assertTrue(window.getMessage().contains(PeerLimits.MAX_CREDITS), window.getMessage());
  }

  @Test
  void clientsNeedNoSecret() throws IOException {
    TransportConf client = TransportConfReader.forClient(conf());
    assertFalse(client.handshake().authenticates(), "a client proves block tokens, never the cluster secret");
  }

  @Test
  void theSecretComesFromACredentialProviderNotHdfsSite(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
      throws Exception {
    Configuration c = conf(org.apache.hadoop.security.alias.CredentialProviderFactory.CREDENTIAL_PROVIDER_PATH,
        "localjceks://file" + dir.resolve("wide-ec.jceks"), "hadoop.security.credential.clear-text-fallback", "false");
    org.apache.hadoop.security.alias.CredentialProvider p =
        org.apache.hadoop.security.alias.CredentialProviderFactory.getProviders(c).get(0);
    p.createCredentialEntry(TransportConf.SECRET, "a secret kept in a keystore".toCharArray());
    p.flush();
    assertTrue(c.get(TransportConf.SECRET) == null, "nothing in clear text");
    TransportConf t = TransportConfReader.from(c);
    assertTrue(t.handshake().authenticates());
    assertEquals("a secret kept in a keystore", new String(t.secret(), java.nio.charset.StandardCharsets.UTF_8));
  }
}
