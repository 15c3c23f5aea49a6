package org.wideec.config;

import static org.wideec.config.ConfigKey.Area.ARCHIVAL;
import static org.wideec.config.ConfigKey.Area.CLIENT;
import static org.wideec.config.ConfigKey.Area.CODER;
import static org.wideec.config.ConfigKey.Area.PLACEMENT;
import static org.wideec.config.ConfigKey.Area.REPAIR;
import static org.wideec.config.ConfigKey.Area.TRANSPORT;
import static org.wideec.config.ConfigKey.Role.CLI;
import static org.wideec.config.ConfigKey.Role.DATANODE;
import static org.wideec.config.ConfigKey.Role.MAPREDUCE;
import static org.wideec.config.ConfigKey.Role.NAMENODE;

import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.wideec.config.ConfigKey.Area;
import org.wideec.config.ConfigKey.Role;

/**
 * Every configuration key the project reads, with its default as the code applies it, the processes that read it and
 * one line of doc: data only, so the docs, the shipped settings file and the unknown-key check share one list.
 * ConfigCatalogueTest checks each default against the code that applies it and regenerates docs/configuration.md
 * from this list ({@code dev-support/generate-config-doc.sh}).
 */
public final class ConfigCatalogue {
  private static final Set<Role> ARCHIVER = EnumSet.of(CLI, MAPREDUCE);
  private static final Set<Role> DIALERS = EnumSet.of(NAMENODE, DATANODE, Role.CLIENT, CLI, MAPREDUCE);
  private static final Set<Role> CODERS = EnumSet.of(DATANODE, Role.CLIENT, CLI, MAPREDUCE);

