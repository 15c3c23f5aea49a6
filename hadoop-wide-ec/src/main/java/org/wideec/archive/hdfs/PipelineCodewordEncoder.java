package org.wideec.archive.hdfs;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.hadoop.fs.Options.ChecksumOpt;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.protocol.HdfsFileStatus;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.SourcePiece;
import org.wideec.archive.StripeMember;
import org.wideec.protocol.EncodeTreeRequest;
import org.wideec.archive.encode.RapidRaidChain;
import org.wideec.archive.encode.RapidRaidPipeline;
import org.wideec.archive.encode.RapidRaidPlan;
import org.wideec.protocol.RapidRaidRequests;
import org.wideec.protocol.RapidRaidStepRequest;
import org.wideec.topology.Site;
import org.wideec.code.LinearCode;
import org.wideec.repair.BlockRef;
import org.wideec.topology.Endpoint;
import org.wideec.topology.hdfs.DataNodeSites;
import org.wideec.transport.PeerFailure;
import org.wideec.transport.hdfs.TokenBytes;

/**
 * The RapidRAID encoder of sealed archives ({@code --encoder rapidraid}; RapidRAID §IV), run by the
 * DataNodes: no byte of the file passes through the archiver. Per stripe it finds every piece's live replicas, plans
 * the chain where they already are ({@link RapidRaidChainSources}: fewest copies, then a rack loss left decodable,
 * then fewest cross-rack hops), makes the planned copies first ({@link BlockMover}, the Balancer's way, so each block
 * keeps its replication; a copy's source is never a chain node that needs the piece itself), creates codeword i's
 * single-block file and allocates its block on chain node i (favored), and asks the last position to run the
 * pipeline over the slice ports with the READ tokens of the pieces and the WRITE tokens of the codeword blocks. Once
 * every position reports its codeword stored, it completes the files and returns each codeword's CRC32C as
 * reported, and each piece's CRC32C as the chain node holding it reads it; the {@link Archiver} then reads every
 * codeword back and decodes sampled k-subsets before anything of the file is replaced.
 *
 * <p>The manifest plans codeword i on chain node i (where it is written), not where the sealed planner dealt it. Any
 * failure fails the stripe naming the node and its position; no codeword file is completed, and the rerun (ENCODING
 * rolls back) plans the chain again from the replicas as they are then.
 */
public final class PipelineCodewordEncoder implements StripeEncoder {
  private static final Logger LOG = LoggerFactory.getLogger(PipelineCodewordEncoder.class);
  private static final long LEASE_RENEW_MS = 20_000;

  private final RapidRaidPipelines f;
  private final Path file;
  /** The file's path without scheme, as the NameNode's calls name it. */
  final String path;
  private final ParityFiles files;
  private final CodewordFiles codewords;

  PipelineCodewordEncoder(RapidRaidPipelines f, Path file) {
    this.f = f;
    this.file = file;
    this.path = Path.getPathWithoutSchemeAndAuthority(file).toString();
    this.files = new ParityFiles(f.dfs);
    this.codewords = new CodewordFiles(f.dfs);
  }

  @Override
  public String name() {
    return "rapidraid";
  }

