package org.wideec.repair;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.wideec.code.Codes;
import org.wideec.code.LinearCode;
import org.wideec.transport.Endpoint;

/**
 * The NameNode's order to a DataNode (issue 13 item 5): rebuild one lost unit of an archived stripe and store it on
 * this node under the block's original id, generation stamp and length, provided the rebuilt bytes' CRC32C equals the
 * manifest's. It carries what the repair needs (code, helpers in order of preference with their slice endpoints and
 * READ tokens, virtual zero units) and the authority to store (the WRITE token of the target block), all minted by
 * the NameNode. Sent on the slice port (kind {@value #KIND}, after {@link StepRequest}'s 0..2), so only a peer that
 * proved the cluster secret may send it; a DataNode older than this kind refuses it as an unknown step request.
 *
 * @param repair one lost unit; its helpers' order is the preference the NameNode chose (least recently selected first)
 * @param endpoints each helper's slice service, by node
 * @param target the block to store, with its WRITE token
 * @param storageType the storage type to store on (a {@code StorageType} name)
 * @param storageId the storage of this DataNode to store on
 * @param expectedCrc the manifest's CRC32C of the unit
 */
public record RebuildRequest(StripeRepair repair, Map<String, Endpoint> endpoints, BlockRef target, String storageType,
    String storageId, long expectedCrc) {
  /** The kind byte that opens the request (step requests use 0..2). */
  public static final int KIND = 3;

  public RebuildRequest {
    if (repair.lost().length != 1) {
      throw new IllegalArgumentException(repair.name() + ": a rebuild request rebuilds one unit, not "
          + repair.lost().length);
    }
    if (target.numBytes() != repair.lostLengths()[0]) {
      throw new IllegalArgumentException(repair.name() + ": target " + target + " is not " + repair.lostLengths()[0]
          + " bytes long");
    }
    if (expectedCrc < 0 || expectedCrc > 0xFFFF_FFFFL) {
      throw new IllegalArgumentException(repair.name() + ": CRC32C " + expectedCrc + " is not an unsigned 32-bit value");
    }
    endpoints = Map.copyOf(endpoints);
    for (UnitLocation h : repair.survivors().values()) {
      if (!endpoints.containsKey(h.node())) {
        throw new IllegalArgumentException(repair.name() + ": no slice endpoint for helper " + h.node());
      }
    }
  }

  /** The unit to rebuild. */
  public int unit() {
    return repair.lost()[0];
  }

  /** Whether a request body is a rebuild request (else a step request). */
  public static boolean is(byte[] body) {
    return body.length > 0 && body[0] == KIND;
  }

  public byte[] toBytes() {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(b)) {
      out.writeByte(KIND);
      out.writeUTF(repair.name());
      out.writeUTF(repair.code().spec());
      out.writeShort(unit());
      writeRef(out, target);
      out.writeUTF(storageType);
      out.writeUTF(storageId);
      out.writeInt((int) expectedCrc);
      out.writeShort(repair.zeroUnits().size());
      for (int z : new TreeSet<>(repair.zeroUnits())) {
        out.writeShort(z);
      }
      List<Integer> order = new ArrayList<>(repair.survivors().keySet());
      order.sort(repair.preference());
      out.writeShort(order.size());
      for (int u : order) {
        UnitLocation loc = repair.survivors().get(u);
        Endpoint e = endpoints.get(loc.node());
        out.writeShort(u);
        out.writeUTF(e.host());
        out.writeInt(e.port());
        out.writeUTF(e.node());
        out.writeUTF(e.rack());
        writeRef(out, repair.blocks().get(u));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return b.toByteArray();
  }

  /**
   * Parses a request; the repair gets {@code scheme} (the receiving node's) and the helper order as its preference.
   *
   * @throws IOException naming what is malformed (an unknown code, a unit out of range, a bad length)
   */
  public static RebuildRequest parse(byte[] bytes, RepairScheme scheme) throws IOException {
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
      if (in.readUnsignedByte() != KIND) {
        throw new IOException("not a rebuild request");
      }
      String name = in.readUTF();
      LinearCode code = Codes.pinnedFromSpec(in.readUTF());
      int unit = unitIn(code, in.readUnsignedShort());
      BlockRef target = readRef(in);
      String type = in.readUTF();
      String storage = in.readUTF();
      long crc = in.readInt() & 0xFFFF_FFFFL;
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
        Endpoint e = new Endpoint(in.readUTF(), in.readInt(), in.readUTF(), in.readUTF());
        if (e.port() < 1 || e.port() > 65535) {
          throw new IOException(name + ": helper " + e.node() + " at port " + e.port());
        }
        survivors.put(u, new UnitLocation(u, e.node(), e.rack()));
        blocks.put(u, readRef(in));
        endpoints.put(e.node(), e);
        rank.put(u, i);
      }
      if (in.available() > 0) {
        throw new IOException(name + ": rebuild request has " + in.available() + " trailing bytes");
      }
      StripeRepair repair = new StripeRepair(name, code, new int[] {unit}, new long[] {target.numBytes()}, survivors,
          blocks, zeros, scheme, LinkWeights.UNIFORM,
          java.util.Comparator.comparingInt((Integer u) -> rank.getOrDefault(u, Integer.MAX_VALUE)));
      return new RebuildRequest(repair, endpoints, target, type, storage, crc);
    } catch (IllegalArgumentException e) {
      throw new IOException("malformed rebuild request: " + e.getMessage(), e);
    }
  }

  private static int unitIn(LinearCode code, int u) throws IOException {
    if (u >= code.n()) {
      throw new IOException("unit " + u + " of a code of " + code.n() + " units (" + code.spec() + ")");
    }
    return u;
  }

  private static void writeRef(DataOutputStream out, BlockRef r) throws IOException {
    out.writeUTF(r.pool());
    out.writeLong(r.blockId());
    out.writeLong(r.genStamp());
    out.writeLong(r.numBytes());
    out.writeShort(r.token().length);
    out.write(r.token());
  }

  private static BlockRef readRef(DataInputStream in) throws IOException {
    String pool = in.readUTF();
    long id = in.readLong();
    long gs = in.readLong();
    long len = in.readLong();
    int t = in.readUnsignedShort();
    if (t > StepRequest.MAX_TOKEN) {
      throw new IOException("block token of " + t + " bytes; at most " + StepRequest.MAX_TOKEN);
    }
    if (len < 0 || gs < 0) {
      throw new IOException("block " + id + ": negative length or generation stamp");
    }
    byte[] token = new byte[t];
    in.readFully(token);
    return new BlockRef(pool, id, gs, len, token);
  }
}
