package org.wideec.protocol;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.wideec.code.Codes;
import org.wideec.code.LinearCode;
import org.wideec.topology.Endpoint;
import org.wideec.repair.LinkWeights;
import org.wideec.repair.RepairScheme;
import org.wideec.repair.StripeRepair;
import org.wideec.repair.BlockRef;
import org.wideec.repair.UnitLocation;

/**
 * The NameNode's order to a DataNode: rebuild lost units of an archived stripe and store each under
 * its block's original id, generation stamp and length, provided its rebuilt bytes' CRC32C equals the manifest's. It
 * carries what the repair needs (code, helpers in order of preference with their slice endpoints and READ tokens,
 * virtual zero units) and the authority to store (the WRITE token of each target block), all minted by the NameNode.
 * Sent on the slice port, so only a peer that proved the cluster secret may send it.
 *
 * <p>Three kinds, after {@link StepRequest}'s 0..2. Kind {@value #KIND} (version 1) rebuilds one unit and stores it on
 * the receiving node; it is what the NameNode sends for one unit, so DataNodes of either version take it (rolling
 * upgrade). Kind {@value #KIND_JOINT} (version 2) rebuilds several units of one stripe by one decode and names each
 * unit's target: the receiving node itself ({@code at} null) or another DataNode, which the receiving node writes to
 * through DataTransferProtocol and whose stored CRC it reads back over the target's slice port. A DataNode older than
 * kind {@value #KIND_JOINT} refuses it as an unknown step request, so a mixed cluster fails a joint order (the
 * NameNode backs off and retries), never stores a wrong unit. Kind {@value #KIND_UNCHECKED} (version 3) is the
 * joint layout for units with no known CRC32C ({@link #NO_CRC}: a block group's units lost with their DataNode),
 * which a DataNode older than it refuses in the same way. Kind {@value #KIND_CHAINED} (version 4) is sent only for a
 * repair whose rack-aggregated chain visits its racks in an order a full-node recovery plan chose
 * ({@link StripeRepair#rackChain}): the joint layout with a flag for units with no known CRC32C, then that order; a
 * DataNode older than it refuses the order, which then goes back to HDFS, never runs a chain the plan did not cost.
 *
 * @param repair the lost units; its helpers' order is the preference the NameNode chose (least recently selected
 *     first)
 * @param endpoints each helper's slice service, by node
 * @param targets one per lost unit, in the repair's order
 */
public record RebuildRequest(StripeRepair repair, Map<String, Endpoint> endpoints, List<Target> targets) {
  /** The kind byte of a one-unit order (step requests use 0..2). */
  public static final int KIND = MessageKind.REBUILD.code();
  /** The kind byte of a several-unit order. */
  public static final int KIND_JOINT = MessageKind.JOINT_REBUILD.code();
  /** The kind byte of an order whose units have no known CRC32C ({@link #NO_CRC}). */
  public static final int KIND_UNCHECKED = MessageKind.UNCHECKED_REBUILD.code();
  /** The kind byte of an order whose rack-aggregated chain visits racks in the order it names. */
  public static final int KIND_CHAINED = MessageKind.CHAINED_REBUILD.code();
  /**
   * A target's expected CRC32C when nobody holds one: a block group's unit lost with its DataNode (an archived block's
   * manifest always has one, a leaving unit's DataNode computes one). The receiving node then stores the unit once the
   * repair engine's second decode of a sample agrees (dfs.datanode.ec.reconstruction.validation), as it does for
   * HDFS's own reconstruction tasks. Sent as its own kind: a DataNode that predates it refuses the order rather than
   * compare the rebuilt bytes with a CRC that is not one.
   */
  public static final long NO_CRC = -1;

  /**
   * A DataNode that stores a unit it does not rebuild itself: what a DataTransferProtocol write to it needs (its
   * DatanodeID's fields) and its slice service, which the rebuilding node asks for the stored replica's CRC.
   */
  public record RemoteNode(String ipAddr, String hostName, String datanodeUuid, int xferPort, int infoPort,
      int infoSecurePort, int ipcPort, Endpoint slice) {}

  /**
   * Where one rebuilt unit goes.
   *
   * @param block the block to store, with its WRITE token
   * @param storageType the storage type to store on (a {@code StorageType} name)
   * @param storageId the target's storage to store on
   * @param expectedCrc the CRC32C the rebuilt unit must have, or {@link #NO_CRC}
   * @param at the target; null: the node that rebuilds
   */
  public record Target(int unit, BlockRef block, String storageType, String storageId, long expectedCrc, RemoteNode at) {}

