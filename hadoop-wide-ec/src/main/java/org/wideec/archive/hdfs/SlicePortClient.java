package org.wideec.archive.hdfs;

import java.io.Closeable;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.net.NetUtils;
import org.wideec.archive.encode.EncodePlanner;
import org.wideec.protocol.EncodeTreeRequest;
import org.wideec.protocol.RackSumRequest;
import org.wideec.protocol.RapidRaidStepRequest;
import org.wideec.datanode.JmxEndpointResolver;
import org.wideec.repair.BlockRef;
import org.wideec.engine.DigestRequest;
import org.wideec.protocol.StepRequest;
import org.wideec.engine.SliceDial;
import org.wideec.engine.SummaryQuery;
import org.wideec.protocol.SummaryRequest;
import org.wideec.repair.UnitLocation;
import org.wideec.topology.Site;
import org.wideec.transport.Credential;
import org.wideec.topology.Endpoint;
import org.wideec.transport.Frame;
import org.wideec.transport.PeerFailure;
import org.wideec.transport.PeerStream;
import org.wideec.transport.SliceTransport;
import org.wideec.transport.hdfs.TokenBytes;
import org.wideec.transport.TrafficCounters;
import org.wideec.transport.TransportConf;
import org.wideec.transport.hdfs.TransportConfReader;

/**
 * A client's side of the DataNodes' slice ports (the archiver's, a scrub's): it asks a collector to run a tree of a
 * chain encode, and asks a node for the CRC32C or the linear summary of a replica it stores. The client has no
 * cluster secret: each request proves a block token the NameNode gave it ({@link #requireToken}), and names the client
 * and its rack (the topology mapping's) as the asker, which is how the DataNodes count the replies as in-rack or
 * cross-rack.
 */
public final class SlicePortClient implements Closeable {
  private final Configuration conf;
  private final TransportConf tc;
  private final UnitLocation self;
  private final ExecutorService idle;
  private final JmxEndpointResolver endpoints;
  private final SliceTransport transport;

