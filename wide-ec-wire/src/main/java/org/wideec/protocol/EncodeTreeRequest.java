package org.wideec.protocol;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.wideec.code.Codes;
import org.wideec.code.LinearCode;
import org.wideec.repair.BlockRef;
import org.wideec.topology.Endpoint;
import org.wideec.topology.Site;
import org.wideec.archive.encode.EncodePlan;
import org.wideec.archive.encode.EncodeStripe;
import org.wideec.archive.encode.EncodePlanner;
import org.wideec.archive.encode.RapidRaidPlan;

/**
 * The archiver's request to one collector of a chain encode ({@code chain}): run tree {@link #tree} of the
 * chain plan of this stripe and write each of its parity rows into the block the NameNode allocated for it. It
 * carries what the collector cannot know: the stripe as the archiver planned it (code, holders, data lengths,
 * targets), the slice port of every node of the tree, the READ token of every data block the tree reads and the
 * WRITE token of every parity block it writes (both minted by the NameNode for the archiver, a superuser), and the
 * checksum type and bytes per checksum of the data blocks, which the parity blocks get too. The collector plans the
 * same chain from it (the planner is deterministic) and runs only this tree.
 *
 * <p>Wire format: kind byte {@link #KIND} (apart from the step kinds 0..2, degraded reads' 0x41 and repair's 3, so
 * a DataNode older than this request refuses it), version byte 1, then the fields in declaration order. The reply is
 * a stream of frames: empty ones while the tree runs (so the archiver's stall timeout never fires on a long encode),
 * then one {@link Result} frame, then END; a failure is an ERROR naming the node to blame.
 */