  public RebuildRequest {
    targets = List.copyOf(targets);
    if (targets.size() != repair.lost().length) {
      throw new IllegalArgumentException(repair.name() + ": " + targets.size() + " targets for "
          + repair.lost().length + " lost units");
    }
    for (int i = 0; i < targets.size(); i++) {
      Target t = targets.get(i);
      if (t.unit() != repair.lost()[i]) {
        throw new IllegalArgumentException(repair.name() + ": target " + i + " is for unit " + t.unit() + ", not "
            + repair.lost()[i]);
      }
      if (t.block().numBytes() != repair.lostLengths()[i]) {
        throw new IllegalArgumentException(repair.name() + ": target " + t.block() + " is not "
            + repair.lostLengths()[i] + " bytes long");
      }
      if ((t.expectedCrc() < 0 && t.expectedCrc() != NO_CRC) || t.expectedCrc() > 0xFFFF_FFFFL) {
        throw new IllegalArgumentException(repair.name() + ": CRC32C " + t.expectedCrc()
            + " is not an unsigned 32-bit value");
      }
      if ((t.expectedCrc() == NO_CRC) != (targets.get(0).expectedCrc() == NO_CRC)) {
        throw new IllegalArgumentException(repair.name() + ": units with and without a CRC32C in one order");
      }
    }
    endpoints = Map.copyOf(endpoints);
    for (UnitLocation h : repair.survivors().values()) {
      if (!endpoints.containsKey(h.node())) {
        throw new IllegalArgumentException(repair.name() + ": no slice endpoint for helper " + h.node());
      }
    }
  }

  /** A one-unit order, stored on the receiving node. */
  public RebuildRequest(StripeRepair repair, Map<String, Endpoint> endpoints, BlockRef target, String storageType,
      String storageId, long expectedCrc) {
    this(repair, endpoints, List.of(new Target(repair.lost().length == 1 ? repair.lost()[0] : -1, target, storageType,
        storageId, expectedCrc, null)));
  }

  /** The (first) unit to rebuild. */
  public int unit() {
    return targets.get(0).unit();
  }

  /** The (first) target block. */
  public BlockRef target() {
    return targets.get(0).block();
  }

  public String storageType() {
    return targets.get(0).storageType();
  }

  public String storageId() {
    return targets.get(0).storageId();
  }

  public long expectedCrc() {
    return targets.get(0).expectedCrc();
  }

  /** Whether a request body is a rebuild request (else a step request). */
  public static boolean is(byte[] body) {
    return MessageKind.isOf(body, MessageKind.Family.REBUILD);
  }

  public byte[] toBytes() {
    boolean unchecked = targets.get(0).expectedCrc() == NO_CRC;
    boolean chained = !repair.rackChain().isEmpty();
    boolean one = targets.size() == 1 && targets.get(0).at() == null && !unchecked && !chained;
    return WireCodec.encode(out -> {
      out.writeByte(one ? KIND : chained ? KIND_CHAINED : unchecked ? KIND_UNCHECKED : KIND_JOINT);
      out.writeUTF(repair.name());
      out.writeUTF(repair.code().spec());
      if (chained) {
        out.writeBoolean(unchecked);
      }
      if (one) {
        writeTarget(out, targets.get(0));
      } else {
        out.writeShort(targets.size());
        for (Target t : targets) {
          writeTarget(out, t);
          out.writeBoolean(t.at() != null);
          if (t.at() != null) {
            RemoteNode r = t.at();
            out.writeUTF(r.ipAddr());
            out.writeUTF(r.hostName());
            out.writeUTF(r.datanodeUuid());
            out.writeInt(r.xferPort());
            out.writeInt(r.infoPort());
            out.writeInt(r.infoSecurePort());
            out.writeInt(r.ipcPort());
            WireCodec.writeEndpoint(out, r.slice());
          }
        }
      }
      out.writeShort(repair.zeroUnits().size());
      for (int z : new TreeSet<>(repair.zeroUnits())) {
        out.writeShort(z);
      }
      List<Integer> order = new ArrayList<>(repair.survivors().keySet());
      order.sort(repair.preference());
      out.writeShort(order.size());
      for (int u : order) {
        UnitLocation loc = repair.survivors().get(u);
        out.writeShort(u);
        WireCodec.writeEndpoint(out, endpoints.get(loc.node()));
        WireCodec.writeBlock(out, repair.blocks().get(u));
      }
      if (chained) {
        out.writeShort(repair.rackChain().size());
        for (String rack : repair.rackChain()) {
          out.writeUTF(rack);
        }
      }
    });
  }

  private static void writeTarget(DataOutputStream out, Target t) throws IOException {
    out.writeShort(t.unit());
    WireCodec.writeBlock(out, t.block());
    out.writeUTF(t.storageType());
    out.writeUTF(t.storageId());
    out.writeInt(t.expectedCrc() == NO_CRC ? 0 : (int) t.expectedCrc());
  }

