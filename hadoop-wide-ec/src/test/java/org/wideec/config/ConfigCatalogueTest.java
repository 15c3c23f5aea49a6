package org.wideec.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.wideec.archive.hdfs.ArchiveLayout;
import org.wideec.archive.hdfs.BlockMover;
import org.wideec.archive.hdfs.ChainEncoder;
import org.wideec.archive.hdfs.ClientClassicEncoder;
import org.wideec.archive.hdfs.TrimProtocol;
import org.wideec.archive.hdfs.Unarchiver;
import org.wideec.archive.mr.ArchiveJob;
import org.wideec.datanode.RepairWorkerConf;
import org.wideec.placement.StripedPlacement;
import org.wideec.placement.hdfs.WideEcNameNodePlugin;
import org.wideec.repair.UnusableHelpers;
import org.wideec.transport.FrameMac;
import org.wideec.transport.PeerLimits;
import org.wideec.transport.TransportConf;
import org.wideec.transport.hdfs.TransportConfReader;

/**
 * The catalogue, docs/configuration.md and conf/hdfs-site-wide-ec.xml agree: each default is what the code applies,
 * the doc is what the catalogue renders, and the shipped file shows each key's default. (ConfigKeysTest checks that
 * the catalogue names exactly the keys the sources read.)
 */
class ConfigCatalogueTest {
  private static final Path SETTINGS = Path.of("../conf/hdfs-site-wide-ec.xml");
  /** A name followed by its value, in a property element or on one line inside a commented block. */
  private static final Pattern PROPERTY =
      Pattern.compile("<name>\\s*(wide-ec\\.[^<\\s]+)\\s*</name>\\s*<value>([^<]*)</value>");

  /**
   * Keys the shipped file deliberately shows with a value other than the catalogue's default, and why. Nothing else
   * may differ.
   */
  private static final Map<String, String> SHOWN_OTHERWISE = Map.of(
      "wide-ec.transport.secret", "no default exists: the commented block shows where the operator's secret goes");

  /**
   * Keys whose defaults are literals inside the code that reads them, with no constant or side-effect-free reader a
   * test can call; the catalogue is checked against them by review only.
   */
  private static final Set<String> UNCHECKED = Set.of(
      "wide-ec.coder.native", "wide-ec.coder.vector", "wide-ec.coder.wide.tuning", // read once per JVM, at class init
      "wide-ec.archive.trim.enabled", "wide-ec.archive.repair.enabled", "wide-ec.archive.keeper.enabled",
      "wide-ec.decommission.enabled",
      "wide-ec.lost-units.enabled",
      "wide-ec.archive.mr.encoder", "wide-ec.archive.mr.trim");

  @Test
  void theCheckedInDocIsWhatTheCatalogueGenerates() throws IOException {
    String checkedIn = Files.readString(Path.of("..").resolve(ConfigDocGenerator.DOC));
    assertEquals(ConfigDocGenerator.markdown(), checkedIn,
        ConfigDocGenerator.DOC + " is stale: run dev-support/generate-config-doc.sh");
  }

  @Test
  void theShippedSettingsFileShowsEachKeysCatalogueDefault() throws IOException {
    String xml = Files.readString(SETTINGS);
    Map<String, String> shown = new TreeMap<>();
    Matcher m = PROPERTY.matcher(xml);
    while (m.find()) {
      shown.put(m.group(1), m.group(2).trim());
    }
    assertEquals(xml.split("<name>wide-ec\\.", -1).length - 1, shown.size(),
        "every wide-ec key the file names is followed by its value: " + shown.keySet());
    Map<String, String> differing = new TreeMap<>();
    for (Map.Entry<String, String> e : shown.entrySet()) {
      ConfigKey key = ConfigCatalogue.get(e.getKey());
      if (key == null || key.value() == null || !normal(key.value()).equals(normal(e.getValue()))) {
        differing.put(e.getKey(), e.getValue() + " (catalogue: " + (key == null ? "no such key" : key.defaultText())
            + ")");
      }
    }
    assertEquals(new TreeSet<>(SHOWN_OTHERWISE.keySet()), differing.keySet(),
        "values in " + SETTINGS + " that differ from the catalogue's defaults: " + differing);
  }

  @Test
  void everyCatalogueDefaultIsTheValueTheCodeApplies() throws Exception {
    Map<String, Object> applied = appliedDefaults();
    Set<String> withValue = new TreeSet<>();
    ConfigCatalogue.KEYS.stream().filter(k -> k.value() != null).forEach(k -> withValue.add(k.name()));
    withValue.removeAll(applied.keySet());
    assertEquals(UNCHECKED, withValue, "every default is checked here or listed as unchecked");
    Map<String, String> wrong = new TreeMap<>();
    applied.forEach((name, actual) -> {
      String expected = ConfigCatalogue.get(name).value();
      if (!normal(expected).equals(normal(String.valueOf(actual)))) {
        wrong.put(name, "catalogue " + expected + ", code " + actual);
      }
    });
    assertEquals(Map.of(), wrong);
  }