  /** Every key, in the order the docs list them (by area, then as an operator meets them). */
  public static final List<ConfigKey> KEYS = List.of(
      fixed("wide-ec.placement.scheme", PLACEMENT, "auto", EnumSet.of(NAMENODE, CLI),
          "auto (UniLRC one local group per rack, other LRCs combined locality, wide-rs topology locality) or force"
              + " flat, tl, cl, unilrc; any other value: one error naming the key and stock placement"),
      fixed("wide-ec.namenode.scan.interval.ms", PLACEMENT, "10000", EnumSet.of(NAMENODE),
          "how often the NameNode plugin checks policies and low-redundancy groups of our codecs, in ms"),

      fixed("wide-ec.repair.scheme", REPAIR, "rack_aggregated", EnumSet.of(DATANODE, NAMENODE),
          "conventional, pipelined, cyclic, weighted, rack_aggregated or rack_star; any other value turns the worker off"
              + " with one error and the DataNode keeps HDFS's stock reconstruction"),
      fixed("wide-ec.repair.max-attempts", REPAIR, "3", EnumSet.of(DATANODE),
          "attempts of one repair (1..255), each without the helpers blamed before"),
      fixed("wide-ec.repair.fallback-to-stock", REPAIR, "true", EnumSet.of(DATANODE),
          "hand a task the worker gave up on to HDFS's reconstructor; false leaves it to the NameNode's retargeting"),
      fixed("wide-ec.repair.helper.threads", REPAIR, "64", EnumSet.of(DATANODE),
          "concurrent helper streams one DataNode serves (at least 1)"),
      fixed("wide-ec.repair.warmup.enabled", REPAIR, "true", EnumSet.of(DATANODE),
          "when the worker starts, run its repair path once on made-up stripes in a background thread (codes, planners,"
              + " request codecs, coding kernel checked against the Java one), so a DataNode's first repairs after"
              + " a start do not wait 1-3 s for it; nothing is sent or stored"),
      fixed("wide-ec.repair.warmup.chain.slices", REPAIR, "16384", EnumSet.of(DATANODE),
          "with the warm-up, slices the helper steps of chains over loopback transports handle (0: none), every"
              + " rebuilt unit compared, so a DataNode's first degraded reads and repairs run compiled code:"
              + " its first chains otherwise took 0.3-2.5 s for 1 MiB, warm ones 0.15 s; nothing leaves 127.0.0.1"),
      fixed("wide-ec.repair.validation.slices", REPAIR, "2", EnumSet.of(DATANODE),
          "slices per rebuilt unit decoded a second time from another input set before it is stored; 0 checks every"
              + " slice (off only with dfs.datanode.ec.reconstruction.validation=false)"),
      fixed("wide-ec.repair.validation.window.bytes", REPAIR, "16384", EnumSet.of(DATANODE),
          "bytes of each sampled slice the second decode checks: a random window, the unit's last bytes in its last"
              + " slice (a multiple of 512; 0, or a size that does not divide the slice, checks whole slices)"),
      fixed("wide-ec.scrub.bytes-per-second", REPAIR, "16777216", EnumSet.of(DATANODE),
          "bytes per second each volume of a DataNode reads for scrub summaries (wide-ec verify), shared by every scrub"
              + " at once; 0: no limit"),
      fixed("wide-ec.background.node.bytes-per-second", REPAIR, "0", EnumSet.of(DATANODE),
          "bytes per second of background work (repairs, rebuild orders, decommission rebuilds, archival encodes) one"
              + " DataNode's slice port sends; degraded reads for users are never capped; 0: no cap, else at least one"
              + " slice per half stall timeout; settable at run time through the DataNode's JMX bean"
              + " (BackgroundNodeCap)"),
      fixed("wide-ec.background.rack.bytes-per-second", REPAIR, "0", EnumSet.of(DATANODE),
          "bytes per second of background work the DataNodes of one rack send to other racks together; each takes an"
              + " equal share (this over the live DataNodes of its rack); 0: no cap, else at least one slice per half"
              + " stall timeout; settable at run time through JMX (BackgroundRackCap)"),
      fixed("wide-ec.background.backoff.busy.bytes-per-second", REPAIR, "0", EnumSet.of(DATANODE),
          "foreground throughput (HDFS reads and writes less repairs' own, plus degraded-read slices) at which a"
              + " DataNode counts as"
              + " busy: each busy sample halves its node cap, each quiet one gives back a step; 0: no back-off"),
      fixed("wide-ec.background.backoff.floor-percent", REPAIR, "10", EnumSet.of(DATANODE),
          "the least share of the node cap the back-off leaves background work, 1..100 (repairs never stop)"),
      fixed("wide-ec.background.backoff.step-percent", REPAIR, "10", EnumSet.of(DATANODE),
          "the share of the node cap each quiet sample gives back, 1..100"),
      fixed("wide-ec.background.sample.interval.ms", REPAIR, "1000", EnumSet.of(DATANODE),
          "how often a DataNode samples its foreground throughput for the back-off, in ms"),
      fixed("wide-ec.scrub.enabled", REPAIR, "false", EnumSet.of(NAMENODE),
          "run the NameNode's continuous scrubber: every archived stripe and block group of our striped policies checked"
              + " from its units' summaries once per interval (needs dfs.block.access.token.enable)"),
      fixed("wide-ec.scrub.interval.ms", REPAIR, "604800000", EnumSet.of(NAMENODE),
          "ms from the end of one scrub pass over every stripe to the start of the next"),
      fixed("wide-ec.scrub.repair", REPAIR, "true", EnumSet.of(NAMENODE),
          "the scrubber reports a unit at fault's replicas that disagree with the other units as corrupt, so they are"
              + " rebuilt from the units that agree; false: found, logged and recorded only"),
      fixed("wide-ec.repair.unusable-helper.avoid.ms", REPAIR, "300000", EnumSet.of(DATANODE, NAMENODE, Role.CLIENT),
          "how long archive rebuilds, degraded reads and rebuild orders plan without a node that could not be"
              + " reached, runs no worker or refused, in ms, or until it names another slice port; 0: only within"
              + " the repair that found it. In WideEcFileSystem: how long its streams read around a DataNode one of"
              + " them could not reach (a dead DataNode the NameNode still lists), by its local group"),
      fixed("wide-ec.decommission.enabled", REPAIR, "true", EnumSet.of(NAMENODE),
          "false: units of our block groups on a decommissioning or entering-maintenance DataNode are copied from it"
              + " by HDFS, as stock; true: rebuilt elsewhere from their local groups by the workers (runs within the"
              + " archive repair monitor, so wide-ec.archive.repair.enabled must be true)"),
      fixed("wide-ec.decommission.max-concurrent", REPAIR, "8", EnumSet.of(NAMENODE),
          "rebuild orders for units of our block groups on leaving DataNodes the NameNode has running at once"),
      fixed("wide-ec.decommission.blocks-per-pass", REPAIR, "100000", EnumSet.of(NAMENODE),
          "blocks of the leaving DataNodes one decommission pass walks (1,000 per hold of the namesystem lock); the next"
              + " pass resumes where it stopped, so a node with more blocks is covered over several passes"),
      fixed("wide-ec.decommission.link.node.bytes-per-second", REPAIR, "1250000000", EnumSet.of(NAMENODE, CLI),
          "one direction of a DataNode's NIC, as decommission plans price each unit's copy from its leaving node"
              + " against its rebuild from other units (the leaving node's NIC carries every copy); 0 (or a rack rate"
              + " of 0): every unit the other units can rebuild is rebuilt"),
      fixed("wide-ec.decommission.link.rack.bytes-per-second", REPAIR, "5000000000", EnumSet.of(NAMENODE, CLI),
          "one direction of a rack's link to the core, as decommission plans price copies against rebuilds (a rebuild"
              + " crossing racks loads the rack links it crosses); 0: as the node rate's 0"),
      fixed("wide-ec.lost-units.enabled", REPAIR, "true", EnumSet.of(NAMENODE),
          "false: units of our block groups lost with their DataNode are reconstructed as HDFS's RedundancyMonitor"
              + " schedules them, stock; true: the NameNode orders the workers to rebuild every lost unit at once,"
              + " holding HDFS's reconstruction back meanwhile (runs within the archive repair monitor, so"
              + " wide-ec.archive.repair.enabled must be true)"),
      fixed("wide-ec.lost-units.max-concurrent", REPAIR, "32", EnumSet.of(NAMENODE),
          "rebuild orders for lost units of our block groups the NameNode has running at once"),

      none("wide-ec.transport.secret", TRANSPORT, "none (required while auth is hmac)", EnumSet.of(DATANODE, NAMENODE),
          "cluster secret (at least 16 characters) DataNodes and the NameNode prove in the handshake; read through"
              + " Hadoop credential providers; clients never hold it"),
      fixed("wide-ec.transport.auth", TRANSPORT, "hmac", DIALERS,
          "hmac, or none: the slice port unauthenticated and without frame MACs (chosen explicitly, on every node)"),
      fixed("wide-ec.transport.frame.mac", TRANSPORT, "gmac", DIALERS,
          "tag on every frame: gmac (AES-256-GMAC; HMAC-SHA256 with peers that do not offer it) or hmac (HMAC-SHA256"
              + " only); negotiated per connection"),
      fixed("wide-ec.transport.port", TRANSPORT, "9873", EnumSet.of(DATANODE),
          "the DataNode's slice port, 0..65535 (0: any free port); every DataNode and code-aware client must reach it"),
      fixed("wide-ec.transport.bind-host", TRANSPORT, "0.0.0.0", EnumSet.of(DATANODE),
          "interface the slice port listens on; must include the DataNode's address as the NameNode knows it"),
      derived("wide-ec.transport.tls.enabled", TRANSPORT, "false", "the value of dfs.encrypt.data.transfer", DIALERS,
          "TLS on the slice port with Hadoop's ssl-server.xml / ssl-client.xml; false while HDFS encrypts data"
              + " transfer is refused"),
      fixed("wide-ec.transport.slice.bytes", TRANSPORT, "256k", DIALERS,
          "slice size: a multiple of 512, at most max-frame.bytes"),
      fixed("wide-ec.transport.window.slices", TRANSPORT, "4", DIALERS,
          "least credits per stream (1..max-credits): background work grants its link's bandwidth-delay product"
              + " (background.window.*), a user's degraded read 2 MiB of slices per hop, each at least this and at"
              + " most max-credits; memory per stream is (window + 1) x slice per hop"),
      fixed("wide-ec.transport.background.window.round-trip.ms", TRANSPORT, "0", DIALERS,
          "round trip, in ms, a hop of background work keeps its path busy across: its window is the narrowest link's"
              + " rate times this, in slices (at least window.slices, at most max-credits); the caps, not the window,"
              + " set its rate; 0 (the default until a run where the links bind shows a gain; 100 is the candidate) keeps background"
              + " streams at window.slices"),
      fixed("wide-ec.transport.background.window.node.bytes-per-second", TRANSPORT, "0", DIALERS,
          "a node's link, bytes/s, as background windows are sized to it; 0: the emulated node link (shaping.node)"
              + " when shaping is on, else 1 Gbit/s (125000000)"),
      fixed("wide-ec.transport.background.window.rack.bytes-per-second", TRANSPORT, "0", DIALERS,
          "a rack's uplink, bytes/s, which sizes the background window of a hop between racks when narrower than the"
              + " node links; 0: the emulated uplink (shaping.rack) when shaping is on, else none"),
      fixed("wide-ec.transport.max-frame.bytes", TRANSPORT, "4m", DIALERS,
          "frames (and requests for slices) above this are refused before they are buffered; at least 1024"),
      fixed("wide-ec.transport.max-credits", TRANSPORT, "64", DIALERS,
          "unacknowledged slices a consumer may grant a producer; a peer granting more is refused"),
      fixed("wide-ec.transport.max-connections", TRANSPORT, "2048", EnumSet.of(DATANODE),
          "inbound slice connections in total; one more is refused naming the key"),
      fixed("wide-ec.transport.max-connections-per-host", TRANSPORT, "512", EnumSet.of(DATANODE),
          "inbound slice connections from one address"),
      derived("wide-ec.transport.reserved-peer-connections", TRANSPORT, "1024",
          "half of wide-ec.transport.max-connections", EnumSet.of(DATANODE),
          "connections only peers that proved the cluster secret may hold (0..max-connections - 1); connections in"
              + " their handshake and clients share the rest"),
      derived("wide-ec.transport.max-client-connections-per-host", TRANSPORT, "64",
          "the smaller of 64 and wide-ec.transport.max-connections-per-host", EnumSet.of(DATANODE),
          "connections from one address that have not proved the cluster secret (in their handshake, or clients)"),
      fixed("wide-ec.transport.handshake.timeout.ms", TRANSPORT, "15000", EnumSet.of(DATANODE),
          "a connection must authenticate and send its request within this, in ms (three crossings of its path,"
              + " which a full rack uplink can slow by seconds)"),
      fixed("wide-ec.transport.idle.timeout.ms", TRANSPORT, "120000", EnumSet.of(DATANODE),
          "a connection silent this long is closed, in ms"),
      fixed("wide-ec.transport.max-requests-per-peer", TRANSPORT, "32", EnumSet.of(DATANODE),
          "helper threads one principal's requests may hold at once; one more is refused at once, not queued"),
      fixed("wide-ec.transport.pool.max-idle-per-peer", TRANSPORT, "8", DIALERS,
          "authenticated connections to one peer kept for reuse after a clean stream; 0 turns reuse off"),
      derived("wide-ec.transport.pool.idle.ms", TRANSPORT, "10000",
          "the smaller of 10000 and half of wide-ec.transport.idle.timeout.ms", DIALERS,
          "how long a kept connection waits for reuse, in ms; must stay below the peers' idle timeout"),
      fixed("wide-ec.transport.stall.timeout.ms", TRANSPORT, "30000", DIALERS,
          "a helper silent this long in a live stream is replaced, in ms"),
      fixed("wide-ec.transport.connect.timeout.ms", TRANSPORT, "10000", DIALERS,
          "how long dialling a slice port may take, in ms"),
      fixed("wide-ec.transport.shaping.node.bytes-per-second", TRANSPORT, "0", DIALERS,
          "link emulation for test beds: every node's NIC, in and out; 0 is off"),
      fixed("wide-ec.transport.shaping.rack.bytes-per-second", TRANSPORT, "0", DIALERS,
          "link emulation for test beds: every rack's uplink, shared by traffic in and out; 0 is off"),

      fixed("wide-ec.client.degraded-read", CLIENT, "pipelined", EnumSet.of(Role.CLIENT),
          "pipelined (a chain of DataNodes rebuilds a lost range and sends it once; direct on any failure) or direct"
              + " (the client fetches the helpers' ranges and decodes); any other value: the file system refuses to"
              + " start"),
      fixed("wide-ec.client.degraded-read.hedge.ms", CLIENT, "500", EnumSet.of(Role.CLIENT),
          "milliseconds a pipelined degraded read waits for its chain before it also reads the range by direct"
              + " decode and takes whichever answers first (a chain still delivering at a pace that finishes it within"
              + " another such delay is given it instead); 0 waits for the chain"),
      fixed("wide-ec.client.degraded-read.direct-after-overtaken.ms", CLIENT, "30000", EnumSet.of(Role.CLIENT),
          "milliseconds after a chain was overtaken by direct decode (its helpers queued, in practice behind the"
              + " repair of the same unit) during which the FileSystem's degraded reads decode directly at once"
              + " instead of asking a chain first; 0 always asks a chain"),
      fixed("wide-ec.client.degraded-read.slices", CLIENT, "32", EnumSet.of(Role.CLIENT),
          "slices a pipelined degraded read cuts its range into (1..1048576; none below 8 KiB): more fill the chain"
              + " sooner (it takes 1 + (helpers - 1) / slices times a plain read, ECPipe §3.2), fewer cost every hop"
              + " fewer frames, MACs and credits"),
      fixed("wide-ec.client.degraded-read.rack-star", CLIENT, "true", EnumSet.of(Role.CLIENT),
          "true: a pipelined degraded read whose helpers sit in at most two racks besides the client's has each rack"
              + " send its partial sum straight to the client (a rack star), keeping a second range off the uplink of"
              + " the chain's middle rack, which a rebuild of the same unit also uses; false: one chain through every"
              + " rack (a flat network, where a reader's NIC is no faster than a rack's uplink)"),
      fixed("wide-ec.client.degraded-read.warmup.slices", CLIENT, "0", EnumSet.of(Role.CLIENT),
          "slices the helper steps of chains over loopback transports handle in a background thread when the"
              + " FileSystem starts (0: none), so a long-running reader's first degraded reads run compiled code; a"
              + " fresh JVM's first chains took 0.17-0.29 s where warm ones took 0.14 s"),
      fixed("wide-ec.client.archived-reads", CLIENT, "true", EnumSet.of(Role.CLIENT),
          "read a block of an archived file with no live replica through a DataNode that rebuilds the range; false"
              + " reads it as stock HDFS (a missing block)"),

      fixed("wide-ec.archive.dir", ARCHIVAL, "/.wideec", EnumSet.of(NAMENODE, DATANODE, Role.CLIENT, CLI, MAPREDUCE),
          "the archival system directory (manifests and parity files), an absolute HDFS path"),
      fixed("wide-ec.archive.manifest.replication", ARCHIVAL, "3", ARCHIVER,
          "replication of manifest files"),
      fixed("wide-ec.archive.classic.chunk.bytes", ARCHIVAL, "1m", ARCHIVER,
          "bytes per unit the classic encoder codes at a time (a multiple of 512, below 1 GiB): memory is (k +"
              + " parities) x this"),
      fixed("wide-ec.archive.chain.shape", ARCHIVAL, "chain", ARCHIVER,
          "the chain encoder's trees: chain (one chain through every holder) or rack-tree (a chain per rack)"),
      fixed("wide-ec.archive.chain.reads", ARCHIVAL, "cheaper", ARCHIVER,
          "which replicas the chain encoder reads: cheaper (the planned nodes after the plan's moves, or a core rack's"
              + " replicas when that sends fewer bytes across racks; the moves then wait for the trim) or planned"
              + " (always the planned nodes: each data block is on its planned node once its stripe is encoded)"),
      fixed("wide-ec.archive.chain.concurrent-stripes", ARCHIVAL, "4", ARCHIVER,
          "stripes of one archive the chain encoder encodes at once (1..64): each runs on its own DataNodes, most of"
              + " them in their own core racks, bound by its busiest node link, and the archiver holds none of their"
              + " bytes (the classic encoder codes one stripe at a time in the archiver's memory)"),
      fixed("wide-ec.archive.grouping", ARCHIVAL, "auto", ARCHIVER,
          "how a new plan groups blocks into stripes: files (file order), racks (around core racks, each stripe's"
              + " blocks with a replica in one rack, EAR) or auto (the one whose chain archival crosses racks less);"
              + " archive --grouping overrides it"),
      fixed("wide-ec.archive.move.parallel", ARCHIVAL, "8", ARCHIVER,
          "blocks the archiver moves onto their planned nodes at once"),
      fixed("wide-ec.archive.move.wait.ms", ARCHIVAL, "120000", ARCHIVER,
          "how long one move may take, the copy and the NameNode dropping the source's replica, in ms"),
      fixed("wide-ec.archive.trim.wait.ms", ARCHIVAL, "600000", ARCHIVER,
          "how long the archiver waits for the NameNode to trim the files it lowered to replication 1, in ms"),
      fixed("wide-ec.unarchive.wait.ms", ARCHIVAL, "600000", EnumSet.of(CLI),
          "how long unarchive waits for HDFS to re-replicate the data blocks before it gives up, freeing nothing"),
      fixed("wide-ec.update.gc.grace.ms", ARCHIVAL, "3600000", EnumSet.of(CLI),
          "how long the parity and set-aside blocks a committed parity update (wide-ec rm) superseded stay readable, for"
              + " degraded reads and repairs that started on the old manifest version, before a run frees them"),
      fixed("wide-ec.update.executor", ARCHIVAL, "datanode", EnumSet.of(CLI),
          "who computes the new parity of a parity update (wide-ec rm, replace): datanode (the DataNodes carry out the"
              + " --scheme plan over their slice ports; needs the DataNode plugin and block tokens, else client, the"
              + " reason logged) or client (the wide-ec process reads changed units and old parity through HDFS)"),
      fixed("wide-ec.update.reencode.when-cheaper", ARCHIVAL, "true", EnumSet.of(CLI),
          "whether the DataNodes re-encode a stripe's rewritten parities along the archival chain instead of running"
              + " the --scheme's delta plan when that crosses racks strictly less (many changed units, mostly removed);"
              + " a member a stock client deleted is re-encoded either way (its old bytes are gone)"),
      fixed("wide-ec.update.chunk.bytes", ARCHIVAL, "1m", EnumSet.of(CLI),
          "bytes per unit a parity update (wide-ec rm) reads, computes and writes at a time: memory is about (changed"
              + " units + parities) x this"),
      fixed("wide-ec.update.datanode.memory.bytes", ARCHIVAL, "256m", EnumSet.of(DATANODE),
          "bytes of slices the parity-update roles one DataNode plays may buffer together; a role past it is refused"
              + " with an ERROR naming this key (busy), and one role alone buffers at most 32 frames of"
              + " wide-ec.transport.max-frame.bytes"),
      fixed("wide-ec.archive.mr.maps", ARCHIVAL, "20", EnumSet.of(CLI),
          "archive --mr: map tasks at most when --maps is not given"),
      none("wide-ec.archive.mr.code", ARCHIVAL, "none (set by archive --mr)", EnumSet.of(MAPREDUCE),
          "the code spec the job's map tasks archive with; written by the job, not by operators"),
      none("wide-ec.archive.mr.placement", ARCHIVAL, "none (set by archive --mr)", EnumSet.of(MAPREDUCE),
          "the placement the job's map tasks plan with; written by the job, not by operators"),
      fixed("wide-ec.archive.mr.encoder", ARCHIVAL, "classic", EnumSet.of(MAPREDUCE),
          "the encoder the job's map tasks run; written by the job, not by operators"),
      fixed("wide-ec.archive.mr.trim", ARCHIVAL, "true", EnumSet.of(MAPREDUCE),
          "whether the job's map tasks lower replication for the trimmer; written by the job, not by operators"),
      none("wide-ec.archive.mr.listing", ARCHIVAL, "none (set by archive --mr)", EnumSet.of(MAPREDUCE),
          "the listing file the job splits into map tasks; written by the job, not by operators"),
      none("wide-ec.archive.mr.hook.class", ARCHIVAL, "none", EnumSet.of(MAPREDUCE),
          "fault-injection tests only: an Archiver.Hook class each map task calls after every manifest write"),
      derived("wide-ec.archive.rapidraid.max-positions", ARCHIVAL, "32", "half of wide-ec.repair.helper.threads",
          EnumSet.of(DATANODE), "RapidRAID pipeline positions one DataNode runs at once; one more is refused"),
      fixed("wide-ec.archive.trim.enabled", ARCHIVAL, "true", EnumSet.of(NAMENODE),
          "false: the NameNode trims nothing and grants no lease, so archivers keep every replica"),
      fixed("wide-ec.archive.trim.interval.ms", ARCHIVAL, "10000", EnumSet.of(NAMENODE),
          "how often the NameNode's trimmer looks for committed stripes whose files were lowered to replication 1"),
      fixed("wide-ec.archive.repair.enabled", ARCHIVAL, "true", EnumSet.of(NAMENODE),
          "false: the NameNode rebuilds no lost archived block"),
      fixed("wide-ec.archive.repair.interval.ms", ARCHIVAL, "10000", EnumSet.of(NAMENODE),
          "how often the NameNode's archive repair monitor looks for archived blocks with no live replica, in ms"),
      fixed("wide-ec.archive.repair.max-concurrent", ARCHIVAL, "4", EnumSet.of(NAMENODE),
          "rebuild orders for archived blocks the NameNode has running at once"),
      fixed("wide-ec.archive.repair.backoff.ms", ARCHIVAL, "30000", EnumSet.of(NAMENODE),
          "how long a block whose rebuild failed waits before the next attempt, doubled per further failure, in ms"),
      derived("wide-ec.archive.repair.backoff.max.ms", ARCHIVAL, "3600000",
          "the larger of 3600000 and wide-ec.archive.repair.backoff.ms", EnumSet.of(NAMENODE),
          "the longest a block whose rebuilds keep failing waits between attempts, in ms"),
      fixed("wide-ec.archive.repair.confirm.timeout.ms", ARCHIVAL, "30000", EnumSet.of(NAMENODE),
          "how long the NameNode waits to see the rebuilt replica on its target before counting the rebuild failed"),
      derived("wide-ec.archive.repair.safemode.wait.ms", ARCHIVAL, "630000",
          "HDFS's dead-node time, 2 x dfs.namenode.heartbeat.recheck-interval + 10 x dfs.heartbeat.interval",
          EnumSet.of(NAMENODE), "how long after the NameNode started the repair monitor waits before rebuilding in"
              + " startup safe mode, in ms"),
      fixed("wide-ec.archive.reprotect.interval.ms", ARCHIVAL, "10000", EnumSet.of(NAMENODE),
          "how often the NameNode raises the other files of archived stripes whose members were deleted, truncated"
              + " or appended, in ms"),
      fixed("wide-ec.archive.keeper.enabled", ARCHIVAL, "true", EnumSet.of(NAMENODE),
          "false: the NameNode neither pins archived replicas nor moves blocks off plan back"),
      fixed("wide-ec.archive.keeper.interval.ms", ARCHIVAL, "60000", EnumSet.of(NAMENODE),
          "how often the NameNode's placement keeper pins replicas on plan and looks for blocks off plan, in ms"),
      fixed("wide-ec.archive.keeper.max-concurrent-moves", ARCHIVAL, "2", EnumSet.of(NAMENODE),
          "moves of archived blocks back onto plan the NameNode has running at once"),
      fixed("wide-ec.archive.keeper.max-pins-per-pass", ARCHIVAL, "10000", EnumSet.of(NAMENODE),
          "archived replicas the keeper asks DataNodes to pin in one pass; the rest on later passes"),
      fixed("wide-ec.archive.keeper.backoff.ms", ARCHIVAL, "60000", EnumSet.of(NAMENODE),
          "how long a block whose move back failed waits before the next attempt, doubled per further failure, in ms"),

      fixed("wide-ec.coder.native", CODER, "true", CODERS,
          "false: the Java kernel codes direct buffers too"),
      fixed("wide-ec.coder.vector", CODER, "true", CODERS,
          "false: the table-driven Java kernel instead of the Vector API one"),
      fixed("wide-ec.coder.wide.tuning", CODER, "auto", CODERS,
          "how the native coder cuts a multiply into passes: auto (by processor), calibrate, default, or a pinned"
              + " group=...,slice=...,prefetch=...,kernel=isal|gfni; every choice gives the same bytes"));

  private static final Map<String, ConfigKey> BY_NAME =
      KEYS.stream().collect(Collectors.toUnmodifiableMap(ConfigKey::name, Function.identity()));

  private ConfigCatalogue() {}

  /** The key named {@code name}, or null. */
  public static ConfigKey get(String name) {
    return BY_NAME.get(name);
  }

  private static ConfigKey fixed(String name, Area area, String value, Set<Role> readBy, String doc) {
    return new ConfigKey(name, area, readBy, value, null, doc);
  }

  private static ConfigKey derived(String name, Area area, String value, String how, Set<Role> readBy, String doc) {
    return new ConfigKey(name, area, readBy, value, how, doc);
  }

  private static ConfigKey none(String name, Area area, String why, Set<Role> readBy, String doc) {
    return new ConfigKey(name, area, readBy, null, why, doc);
  }
}