  /**
   * Parses a request of either kind; the repair gets {@code scheme} (the receiving node's) and the helper order as its
   * preference.
   *
   * @throws IOException naming what is malformed (an unknown code, a unit out of range, a bad length)
   */
  public static RebuildRequest parse(byte[] bytes, RepairScheme scheme) throws IOException {
    return WireCodec.decode(bytes, "rebuild request", in -> {
      int kind = in.readUnsignedByte();
      if (kind != KIND && kind != KIND_JOINT && kind != KIND_UNCHECKED && kind != KIND_CHAINED) {
        throw new IOException("not a rebuild request");
      }
      String name = in.readUTF();
      LinearCode code = Codes.pinnedFromSpec(in.readUTF());
      boolean unchecked = kind == KIND_UNCHECKED || (kind == KIND_CHAINED && in.readBoolean());
      List<Target> targets = new ArrayList<>();
      if (kind == KIND) {
        targets.add(readTarget(in, name, code));
      } else {
        int nt = in.readUnsignedShort();
        if (nt < 1 || nt > code.n()) {
          throw new IOException(name + ": " + nt + " targets for a code of " + code.n() + " units");
        }
        Set<Integer> seen = new TreeSet<>();
        for (int i = 0; i < nt; i++) {
          Target t = readTarget(in, name, code);
          if (unchecked) {
            t = new Target(t.unit(), t.block(), t.storageType(), t.storageId(), NO_CRC, null);
          }
          if (!seen.add(t.unit())) {
            throw new IOException(name + ": unit " + t.unit() + " has two targets");
          }
          if (in.readBoolean()) {
            RemoteNode r = new RemoteNode(in.readUTF(), in.readUTF(), in.readUTF(), port(name, in.readInt()),
                in.readInt(), in.readInt(), in.readInt(), readEndpoint(in, name));
            t = new Target(t.unit(), t.block(), t.storageType(), t.storageId(), t.expectedCrc(), r);
          }
          targets.add(t);
        }
      }
      Set<Integer> zeros = new TreeSet<>();
      int nz = in.readUnsignedShort();
      for (int i = 0; i < nz; i++) {
        zeros.add(unitIn(code, in.readUnsignedShort()));
      }
      int ns = in.readUnsignedShort();
      if (ns > code.n()) {
        throw new IOException(name + ": " + ns + " helpers for a code of " + code.n() + " units");
      }
      Map<Integer, UnitLocation> survivors = new LinkedHashMap<>();
      Map<Integer, BlockRef> blocks = new HashMap<>();
      Map<String, Endpoint> endpoints = new HashMap<>();
      Map<Integer, Integer> rank = new HashMap<>();
      for (int i = 0; i < ns; i++) {
        int u = unitIn(code, in.readUnsignedShort());
        Endpoint e = readEndpoint(in, name);
        survivors.put(u, new UnitLocation(u, e.site()));
        blocks.put(u, WireCodec.readBlock(in, name));
        endpoints.put(e.node(), e);
        rank.put(u, i);
      }
      List<String> chain = new ArrayList<>();
      if (kind == KIND_CHAINED) {
        int nr = in.readUnsignedShort();
        // A chain visits each rack at most once, and a rack holds at least one helper.
        if (nr < 1 || nr > ns) {
          throw new IOException(name + ": a rack chain of " + nr + " racks for " + ns + " helpers");
        }
        for (int i = 0; i < nr; i++) {
          String rack = in.readUTF();
          if (chain.contains(rack)) {
            throw new IOException(name + ": rack " + rack + " twice in the rack chain " + chain);
          }
          chain.add(rack);
        }
      }
      WireCodec.requireEnd(in, name + ": rebuild request");
      int[] lost = targets.stream().mapToInt(Target::unit).toArray();
      long[] lengths = targets.stream().mapToLong(t -> t.block().numBytes()).toArray();
      StripeRepair repair = new StripeRepair(name, code, lost, lengths, survivors, blocks, zeros, scheme,
          LinkWeights.UNIFORM, java.util.Comparator.comparingInt((Integer u) -> rank.getOrDefault(u, Integer.MAX_VALUE)),
          chain);
      return new RebuildRequest(repair, endpoints, targets);
    });
  }

  private static Target readTarget(DataInputStream in, String name, LinearCode code) throws IOException {
    int unit = unitIn(code, in.readUnsignedShort());
    BlockRef block = WireCodec.readBlock(in, name);
    String type = in.readUTF();
    String storage = in.readUTF();
    long crc = in.readInt() & 0xFFFF_FFFFL;
    return new Target(unit, block, type, storage, crc, null);
  }

  private static Endpoint readEndpoint(DataInputStream in, String name) throws IOException {
    Endpoint e = WireCodec.readEndpoint(in);
    port(name + ": " + e.node(), e.port());
    return e;
  }

  private static int port(String what, int port) throws IOException {
    if (port < 1 || port > 65535) {
      throw new IOException(what + " at port " + port);
    }
    return port;
  }

  private static int unitIn(LinearCode code, int u) throws IOException {
    if (u >= code.n()) {
      throw new IOException("unit " + u + " of a code of " + code.n() + " units (" + code.spec() + ")");
    }
    return u;
  }
}