  /** What the code applies with nothing set: read through the code's own readers where they are cheap, else its constants. */
  private static Map<String, Object> appliedDefaults() throws Exception {
    Configuration none = new Configuration(false);
    Configuration noAuth = new Configuration(false);
    noAuth.set(TransportConf.AUTH, "none");
    RepairWorkerConf worker = RepairWorkerConf.from(noAuth);
    TransportConf t = worker.transport();
    PeerLimits l = t.limits();
    String nr = "org.wideec.placement.hdfs.";
    Map<String, Object> d = new TreeMap<>();
    d.put(StripedPlacement.SCHEME_KEY, StripedPlacement.AUTO);
    d.put(WideEcNameNodePlugin.SCAN_INTERVAL_KEY, WideEcNameNodePlugin.SCAN_INTERVAL_DEFAULT);
    d.put(RepairWorkerConf.SCHEME, worker.scheme().name().toLowerCase(Locale.ROOT));
    d.put(RepairWorkerConf.MAX_ATTEMPTS, worker.maxAttempts());
    d.put(RepairWorkerConf.FALLBACK, worker.fallbackToStock());
    d.put(RepairWorkerConf.HELPER_THREADS, worker.helperThreads());
    d.put(RepairWorkerConf.VALIDATION_SLICES, worker.validation().slices());
    d.put(RepairWorkerConf.VALIDATION_WINDOW, worker.validation().windowBytes());
    d.put(UnusableHelpers.AVOID_KEY, UnusableHelpers.AVOID_DEFAULT_MS);
    d.put(org.wideec.datanode.WideEcDataNodePlugin.WARMUP_KEY, org.wideec.datanode.WideEcDataNodePlugin.WARMUP_DEFAULT);
    d.put(org.wideec.datanode.WideEcDataNodePlugin.CHAIN_WARMUP_KEY,
        org.wideec.datanode.WideEcDataNodePlugin.CHAIN_WARMUP_DEFAULT);
    d.put(org.wideec.datanode.VolumeScrubRate.KEY, org.wideec.datanode.VolumeScrubRate.bytesPerSecond(none));
    org.wideec.datanode.BackgroundTraffic.Settings bg = org.wideec.datanode.BackgroundTraffic.Settings.from(none);
    d.put(org.wideec.datanode.BackgroundTraffic.NODE_KEY, bg.caps().nodeBytesPerSecond());
    d.put(org.wideec.datanode.BackgroundTraffic.RACK_KEY, bg.caps().rackBytesPerSecond());
    d.put(org.wideec.datanode.BackgroundTraffic.BUSY_KEY, bg.busyBytesPerSecond());
    d.put(org.wideec.datanode.BackgroundTraffic.FLOOR_KEY, bg.floorPercent());
    d.put(org.wideec.datanode.BackgroundTraffic.STEP_KEY, bg.stepPercent());
    d.put(org.wideec.datanode.BackgroundTraffic.INTERVAL_KEY, bg.intervalMs());
    d.put(TransportConf.AUTH, refusesWithoutSecret(none) ? "hmac" : "none");
    d.put(FrameMac.KEY, Stream.of("gmac", "hmac").filter(n -> FrameMac.parse(n) == t.frameMac()).findFirst().get());
    d.put(TransportConf.PORT, t.port());
    d.put(TransportConf.BIND_HOST, t.bindHost());
    d.put(TransportConf.TLS, t.tls() != null);
    d.put(TransportConf.SLICE_BYTES, t.sliceBytes());
    d.put(TransportConf.WINDOW, t.window());
    d.put(org.wideec.transport.BackgroundWindow.ROUND_TRIP, t.backgroundWindow().roundTripMs());
    d.put(org.wideec.transport.BackgroundWindow.NODE_LINK, t.backgroundWindow().nodeBytesPerSecond());
    d.put(org.wideec.transport.BackgroundWindow.RACK_LINK, t.backgroundWindow().rackBytesPerSecond());
    d.put(TransportConf.MAX_FRAME, t.maxFrameBytes());
    d.put(TransportConf.STALL_TIMEOUT, t.stallTimeoutMs());
    d.put(TransportConf.CONNECT_TIMEOUT, t.connectTimeoutMs());
    d.put(TransportConf.SHAPE_NODE, field(t.shaper(), "nodeBytesPerSecond"));
    d.put(TransportConf.SHAPE_RACK, field(t.shaper(), "rackBytesPerSecond"));
    d.put(PeerLimits.MAX_CREDITS, l.maxCredits());
    d.put(PeerLimits.MAX_CONNECTIONS, l.maxConnections());
    d.put(PeerLimits.MAX_CONNECTIONS_PER_HOST, l.maxConnectionsPerHost());
    d.put(PeerLimits.RESERVED_PEER_CONNECTIONS, l.reservedPeerConnections());
    d.put(PeerLimits.MAX_CLIENT_CONNECTIONS_PER_HOST, l.maxClientConnectionsPerHost());
    d.put(PeerLimits.HANDSHAKE_TIMEOUT, l.handshakeTimeoutMs());
    d.put(PeerLimits.IDLE_TIMEOUT, l.idleTimeoutMs());
    d.put(PeerLimits.MAX_REQUESTS_PER_PEER, l.maxRequestsPerPeer());
    d.put(PeerLimits.POOL_MAX_IDLE_PER_PEER, l.poolMaxIdlePerPeer());
    d.put(PeerLimits.POOL_IDLE, l.poolIdleMs());
    d.put("wide-ec.client.degraded-read", call("org.wideec.client.RepairChains", "mode", none).toString()
        .toLowerCase(Locale.ROOT));
    d.put("wide-ec.client.degraded-read.hedge.ms", constant("org.wideec.client.RepairChains", "HEDGE_MS_DEFAULT"));
    d.put("wide-ec.client.degraded-read.direct-after-overtaken.ms",
        constant("org.wideec.client.ChainOutlook", "DIRECT_AFTER_OVERTAKEN_MS_DEFAULT"));
    d.put("wide-ec.client.degraded-read.rack-star", constant("org.wideec.client.RepairChains", "RACK_STAR_DEFAULT"));
    d.put("wide-ec.client.degraded-read.slices", constant("org.wideec.client.RepairChains", "TARGET_SLICES"));
    d.put("wide-ec.client.degraded-read.warmup.slices",
        constant("org.wideec.client.DegradedReadWarmup", "SLICES_DEFAULT"));
    d.put("wide-ec.client.archived-reads", call("org.wideec.client.ArchivedReads", "enabled", none));
    d.put(ArchiveLayout.DIR_KEY, ArchiveLayout.DIR_DEFAULT);
    d.put(ArchiveLayout.MANIFEST_REPLICATION_KEY, ArchiveLayout.from(none).manifestReplication());
    d.put(ClientClassicEncoder.CHUNK_KEY, ClientClassicEncoder.CHUNK_DEFAULT);
    d.put(ChainEncoder.SHAPE_KEY, ChainEncoder.shapeOf(none).name().toLowerCase(Locale.ROOT).replace('_', '-'));
    d.put(org.wideec.archive.encode.ChainReads.KEY, ChainEncoder.readsOf(none).name().toLowerCase(Locale.ROOT));
    d.put(ChainEncoder.CONCURRENT_KEY, ChainEncoder.concurrentOf(none));
    d.put(org.wideec.archive.ArchiveGrouping.KEY, org.wideec.archive.ArchiveGrouping.byLabel(
        org.wideec.archive.ArchiveGrouping.DEFAULT).label());
    d.put(BlockMover.PARALLEL_KEY, BlockMover.PARALLEL_DEFAULT);
    d.put(BlockMover.WAIT_KEY, BlockMover.WAIT_DEFAULT);
    d.put(TrimProtocol.WAIT_KEY, TrimProtocol.WAIT_DEFAULT);
    d.put(TrimProtocol.INTERVAL_KEY, TrimProtocol.INTERVAL_DEFAULT);
    d.put(Unarchiver.WAIT_KEY, Unarchiver.WAIT_DEFAULT);
    d.put(org.wideec.archive.hdfs.ParityUpdater.GRACE_KEY, org.wideec.archive.hdfs.ParityUpdater.GRACE_DEFAULT);
    d.put(org.wideec.archive.hdfs.ParityUpdater.EXECUTOR_KEY, org.wideec.archive.hdfs.ParityUpdater.EXECUTOR_DEFAULT);
    d.put(org.wideec.archive.hdfs.ParityUpdater.REENCODE_KEY, org.wideec.archive.hdfs.ParityUpdater.REENCODE_DEFAULT);
    d.put(org.wideec.archive.hdfs.ParityUpdater.CHUNK_KEY,
        org.wideec.archive.hdfs.ParityUpdater.CHUNK_DEFAULT);
    d.put(org.wideec.engine.UpdateRoleService.MEMORY_KEY, org.wideec.engine.UpdateRoleService.MEMORY_DEFAULT);
    d.put(ArchiveJob.MAPS_KEY, ArchiveJob.MAPS_DEFAULT);
    d.put("wide-ec.archive.rapidraid.max-positions", call("org.wideec.datanode.DataNodeSteps",
        "maxPositions", none, RepairWorkerConf.DEFAULT_HELPER_THREADS));
    d.put("wide-ec.decommission.max-concurrent", constant(nr + "DecommissionSettings", "MAX_CONCURRENT_DEFAULT"));
    d.put("wide-ec.lost-units.max-concurrent", constant(nr + "LostUnitSettings", "MAX_CONCURRENT_DEFAULT"));
    d.put("wide-ec.decommission.blocks-per-pass", constant(nr + "DecommissionSettings", "BLOCKS_PER_PASS_DEFAULT"));
    d.put("wide-ec.decommission.link.node.bytes-per-second", constant(nr + "DecommissionSettings", "NODE_RATE_DEFAULT"));
    d.put("wide-ec.decommission.link.rack.bytes-per-second", constant(nr + "DecommissionSettings", "RACK_RATE_DEFAULT"));
    d.put("wide-ec.archive.repair.interval.ms", constant(nr + "ArchiveRepairSettings", "INTERVAL_DEFAULT"));
    d.put("wide-ec.archive.repair.max-concurrent", constant(nr + "ArchiveRepairSettings", "MAX_CONCURRENT_DEFAULT"));
    d.put("wide-ec.archive.repair.backoff.ms", constant(nr + "ArchiveRepairSettings", "BACKOFF_DEFAULT"));
    d.put("wide-ec.archive.repair.backoff.max.ms", call(nr + "ArchiveRepairSettings", "maxBackoff", none));
    d.put("wide-ec.archive.repair.confirm.timeout.ms", constant(nr + "ArchiveRepairSettings", "CONFIRM_DEFAULT"));
    d.put("wide-ec.archive.repair.safemode.wait.ms", call(nr + "ArchiveRepairSettings", "safeModeWait", none));
    d.put("wide-ec.archive.reprotect.interval.ms", constant(nr + "ArchiveReprotector", "INTERVAL_DEFAULT"));
    org.wideec.scrub.hdfs.ScrubSettings scrub = org.wideec.scrub.hdfs.ScrubSettings.from(none);
    d.put(org.wideec.scrub.hdfs.ScrubSettings.ENABLED_KEY, scrub.enabled());
    d.put(org.wideec.scrub.hdfs.ScrubSettings.INTERVAL_KEY, scrub.interval());
    d.put(org.wideec.scrub.hdfs.ScrubSettings.REPAIR_KEY, scrub.repair());
    d.put("wide-ec.archive.keeper.interval.ms", constant(nr + "ArchivePlacementKeeper", "INTERVAL_DEFAULT"));
    d.put("wide-ec.archive.keeper.max-concurrent-moves", constant(nr + "ArchivePlacementKeeper", "MAX_MOVES_DEFAULT"));
    d.put("wide-ec.archive.keeper.max-pins-per-pass", constant(nr + "ArchivePlacementKeeper", "MAX_PINS_DEFAULT"));
    d.put("wide-ec.archive.keeper.backoff.ms", constant(nr + "ArchivePlacementKeeper", "BACKOFF_DEFAULT"));
    return d;
  }

