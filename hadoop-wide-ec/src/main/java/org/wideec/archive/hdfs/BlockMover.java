package org.wideec.archive.hdfs;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.Closeable;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.fs.StorageType;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.NameNodeProxies;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.protocol.HdfsConstants;
import org.apache.hadoop.hdfs.protocol.HdfsFileStatus;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.protocol.datatransfer.DataTransferProtoUtil;
import org.apache.hadoop.hdfs.protocol.datatransfer.IOStreamPair;
import org.apache.hadoop.hdfs.protocol.datatransfer.Sender;
import org.apache.hadoop.hdfs.protocol.datatransfer.sasl.DataEncryptionKeyFactory;
import org.apache.hadoop.hdfs.protocol.proto.DataTransferProtos.BlockOpResponseProto;
import org.apache.hadoop.hdfs.protocol.proto.DataTransferProtos.Status;
import org.apache.hadoop.hdfs.protocolPB.PBHelperClient;
import org.apache.hadoop.hdfs.security.token.block.BlockTokenIdentifier;
import org.apache.hadoop.hdfs.server.balancer.KeyManager;
import org.apache.hadoop.hdfs.server.protocol.NamenodeProtocol;
import org.apache.hadoop.io.IOUtils;
import org.apache.hadoop.ipc.RPC;
import org.apache.hadoop.net.NetUtils;
import org.apache.hadoop.security.token.Token;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.wideec.time.Backoff;

/**
 * Copies a replica of a block onto a chosen DataNode the way the Balancer does (DESIGN.md §3.2, research §3):
 * {@code OP_REPLACE_BLOCK} sent to the <em>target</em>, naming a current holder as the proxy source and that
 * holder's DataNode UUID as the delete hint. The target copies the bytes from the source and reports the new
 * replica with the hint; the NameNode, which then counts one replica more than the file's replication, deletes the
 * hinted one through its normal excess handling. So nothing is ever deleted by us, the block id and generation stamp
 * are unchanged, and the block keeps at least its replication throughout.
 *
 * <p>Block access tokens come from the Balancer's own {@link KeyManager} (block keys fetched from the NameNode
 * over {@code NamenodeProtocol}, kept fresh by its updater thread): the token must carry REPLACE, which no client
 * token does. With tokens off it hands out an empty token. It is also the SASL key factory when data transfer is
 * encrypted; the handshake itself is the client's {@code SaslDataTransferClient}. {@code getBlockKeys} needs an
 * HDFS superuser, as the archiver's trim does anyway.
 *
 * <p>Inside the NameNode (its placement keeper moves archived blocks back onto plan) the tokens and keys come from
 * the NameNode's own secret manager instead ({@link Keys}).
 *
 * <p>One mover per archiver run, shared by its moving threads; close it to stop the key updater and the NameNode
 * proxy.
 */