  @Override
  public Encoded encode(ArchivedStripe s) throws IOException {
    String name = nameOf(s);
    LinearCode code = s.code();
    int n = code.n();
    int k = code.k();
    long unit = s.unitLength();
    Map<Integer, LocatedBlock> located = locate(s, name);
    f.ports.requireToken(TokenBytes.of(located.get(0).getBlockToken()), name);
    Map<String, DatanodeInfo> live = f.mover.liveNodes();
    short replication = replication(name);
    List<String> moved = new ArrayList<>();
    RapidRaidPlan plan = planAndCopy(s, name, located, live, replication, moved);
    RapidRaidChain chain = plan.chain();
    if (!moved.isEmpty()) {
      located = locate(s, name);
    }
    ArchivedStripe onChain = plannedOnChain(s, chain);
    Path dir = new Path(s.parityFilePath());
    f.dfs.mkdirs(dir);
    long blockSize = Math.max(f.dfs.getFileStatus(file).getBlockSize(), Math.max(512, (unit + 511) / 512 * 512));
    List<ParityFiles.Allocated> blocks = new ArrayList<>();
    List<EncodeTreeRequest.ParityOutput> outputs = new ArrayList<>();
    List<Endpoint> endpoints = new ArrayList<>();
    allocate(onChain, blockSize, live, blocks, outputs, endpoints);
    Map<Integer, BlockRef> pieces = pieceRefs(located, k);
    ChecksumOpt sum = f.dfs.getClient().getConf().getDefaultChecksumOpt();
    RapidRaidStepRequest req = RapidRaidRequests.last(plan, pieces, endpoints, outputs, sum.getChecksumType().id,
        sum.getBytesPerChecksum());
    List<EncodeTreeRequest.Stored> stored = run(s, plan, endpoints.get(n - 1), req, outputs.get(n - 1).block().token());
    synchronized (f) {
      f.plans.add(plan);
    }
    List<String> offPlan = new ArrayList<>();
    List<StripeMember> members = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      files.complete(onChain, i, blocks.get(i));
      members.add(codewords.written(onChain, i, stored.get(i).crc32c(), offPlan));
    }
    List<SourcePiece> sources = sourceCrcs(s, name, chain, located, live);
    HdfsFileStatus dirStatus = f.dfs.getClient().getFileInfo(dir.toString());
    if (dirStatus == null) {
      throw new IOException(name + ": its codeword directory " + dir + " disappeared during the encode");
    }
    long read = 0;
    for (RapidRaidPipeline.Position p : plan.pipeline().positions()) {
      for (int j : p.pieces()) {
        read += plan.pieceLengths()[j]; // every piece is read by its two positions
      }
    }
    LOG.info("{}: rapidraid pipeline done over {}; {} bytes across racks planned, {} moves", name, chain.sites(),
        plan.crossRackBytes(), moved.size());
    return new Encoded(members, sources, dirStatus.getFileId(), read, (long) n * unit, offPlan);
  }

  /**
   * Plans the chain and makes its copies. The plan already chose every copy's source as the NameNode will see it
   * (what the dry run prints). A copy can still be refused at run time (a pinned or failing source, the replicas
   * changed meanwhile): then that target is left out and the chain planned again from where the replicas are now
   * (copies already made stay: each kept the block's replication), a few times at most.
   */
  private RapidRaidPlan planAndCopy(ArchivedStripe s, String name, Map<Integer, LocatedBlock> located,
      Map<String, DatanodeInfo> live, short replication, List<String> moved) throws IOException {
    Set<String> leftOut = new HashSet<>();
    Map<Integer, LocatedBlock> now = located;
    while (true) {
      RapidRaidPlan plan = RapidRaidChainSources.plan(s, name, path, now, live, leftOut, replication,
          f.ports.conf().sliceBytes(), f.ports.conf().maxFrameBytes());
      try {
        moved.addAll(makeMoves(s, name, plan.chain(), live));
        return plan;
      } catch (RapidRaidChainSources.CannotCopy e) {
        moved.addAll(e.done);
        if (leftOut.size() >= RapidRaidChainSources.MAX_REPLANS || !leftOut.add(e.target)) {
          throw e;
        }
        LOG.info("{}; planning the chain again without {}", e.getMessage(), e.target);
        now = locate(s, name);
      }
    }
  }

  /** Each piece's replica with its READ token, a short stripe's virtual pieces as empty blocks. */
  private static Map<Integer, BlockRef> pieceRefs(Map<Integer, LocatedBlock> located, int k) {
    Map<Integer, BlockRef> pieces = new HashMap<>();
    String pool = located.get(0).getBlock().getBlockPoolId();
    for (int t = 0; t < k; t++) {
      LocatedBlock lb = located.get(t);
      if (lb == null) {
        pieces.put(t, new BlockRef(pool, 0, 0, 0)); // a short stripe's virtual zero piece: nothing stored
      } else {
        ExtendedBlock b = lb.getBlock();
        pieces.put(t, new BlockRef(b.getBlockPoolId(), b.getBlockId(), b.getGenerationStamp(), b.getNumBytes(),
            TokenBytes.of(lb.getBlockToken())));
      }
    }
    return pieces;
  }

  /**
   * Each source piece with its CRC32C, taken on the chain node holding it from the piece's chunk checksums (its
   * position has just read the piece through the verified path).
   */
  private List<SourcePiece> sourceCrcs(ArchivedStripe s, String name, RapidRaidChain chain,
      Map<Integer, LocatedBlock> located, Map<String, DatanodeInfo> live) throws IOException {
    List<SourcePiece> sources = new ArrayList<>();
    for (int t = 0; t < s.sources().size(); t++) {
      // Position t holds piece t (RapidRAID §IV): its node gives the CRC32C, so no piece byte leaves it.
      DatanodeInfo holder = live.get(chain.site(t).node());
      String where = name + " piece " + t + " (block " + s.sources().get(t).blockId() + ")";
      sources.add(s.sources().get(t).withCrc(f.ports.storedCrcOf(located.get(t), holder, where)));
    }
    return sources;
  }

  /** Codeword i's single-block file and its block on chain node i, with the WRITE token position i stores with. */
  private void allocate(ArchivedStripe onChain, long blockSize, Map<String, DatanodeInfo> live,
      List<ParityFiles.Allocated> blocks, List<EncodeTreeRequest.ParityOutput> outputs, List<Endpoint> endpoints)
      throws IOException {
    long unit = onChain.unitLength();
    for (int i = 0; i < onChain.code().n(); i++) {
      ParityFiles.Allocated a = files.allocate(onChain, i, blockSize, unit);
      blocks.add(a);
      outputs.add(a.output(i));
      StripeMember m = onChain.member(i);
      endpoints.add(f.ports.endpoint(m.plannedNode(), m.plannedRack(), live.get(m.plannedNode())));
    }
  }

  String nameOf(ArchivedStripe s) {
    return path + " stripe " + s.stripeId();
  }

  /**
   * Every source piece's block as the NameNode lists it now, by piece index; a block that changed since it was
   * planned (the lifecycle checked just before) fails the stripe.
   */
  Map<Integer, LocatedBlock> locate(ArchivedStripe s, String name) throws IOException {
    Map<Long, LocatedBlock> byId = new HashMap<>();
    HdfsFileStatus st = f.dfs.getClient().getFileInfo(path);
    if (st == null) {
      throw new IOException(name + ": " + path + " is gone");
    }
    for (LocatedBlock lb : f.dfs.getClient().getLocatedBlocks(path, 0, Math.max(1, st.getLen())).getLocatedBlocks()) {
      byId.put(lb.getBlock().getBlockId(), lb);
    }
    Map<Integer, LocatedBlock> out = new HashMap<>();
    for (int t = 0; t < s.sources().size(); t++) {
      SourcePiece p = s.sources().get(t);
      LocatedBlock lb = byId.get(p.blockId());
      if (lb == null || lb.getBlock().getGenerationStamp() != p.generationStamp()
          || lb.getBlock().getNumBytes() != p.length()) {
        throw new IOException(name + " piece " + t + ": block " + p.blockId() + " of " + path + " is "
            + (lb == null ? "gone" : lb.getBlock().toString()) + ", the manifest has generation stamp "
            + p.generationStamp() + " and " + p.length() + " bytes");
      }
      out.put(t, lb);
    }
    return out;
  }

  short replication(String name) throws IOException {
    HdfsFileStatus st = f.dfs.getClient().getFileInfo(path);
    if (st == null) {
      throw new IOException(name + ": " + file + " is gone");
    }
    return st.getReplication();
  }

  /**
   * The chain's copies, one at a time, each from the NameNode's view just before it. A holder whose replica a chain
   * position needs is never the source: the NameNode drops the source's replica once the copy is reported.
   */
  private List<String> makeMoves(ArchivedStripe s, String name, RapidRaidChain chain, Map<String, DatanodeInfo> live)
      throws IOException {
    List<String> done = new ArrayList<>();
    List<RapidRaidPipelines.Copy> copies = new ArrayList<>();
    for (RapidRaidChain.Move mv : chain.moves()) {
      int piece = mv.piece();
      if (piece >= s.sources().size()) {
        continue; // a virtual piece is never copied (the planner sees it everywhere)
      }
      LocatedBlock lb = locate(s, name).get(piece);
      DatanodeInfo target = live.get(mv.to().node());
      if (Arrays.stream(lb.getLocations()).anyMatch(d -> d.getXferAddr().equals(mv.to().node()))) {
        continue;
      }
      List<BlockMover.Move> candidates = RapidRaidChainSources.copySources(s, chain, piece,
          BlockMover.candidates(path, lb, target, mv.from().node()));
      IOException last = null;
      for (BlockMover.Move c : candidates) {
        try {
          f.mover.move(c);
          String line = name + " piece " + piece + " (" + path + " block " + lb.getBlock().getBlockId() + "): copied from "
              + c.source().getXferAddr() + " to chain node " + target.getXferAddr() + " (" + target.getNetworkLocation()
              + ")";
          LOG.info("{}", line);
          done.add(line);
          copies.add(new RapidRaidPipelines.Copy(s.stripeId(), piece, DataNodeSites.of(c.source()), mv.to(),
              lb.getBlock().getNumBytes()));
          last = null;
          break;
        } catch (IOException e) {
          last = e;
        }
      }
      if (candidates.isEmpty() || last != null) {
        synchronized (f) {
          f.moves.addAll(done);
          f.copies.addAll(copies);
        }
        throw RapidRaidChainSources.CannotCopy.onto(name, piece, lb.getBlock().getBlockId(), mv.to(), -1,
            Arrays.stream(lb.getLocations()).map(DatanodeInfo::getXferAddr).toList(), last, done);
      }
    }
    synchronized (f) {
      f.moves.addAll(done);
      f.copies.addAll(copies);
    }
    return done;
  }

  /** The stripe with codeword i planned on chain node i, where position i writes it. */
  private static ArchivedStripe plannedOnChain(ArchivedStripe s, RapidRaidChain chain) {
    List<StripeMember> members = new ArrayList<>();
    for (int i = 0; i < s.members().size(); i++) {
      StripeMember m = s.member(i);
      Site at = chain.site(i);
      members.add(new StripeMember(m.role(), m.padding(), m.inodeId(), m.blockId(), m.generationStamp(), m.length(),
          m.crc32c(), at.node(), at.rack()));
    }
    return s.withMembers(members);
  }

  /** Runs the pipeline from the archiver's thread pool, renewing the codeword files' lease while it runs. */
  private List<EncodeTreeRequest.Stored> run(ArchivedStripe s, RapidRaidPlan plan, Endpoint last,
      RapidRaidStepRequest req, byte[] token) throws IOException {
    Future<List<EncodeTreeRequest.Stored>> running = f.threads.submit(() -> f.ports.runPipeline(last, req, token));
    List<EncodeTreeRequest.Stored> out;
    try {
      while (true) {
        try {
          out = running.get(LEASE_RENEW_MS, TimeUnit.MILLISECONDS);
          break;
        } catch (TimeoutException e) {
          files.renewLease(); // the files were created outside an output stream: no lease renewer knows them
        }
      }
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      String blame = cause instanceof PeerFailure p && p.culprit() != null ? " (" + blame(plan, p.culprit()) + ")" : "";
      throw new IOException("stripe " + s.stripeId() + ": rapidraid pipeline failed" + blame + ": " + cause.getMessage()
          + "; no codeword file was completed, a rerun encodes the stripe again", cause);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("stripe " + s.stripeId() + ": interrupted during the rapidraid pipeline");
    } finally {
      running.cancel(true);
    }
    int n = plan.code().n();
    boolean ok = out.size() == n;
    for (int i = 0; ok && i < n; i++) {
      ok = out.get(i).unit() == i && out.get(i).length() == plan.unitBytes();
    }
    if (!ok) {
      throw new IOException("stripe " + s.stripeId() + ": the pipeline reported " + out + ", not positions 0.." + (n - 1)
          + " with " + plan.unitBytes() + " bytes each");
    }
    return out;
  }

  private static String blame(RapidRaidPlan plan, String node) {
    for (int i = 0; i < plan.code().n(); i++) {
      if (plan.site(i).node().equals(node)) {
        return "blaming " + node + ", position " + i;
      }
    }
    return "blaming " + node;
  }
}