  public SlicePortClient(Configuration conf) throws IOException {
    this.conf = conf;
    this.tc = TransportConfReader.forClient(conf);
    String host = NetUtils.getLocalHostname();
    this.self = new UnitLocation(-1, new Site("archiver " + host, org.wideec.client.ClientRack.of(conf, host)));
    // A client serves nothing: the executor only satisfies the transport's constructor.
    this.idle = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "wide-ec-archiver-idle");
      t.setDaemon(true);
      return t;
    });
    this.endpoints = new JmxEndpointResolver(conf, tc.connectTimeoutMs());
    SliceTransport t = null;
    try {
      t = new SliceTransport(tc, self.node(), TrafficCounters.NONE, idle);
    } finally {
      if (t == null) {
        endpoints.close();
        idle.shutdownNow();
      }
    }
    this.transport = t;
  }

  TransportConf conf() {
    return tc;
  }

  /** The rack this client's requests name as the asker's (the topology mapping's): where in-rack replies come from. */
  public String rack() {
    return self.rack();
  }

  /**
   * @throws IOException saying why when the token is empty (block tokens off) and the slice ports authenticate: the
   *     archiver has nothing else to prove
   */
  void requireToken(byte[] token, String what) throws IOException {
    requireToken(token, what, "the archiver", "; the chain and rapidraid encoders need block tokens, or use --encoder"
        + " classic");
  }

  private void requireToken(byte[] token, String what, String who, String remedy) throws IOException {
    if (token.length == 0 && !conf.getTrimmed(TransportConf.AUTH, "hmac").equalsIgnoreCase("none")) {
      throw new IOException(what + ": block tokens are off (dfs.block.access.token.enable), so " + who + " has"
          + " nothing to prove to a DataNode's slice port (" + TransportConf.AUTH + "=hmac)" + remedy);
    }
  }

  private Credential credential(byte[] token, String what) throws IOException {
    requireToken(token, what);
    return transport.credentialFor(token);
  }

  /** The slice port of a DataNode (from its /jmx page), named by its transfer address and rack. */
  Endpoint endpoint(String node, String rack, DatanodeInfo dn) throws IOException {
    return endpoints.resolve(new UnitLocation(-1, new Site(node, rack)), dn);
  }

  /**
   * Asks a collector to run its tree, proving {@code token}: empty frames come while the tree runs, then the result,
   * then END; the result counts only once the collector ended cleanly.
   *
   * @throws PeerFailure naming the node to blame, when the collector or its chain failed
   */
  List<EncodeTreeRequest.Stored> runTree(Endpoint collector, EncodeTreeRequest req, byte[] token)
      throws IOException, InterruptedException {
    long id = ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE;
    try (PeerStream s = transport.open(collector, self.node(), self.rack(), id, req.toBytes(),
        credential(token, req.toString()))) {
      for (int i = 0; ; i++) {
        Frame f = s.next(i);
        byte[] payload;
        try {
          payload = new byte[f.payload().readableBytes()];
          f.payload().getBytes(f.payload().readerIndex(), payload);
        } finally {
          f.release();
        }
        s.credit();
        if (payload.length > 0) {
          List<EncodeTreeRequest.Stored> stored = EncodeTreeRequest.parseResult(payload);
          s.awaitEnd();
          return stored;
        }
      }
    }
  }

  /**
   * Asks the last position of a RapidRAID pipeline to run it (it asks its upstream, and so on back to position 0),
   * proving {@code token}: an empty frame per slice as the last position stores it, then every position's report
   * (length and CRC32C of its codeword, position order), then END; the reports count only once it ended cleanly.
   *
   * @throws PeerFailure naming the node to blame, when a position failed
   */
  List<EncodeTreeRequest.Stored> runPipeline(Endpoint last, RapidRaidStepRequest req, byte[] token)
      throws IOException, InterruptedException {
    long id = ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE;
    int n = req.position() + 1;
    try (PeerStream s = transport.open(last, self.node(), self.rack(), id, req.toBytes(),
        credential(token, req.toString()))) {
      for (int i = 0; i < req.slices(); i++) {
        s.next(i, 0).release(); // the last position's progress: it forwards no x
        s.credit();
      }
      Frame f = s.next(req.slices(), EncodeTreeRequest.resultLength(n));
      byte[] b = new byte[EncodeTreeRequest.resultLength(n)];
      try {
        f.payload().getBytes(f.payload().readerIndex(), b);
      } finally {
        f.release();
      }
      s.credit();
      s.awaitEnd();
      return EncodeTreeRequest.parseResult(b);
    }
  }

  /**
   * Opens a stream to a node's slice port carrying a request that proves {@code token} (a parity update's role; its
   * replies are read by the caller).
   */
  PeerStream open(Endpoint node, byte[] request, byte[] token, String what) throws IOException {
    long id = ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE;
    return transport.open(node, self.node(), self.rack(), id, request, credential(token, what));
  }

  /** Asks a node for the CRC32C of a replica it stores (read through its checksum-verified path). */
  long crcOf(LocatedBlock lb, DatanodeInfo node, String where) throws IOException {
    return crcOf(lb, node, where, false);
  }

  /**
   * Asks a node for the CRC32C of a replica it stores and has just read through its verified path for an encode:
   * the node composes it from the replica's chunk checksums where they are CRC32C, reading about 1/128 of the bytes.
   */
  long storedCrcOf(LocatedBlock lb, DatanodeInfo node, String where) throws IOException {
    return crcOf(lb, node, where, true);
  }

  private long crcOf(LocatedBlock lb, DatanodeInfo node, String where, boolean stored) throws IOException {
    ExtendedBlock b = lb.getBlock();
    byte[] token = TokenBytes.of(lb.getBlockToken());
    BlockRef ref = new BlockRef(b.getBlockPoolId(), b.getBlockId(), b.getGenerationStamp(), b.getNumBytes(), token);
    int sliceBytes = tc.sliceBytes() / EncodePlanner.CHUNK * EncodePlanner.CHUNK;
    StepRequest req = stored ? StepRequest.storedDigestOf(ref, sliceBytes) : StepRequest.digestOf(ref, sliceBytes);
    try {
      Credential proof = credential(token, where);
      return atNode(node, e -> DigestRequest.crcOf(transport, e, self, req, proof));
    } catch (PeerFailure p) {
      throw new IOException(where + ": " + node.getXferAddr() + (stored ? " did not give its replica's CRC32C: "
          : " did not read back its replica: ") + p.getMessage(), p);
    } catch (InterruptedException ie) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException(where + ": interrupted reading back the replica's CRC32C");
    }
  }

  /**
   * Asks a node for the linear summary of a replica it stores (read through its checksum-verified path): one page.
   *
   * @param where names the unit in errors
   */
  public byte[] summaryOf(LocatedBlock lb, DatanodeInfo node, int pageSize, int multiplier, String where)
      throws IOException {
    SummaryRequest req = foldOf(lb, pageSize, multiplier, where);
    try {
      Credential proof = transport.credentialFor(req.unit().token());
      return atNode(node, e -> SummaryQuery.summaryOf(transport, e, self, req, proof));
    } catch (PeerFailure p) {
      throw new IOException(where + ": " + node.getXferAddr() + " did not fold its replica: " + p.getMessage(), p);
    } catch (InterruptedException ie) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException(where + ": interrupted folding the replica");
    }
  }

  /**
   * One unit of a rack sum: its located block, the holder that folds it and what its page is multiplied by, one
   * coefficient per check row.
   */
  public record SummedUnit(LocatedBlock block, DatanodeInfo holder, int[] coefficients, String where) {}

  /**
   * Asks the first unit's holder for its rack's sum (org.wideec.protocol.RackSumRequest): it asks each other unit's
   * holder in its rack for its page times the coefficients and sends the sum, one page per check row.
   *
   * @param where names the rack's sum in errors
   */
  public byte[][] rackSumOf(List<SummedUnit> units, int pageSize, int multiplier, String where) throws IOException {
    SummedUnit collector = units.get(0);
    List<RackSumRequest.Upstream> ups = new java.util.ArrayList<>();
    for (SummedUnit u : units.subList(1, units.size())) {
      ups.add(new RackSumRequest.Upstream(endpointOf(u.holder()), new RackSumRequest(foldOf(u.block(), pageSize,
          multiplier, u.where()), u.coefficients(), List.of())));
    }
    RackSumRequest req = new RackSumRequest(foldOf(collector.block(), pageSize, multiplier, collector.where()),
        collector.coefficients(), ups);
    try {
      Credential proof = transport.credentialFor(req.fold().unit().token());
      return atNode(collector.holder(), e -> SummaryQuery.rackSumOf(transport, e, self, req, proof));
    } catch (PeerFailure p) {
      throw new IOException(where + ": " + collector.holder().getXferAddr() + " did not sum its rack's summaries"
          + (p.culprit() == null ? "" : " (" + p.culprit() + " to blame)") + ": " + p.getMessage(), p);
    } catch (InterruptedException ie) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException(where + ": interrupted summing the rack's summaries");
    }
  }

  /** What a holder is asked to fold: the block with the READ token the NameNode gave this client. */
  private SummaryRequest foldOf(LocatedBlock lb, int pageSize, int multiplier, String where) throws IOException {
    ExtendedBlock b = lb.getBlock();
    byte[] token = TokenBytes.of(lb.getBlockToken());
    requireToken(token, where, "a scrub", "; scrubbing needs block tokens");
    return new SummaryRequest(new BlockRef(b.getBlockPoolId(), b.getBlockId(), b.getGenerationStamp(), b.getNumBytes(),
        token), pageSize, multiplier, tc.sliceBytes());
  }

  /** {@code attempt} at the node's slice port, once more where it listens now if it moved there ({@link SliceDial}). */
  private <T> T atNode(DatanodeInfo node, SliceDial.Attempt<T> attempt) throws IOException, InterruptedException {
    return endpoints.dial(node, new Site(node.getXferAddr(), node.getNetworkLocation()), attempt);
  }

  private Endpoint endpointOf(DatanodeInfo node) throws IOException {
    return endpoint(node.getXferAddr(), node.getNetworkLocation(), node);
  }

  @Override
  public void close() {
    transport.close();
    endpoints.close();
    idle.shutdownNow();
  }

  @Override
  public String toString() {
    return self.node() + " (" + self.rack() + ")";
  }
}