  /** Whether a DataNode's transport with no {@code auth} set demands the secret, as {@code hmac} does. */
  private static boolean refusesWithoutSecret(Configuration conf) {
    try {
      TransportConfReader.from(conf);
      return false;
    } catch (IOException e) {
      assertTrue(e.getMessage().contains(TransportConf.SECRET), e.getMessage());
      return true;
    }
  }

  /** A value as Hadoop reads it: sizes with a k, m or g suffix as bytes, anything else trimmed and lower-cased. */
  static String normal(String value) {
    String v = value.trim().toLowerCase(Locale.ROOT);
    Matcher size = Pattern.compile("(\\d+)([kmg])").matcher(v);
    if (size.matches()) {
      int shift = switch (size.group(2)) {
        case "k" -> 10;
        case "m" -> 20;
        default -> 30;
      };
      return String.valueOf(Long.parseLong(size.group(1)) << shift);
    }
    return v;
  }

  /** A static constant the test package cannot see (the class keeps it package-private). */
  private static Object constant(String className, String name) throws ReflectiveOperationException {
    Field f = Class.forName(className).getDeclaredField(name);
    f.setAccessible(true);
    return f.get(null);
  }

  private static Object field(Object owner, String name) throws ReflectiveOperationException {
    Field f = owner.getClass().getDeclaredField(name);
    f.setAccessible(true);
    return f.get(owner);
  }

  /** A package-private static reader of a default, called with {@code args}. */
  private static Object call(String className, String name, Object... args) throws ReflectiveOperationException {
    Method m = Arrays.stream(Class.forName(className).getDeclaredMethods())
        .filter(x -> x.getName().equals(name) && x.getParameterCount() == args.length).findFirst()
        .orElseThrow(() -> new NoSuchMethodException(className + "." + name));
    m.setAccessible(true);
    return m.invoke(null, args);
  }
}