public record EncodeTreeRequest(String stripe, String codeSpec, EncodePlan.Shape shape, int sliceBytes, int tree,
    long[] dataLengths, Map<Integer, Site> holders, Map<Integer, Site> targets, List<Endpoint> endpoints,
    Map<Integer, BlockRef> blocks, List<ParityOutput> outputs, int checksumType, int bytesPerChecksum) {
  public static final int KIND = MessageKind.ENCODE_TREE.code();
  public static final int VERSION = 1;

  /**
   * A parity block to write: the block as the NameNode allocated it ({@code numBytes} = the unit length, the token
   * its WRITE token) and the DataNode it was allocated on, as DataTransferProtocol needs to reach it.
   */
  public record ParityOutput(int unit, BlockRef block, TargetNode target) {}

  /** A DataNode's identity as the NameNode reported it, and the storage the block was allocated on. */
  public record TargetNode(String ipAddr, String hostName, String uuid, int xferPort, int infoPort, int infoSecurePort,
      int ipcPort, String storageType, String storageId) {
    public String xferAddr() {
      return ipAddr + ":" + xferPort;
    }
  }

  /** What the collector stored: per parity unit, its length and the CRC32C of the bytes it sent. */
  public record Stored(int unit, long length, long crc32c) {}

  public EncodeTreeRequest {
    dataLengths = dataLengths.clone();
    holders = Map.copyOf(holders);
    targets = Map.copyOf(targets);
    endpoints = List.copyOf(endpoints);
    blocks = Map.copyOf(blocks);
    outputs = List.copyOf(outputs);
    if (shape == EncodePlan.Shape.STAR || sliceBytes < EncodePlanner.CHUNK || tree < 0 || bytesPerChecksum <= 0) {
      throw new IllegalArgumentException("bad encode tree request for stripe " + stripe + ": shape " + shape
          + ", slices of " + sliceBytes + ", tree " + tree + ", " + bytesPerChecksum + " bytes per checksum");
    }
    for (BlockRef b : blocks.values()) {
      checkToken(stripe, b);
    }
    for (ParityOutput o : outputs) {
      checkToken(stripe, o.block());
    }
  }

  private static void checkToken(String stripe, BlockRef b) {
    if (b.token().length > WireCodec.MAX_TOKEN) {
      throw new IllegalArgumentException("bad encode tree request for stripe " + stripe + ": a block token of "
          + b.token().length + " bytes for " + b + "; at most " + WireCodec.MAX_TOKEN);
    }
  }

  @Override
  public long[] dataLengths() {
    return dataLengths.clone();
  }

  /** Whether a request body is one of these (the first byte names the kind). */
  public static boolean isOne(byte[] body) {
    return MessageKind.isOf(body, MessageKind.Family.ENCODE_TREE);
  }

  /** The stripe as the archiver planned it. */
  public EncodeStripe encodeStripe() {
    LinearCode code = Codes.pinnedFromSpec(codeSpec);
    return new EncodeStripe(stripe, code, holders, dataLengths, targets);
  }

  /**
   * The plan of this request's tree alone, as the archiver planned it (slices no larger than asked and than frames
   * of {@code maxFrameBytes} hold).
   */
  public EncodePlan plan(int maxFrameBytes) {
    EncodePlan whole = EncodePlanner.chain(encodeStripe(), shape, sliceBytes, maxFrameBytes);
    return whole.only(tree);
  }

  public byte[] toBytes() {
    return WireCodec.encode(out -> {
      out.writeByte(KIND);
      out.writeByte(VERSION);
      out.writeUTF(stripe);
      out.writeUTF(codeSpec);
      out.writeByte(shape.ordinal());
      out.writeInt(sliceBytes);
      out.writeInt(tree);
      out.writeShort(dataLengths.length);
      for (long l : dataLengths) {
        out.writeLong(l);
      }
      writeSites(out, holders);
      writeSites(out, targets);
      out.writeShort(endpoints.size());
      for (Endpoint e : endpoints) {
        WireCodec.writeEndpoint(out, e);
      }
      out.writeShort(blocks.size());
      for (Map.Entry<Integer, BlockRef> e : new TreeMap<>(blocks).entrySet()) {
        out.writeShort(e.getKey());
        WireCodec.writeBlock(out, e.getValue());
      }
      out.writeShort(outputs.size());
      for (ParityOutput o : outputs) {
        out.writeShort(o.unit());
        WireCodec.writeBlock(out, o.block());
        writeTargetNode(out, o.target());
      }
      out.writeInt(checksumType);
      out.writeInt(bytesPerChecksum);
    });
  }

  /** A parity's target node: the DatanodeID fields a DataTransferProtocol write needs, and its storage. */
  static void writeTargetNode(DataOutputStream out, TargetNode t) throws IOException {
    out.writeUTF(t.ipAddr());
    out.writeUTF(t.hostName());
    out.writeUTF(t.uuid());
    out.writeInt(t.xferPort());
    out.writeInt(t.infoPort());
    out.writeInt(t.infoSecurePort());
    out.writeInt(t.ipcPort());
    out.writeUTF(t.storageType());
    out.writeUTF(t.storageId());
  }

  static TargetNode readTargetNode(DataInputStream in) throws IOException {
    return new TargetNode(in.readUTF(), in.readUTF(), in.readUTF(), in.readInt(), in.readInt(), in.readInt(),
        in.readInt(), in.readUTF(), in.readUTF());
  }

  private static void writeSites(DataOutputStream out, Map<Integer, Site> sites) throws IOException {
    out.writeShort(sites.size());
    for (Map.Entry<Integer, Site> e : new TreeMap<>(sites).entrySet()) {
      out.writeShort(e.getKey());
      out.writeUTF(e.getValue().node());
      out.writeUTF(e.getValue().rack());
    }
  }

  /** @throws IOException naming what is wrong with a malformed, truncated or out-of-bounds request */
  public static EncodeTreeRequest parse(byte[] bytes) throws IOException {
    return WireCodec.decode(bytes, "encode tree request", in -> {
      WireCodec.requireKind(in, MessageKind.ENCODE_TREE, VERSION, "an encode tree request");
      String stripe = in.readUTF();
      String spec = in.readUTF();
      int shape = in.readUnsignedByte();
      if (shape >= EncodePlan.Shape.values().length) {
        throw new IOException("encode tree request for stripe " + stripe + " names shape " + shape);
      }
      int slice = in.readInt();
      int tree = in.readInt();
      long[] lengths = new long[count(in, stripe)];
      for (int i = 0; i < lengths.length; i++) {
        lengths[i] = in.readLong();
      }
      Map<Integer, Site> holders = readSites(in, stripe);
      Map<Integer, Site> targets = readSites(in, stripe);
      List<Endpoint> endpoints = new ArrayList<>();
      for (int i = count(in, stripe); i > 0; i--) {
        endpoints.add(WireCodec.readEndpoint(in));
      }
      Map<Integer, BlockRef> blocks = new LinkedHashMap<>();
      for (int i = count(in, stripe); i > 0; i--) {
        blocks.put(in.readUnsignedShort(), WireCodec.readBlock(in, "encode tree request for stripe " + stripe));
      }
      List<ParityOutput> outputs = new ArrayList<>();
      for (int i = count(in, stripe); i > 0; i--) {
        int unit = in.readUnsignedShort();
        BlockRef block = WireCodec.readBlock(in, "encode tree request for stripe " + stripe);
        outputs.add(new ParityOutput(unit, block, readTargetNode(in)));
      }
      EncodeTreeRequest r = new EncodeTreeRequest(stripe, spec, EncodePlan.Shape.values()[shape], slice, tree, lengths,
          holders, targets, endpoints, blocks, outputs, in.readInt(), in.readInt());
      WireCodec.requireEnd(in, "encode tree request for stripe " + stripe);
      return r;
    });
  }

  private static int count(DataInputStream in, String stripe) throws IOException {
    int n = in.readUnsignedShort();
    if (n > LinearCode.MAX_UNITS) {
      throw new IOException("encode tree request for stripe " + stripe + " lists " + n + " entries; a stripe has at"
          + " most " + LinearCode.MAX_UNITS + " units");
    }
    return n;
  }

  private static Map<Integer, Site> readSites(DataInputStream in, String stripe) throws IOException {
    Map<Integer, Site> out = new LinkedHashMap<>();
    for (int i = count(in, stripe); i > 0; i--) {
      out.put(in.readUnsignedShort(), new Site(in.readUTF(), in.readUTF()));
    }
    return out;
  }

  /** The reply's result frame: what was stored. */
  public static byte[] resultBytes(List<Stored> stored) {
    return WireCodec.encode(out -> {
      out.writeShort(stored.size());
      for (Stored s : stored) {
        out.writeShort(s.unit());
        out.writeLong(s.length());
        out.writeLong(s.crc32c());
      }
    });
  }

  /** Bytes of a result frame of {@code parities} parities. */
  public static int resultLength(int parities) {
    return RapidRaidPlan.reportBytes(parities);
  }

  public static List<Stored> parseResult(byte[] bytes) throws IOException {
    return WireCodec.decode(bytes, "encode result", in -> {
      List<Stored> out = new ArrayList<>();
      for (int i = in.readUnsignedShort(); i > 0; i--) {
        out.add(new Stored(in.readUnsignedShort(), in.readLong(), in.readLong()));
      }
      WireCodec.requireEnd(in, "encode result");
      return out;
    });
  }

  @Override
  public String toString() {
    return "tree " + tree + " of the " + shape.name().toLowerCase() + " encode of stripe " + stripe + " (" + codeSpec
        + "), parities " + Arrays.toString(outputs.stream().mapToInt(ParityOutput::unit).toArray());
  }
}