public final class BlockMover implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(BlockMover.class);
  /** How long one move may take, the copy and the NameNode catching up (the source's replica deleted). */
  public static final String WAIT_KEY = "wide-ec.archive.move.wait.ms";
  public static final long WAIT_DEFAULT = 120_000;
  /** How many blocks an archiver moves at once (the Balancer's per-DataNode limit is far higher). */
  public static final String PARALLEL_KEY = "wide-ec.archive.move.parallel";
  public static final int PARALLEL_DEFAULT = 8;
  /** The Dispatcher's socket timeouts: connect within a minute; the target sends IN_PROGRESS while copying. */
  private static final int CONNECT_TIMEOUT_MS = 60_000;
  private static final int READ_TIMEOUT_MS = 300_000;
  private static final int IO_BUFFER = 64 * 1024;

  /** One move: the block of a file, the holder it is copied from, the node it is copied to. */
  public record Move(String file, ExtendedBlock block, DatanodeInfo source, StorageType storageType,
      DatanodeInfo target) {
    String describe() {
      return file + " block " + block.getLocalBlock() + " from " + source.getXferAddr() + " to "
          + target.getXferAddr();
    }
  }

  /**
   * Where a move's authority comes from: a token with REPLACE and COPY for the block (the target checks REPLACE, the
   * proxy COPY), and the keys for encrypted data transfer (SASL).
   */
  public interface Keys extends DataEncryptionKeyFactory {
    /** An empty token when block tokens are off. */
    Token<BlockTokenIdentifier> replaceToken(ExtendedBlock block, StorageType targetType) throws IOException;
  }

  private final DistributedFileSystem dfs;
  private final long waitMs;
  private final Keys fixedKeys;
  private final Map<String, KeyManager> keys = new HashMap<>();
  private NamenodeProtocol namenode;

  /** A client's mover: keys from the NameNode over {@code NamenodeProtocol}, as the Balancer gets them. */
  public BlockMover(DistributedFileSystem dfs) {
    this(dfs, null);
  }

  /** A mover with the given authority (the NameNode's own); {@code dfs} still connects and watches the moves. */
  public BlockMover(DistributedFileSystem dfs, Keys keys) {
    this.dfs = dfs;
    this.waitMs = dfs.getConf().getLong(WAIT_KEY, WAIT_DEFAULT);
    this.fixedKeys = keys;
  }

  /**
   * The ways to bring a replica of {@code lb} onto {@code target}, best first; empty when the target already holds
   * one. The source is a current holder whose replica the NameNode will accept as the excess one: the stock choice
   * honours the delete hint only if dropping it keeps the number of racks ({@code
   * BlockPlacementPolicyDefault#notReduceNumOfGroups}), so a holder in the target's rack qualifies, and any holder
   * does when the target's rack has none; otherwise HDFS would pick another replica, possibly the new one.
   * {@code preferred} (the plan's source, when known) goes first if it qualifies, then holders in the target's
   * rack (the copy stays in the rack). More than one is returned so a pinned or failing source can be skipped.
   */
  public static List<Move> candidates(String file, LocatedBlock lb, DatanodeInfo target, String preferred) {
    return candidates(file, lb.getBlock(), lb.getLocations(), lb.getStorageTypes(), target, preferred);
  }

  /** {@link #candidates(String, LocatedBlock, DatanodeInfo, String)} over given holders (a simulated view). */
  public static List<Move> candidates(String file, ExtendedBlock block, DatanodeInfo[] at, StorageType[] types,
      DatanodeInfo target, String preferred) {
    for (DatanodeInfo d : at) {
      if (d.getXferAddr().equals(target.getXferAddr())) {
        return List.of();
      }
    }
    String targetRack = target.getNetworkLocation();
    boolean targetRackHolds = false;
    for (DatanodeInfo d : at) {
      targetRackHolds |= d.getNetworkLocation().equals(targetRack);
    }
    List<Move> out = new ArrayList<>();
    for (int i = 0; i < at.length; i++) {
      DatanodeInfo d = at[i];
      if (d.isDecommissioned() || d.isDecommissionInProgress()
          || targetRackHolds && !d.getNetworkLocation().equals(targetRack)) {
        continue;
      }
      StorageType type = types != null && types.length > i && types[i] != null ? types[i] : StorageType.DEFAULT;
      Move m = new Move(file, block, d, type, target);
      if (d.getXferAddr().equals(preferred)) {
        out.add(0, m);
      } else {
        out.add(m);
      }
    }
    return out;
  }

  /**
   * Performs the move and waits (at most {@link #WAIT_KEY} ms) until the NameNode lists the target among the
   * block's locations and either no longer lists the source or counts no more {@link #liveReplicas} than the file's
   * replication (nothing left for it to drop: a block short of replicas, or holders decommissioning or in maintenance,
   * which the NameNode never drops as excess; it honours the delete hint only for an excess replica). Decided while
   * polling, so the wait ends as soon as the NameNode has settled. Throws, naming file, block, source and target,
   * when the DataNode refuses (e.g. the source's replica is pinned) or the target never shows up. If the target is
   * listed but the source's excess replica outlives the wait, the move counts as done: the replica is where it must
   * be, and the hinted one is excess already.
   */
  public void move(Move m) throws IOException {
    move(m, Until.SETTLED);
  }

  /** How far a move waits for the NameNode after the target accepted the copy. */
  public enum Until {
    /** The target listed, and the source no longer listed or nothing left for the NameNode to drop. */
    SETTLED,
    /**
     * The target listed. The NameNode chooses the replica it drops when it adds the target's (HDFS's addStoredBlock,
     * with the source as delete hint), so only the source's deletion is left, over the next heartbeats: a caller that
     * lowers the file's replication next, and then waits for its replicas anyway, need not wait for it first.
     */
    TARGET_LISTED
  }

  /** {@link #move(Move)}, waiting only as far as {@code until}. */
  public void move(Move m, Until until) throws IOException {
    HdfsFileStatus file = dfs.getClient().getFileInfo(m.file());
    int replication = file == null ? 0 : file.getReplication();
    sendReplaceBlock(m);
    Backoff poll = Backoff.pollingNameNode(50, waitMs);
    List<String> at = List.of();
    while (true) {
      List<DatanodeInfo> holders = holders(m.file(), m.block().getBlockId());
      at = holders.stream().map(DatanodeInfo::getXferAddr).toList();
      boolean targetThere = at.contains(m.target().getXferAddr());
      boolean sourceThere = at.contains(m.source().getXferAddr());
      if (targetThere && sourceThere && until == Until.TARGET_LISTED) {
        LOG.info("copied {}; the NameNode deletes the source's replica on its own", m.describe());
        return;
      }
      if (targetThere && (!sourceThere || liveReplicas(holders) <= replication)) {
        LOG.info("{} {}", sourceThere ? "copied (no excess replica, so the source keeps its own)" : "moved",
            m.describe());
        return;
      }
      if (poll.expired()) {
        if (targetThere) {
          LOG.warn("moved {}, but after {} ms the NameNode still lists the source's replica too (now on {})",
              m.describe(), waitMs, at);
          return;
        }
        throw new IOException("moving " + m.describe() + " failed: the target accepted the copy but after " + waitMs
            + " ms (" + WAIT_KEY + ") the NameNode lists the block only on " + (at.isEmpty() ? "no node" : at));
      }
      poll.pause("interrupted while waiting for the NameNode to see " + m.describe());
    }
  }

  /** The Dispatcher's sequence: connect to the target, SASL, REPLACE_BLOCK, read responses until not IN_PROGRESS. */
  private void sendReplaceBlock(Move m) throws IOException {
    ExtendedBlock eb = m.block();
    Keys km = keys(eb.getBlockPoolId());
    Token<BlockTokenIdentifier> token = km.replaceToken(eb, m.storageType());
    boolean viaHostname = dfs.getClient().getConf().isConnectToDnViaHostname();
    Socket sock = new Socket();
    DataOutputStream out = null;
    DataInputStream in = null;
    try {
      sock.connect(NetUtils.createSocketAddr(m.target().getXferAddr(viaHostname)), CONNECT_TIMEOUT_MS);
      sock.setSoTimeout(READ_TIMEOUT_MS);
      sock.setKeepAlive(true);
      OutputStream rawOut = sock.getOutputStream();
      InputStream rawIn = sock.getInputStream();
      IOStreamPair sasl = dfs.getClient().getSaslDataTransferClient().socketSend(sock, rawOut, rawIn, km, token,
          m.target());
      out = new DataOutputStream(new BufferedOutputStream(sasl.out, IO_BUFFER));
      in = new DataInputStream(new BufferedInputStream(sasl.in, IO_BUFFER));
      // Delete hint: the source's DataNode UUID, as the NameNode resolves it (BlockManager#addBlock).
      new Sender(out).replaceBlock(eb, m.storageType(), token, m.source().getDatanodeUuid(), m.source(), null);
      out.flush();
      BlockOpResponseProto reply = BlockOpResponseProto.parseFrom(PBHelperClient.vintPrefixed(in));
      while (reply.getStatus() == Status.IN_PROGRESS) { // keep-alives while the target copies
        reply = BlockOpResponseProto.parseFrom(PBHelperClient.vintPrefixed(in));
      }
      DataTransferProtoUtil.checkBlockOpStatus(reply, "moving " + m.describe(), true);
    } catch (IOException e) {
      throw new IOException("moving " + m.describe() + " failed: " + e.getMessage(), e);
    } finally {
      IOUtils.closeStream(out);
      IOUtils.closeStream(in);
      IOUtils.closeSocket(sock);
    }
  }

  private Keys keys(String blockPool) throws IOException {
    if (fixedKeys != null) {
      return fixedKeys;
    }
    KeyManager km = keyManager(blockPool);
    return new Keys() {
      @Override
      public Token<BlockTokenIdentifier> replaceToken(ExtendedBlock block, StorageType targetType) throws IOException {
        return km.getAccessToken(block, new StorageType[] {targetType}, new String[0]);
      }

      @Override
      public org.apache.hadoop.hdfs.security.token.block.DataEncryptionKey newDataEncryptionKey() throws IOException {
        return km.newDataEncryptionKey();
      }
    };
  }

  private synchronized KeyManager keyManager(String blockPool) throws IOException {
    KeyManager km = keys.get(blockPool);
    if (km == null) {
      if (namenode == null) {
        namenode = NameNodeProxies.createProxy(dfs.getConf(), dfs.getUri(), NamenodeProtocol.class).getProxy();
      }
      // As the Balancer's NameNodeConnector: encryption follows the NameNode's server defaults.
      boolean encrypt = dfs.getServerDefaults(new org.apache.hadoop.fs.Path("/")).getEncryptDataTransfer();
      km = new KeyManager(blockPool, namenode, encrypt, dfs.getConf());
      km.startBlockKeyUpdater(); // a no-op thread-wise when tokens are off; keeps keys fresh on long runs
      keys.put(blockPool, km);
    }
    return km;
  }

  /** The DataNodes the NameNode lists for block {@code blockId} of {@code file}. */
  private List<DatanodeInfo> holders(String file, long blockId) throws IOException {
    HdfsFileStatus st = dfs.getClient().getFileInfo(file);
    List<DatanodeInfo> at = new ArrayList<>();
    if (st == null) {
      return at;
    }
    for (LocatedBlock lb : dfs.getClient().getLocatedBlocks(file, 0, st.getLen()).getLocatedBlocks()) {
      if (lb.getBlock().getBlockId() == blockId) {
        at.addAll(java.util.Arrays.asList(lb.getLocations()));
      }
    }
    return at;
  }

  /**
   * Replicas the NameNode counts towards the replication when it looks for excess ones: not on a node decommissioning,
   * decommissioned or in maintenance (it keeps those besides the live ones and never drops them as excess).
   */
  public static int liveReplicas(java.util.Collection<DatanodeInfo> at) {
    int live = 0;
    for (DatanodeInfo d : at) {
      live += d.isDecommissionInProgress() || d.isDecommissioned() || d.isInMaintenance()
          || d.isEnteringMaintenance() ? 0 : 1;
    }
    return live;
  }

  /** The live DataNodes by transfer address (one NameNode call for a whole batch of moves). */
  public Map<String, DatanodeInfo> liveNodes() throws IOException {
    Map<String, DatanodeInfo> live = new HashMap<>();
    for (DatanodeInfo d : dfs.getDataNodeStats(HdfsConstants.DatanodeReportType.LIVE)) {
      live.put(d.getXferAddr(), d);
    }
    return live;
  }

  @Override
  public synchronized void close() {
    keys.values().forEach(KeyManager::close);
    keys.clear();
    if (namenode != null) {
      RPC.stopProxy(namenode);
      namenode = null;
    }
  }
}
