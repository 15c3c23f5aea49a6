package org.wideec.protocol;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.wideec.protocol.UpdateRoleRequest.Input;
import org.wideec.protocol.UpdateRoleRequest.Output;
import org.wideec.repair.BlockRef;

/**
 * The bytes of an {@link UpdateRoleRequest}, both versions. Version 1: kind byte, version byte 1, then the fields in
 * declaration order (an absent block is a zero flag byte). Version 2, written when a unit is zeros or the transfers
 * are bound: a flags byte after the version byte (bit 0 the old data is zeros, bit 1 the old parity is), then the same
 * fields with each input's key after its node and each output's consumer and key after its transfer number; a zero
 * old unit is then absent. Version 1's bytes are exactly what the release before wrote (pinned by golden bytes).
 * Every count and width is checked before anything of that size is allocated.
 */
final class UpdateRoleCodec {
  private static final int OLD_DATA_ZERO = 1;
  private static final int OLD_PARITY_ZERO = 2;

  private UpdateRoleCodec() {}

  static byte[] toBytes(UpdateRoleRequest r) {
    return WireCodec.encode(out -> {
      int zeros = (r.oldDataZero() ? OLD_DATA_ZERO : 0) | (r.oldParityZero() ? OLD_PARITY_ZERO : 0);
      boolean v2 = zeros != 0 || r.bound();
      out.writeByte(UpdateRoleRequest.KIND);
      out.writeByte(v2 ? UpdateRoleRequest.VERSION_2 : UpdateRoleRequest.VERSION); // version 1's bytes stay as they were
      if (v2) {
        out.writeByte(zeros);
      }
      out.writeLong(r.updateKey());
      out.writeUTF(r.update());
      out.writeUTF(r.place());
      out.writeInt(r.sliceBytes());
      out.writeLong(r.length());
      writeOptional(out, r.oldData());
      writeOptional(out, r.newData());
      out.writeShort(r.inputs().size());
      for (Input in : r.inputs()) {
        out.writeInt(in.transfer());
        out.writeShort(in.rows());
        WireCodec.writeEndpoint(out, in.from());
        if (v2) {
          out.writeLong(in.key());
        }
      }
      out.writeShort(r.outputs().size());
      for (Output o : r.outputs()) {
        out.writeInt(o.transfer());
        if (v2) {
          out.writeUTF(o.bound() ? o.consumer() : "");
          out.writeLong(o.key());
        }
        int[][] rows = o.rows();
        out.writeShort(rows.length);
        for (int[] row : rows) {
          writeRow(out, row);
        }
      }
      int[] parityDelta = r.parityDelta();
      out.writeBoolean(parityDelta != null);
      if (parityDelta != null) {
        writeRow(out, parityDelta);
        if (r.oldParity() != null) {
          WireCodec.writeBlock(out, r.oldParity());
        }
        WireCodec.writeBlock(out, r.newParity().block());
        EncodeTreeRequest.writeTargetNode(out, r.newParity().target());
      }
      out.writeInt(r.checksumType());
      out.writeInt(r.bytesPerChecksum());
      if (r.relayToken() != null) { // only a role that reads no block has one
        WireCodec.writeBlock(out, r.relayToken());
      }
    });
  }

  private static void writeOptional(DataOutputStream out, BlockRef b) throws IOException {
    out.writeBoolean(b != null);
    if (b != null) {
      WireCodec.writeBlock(out, b);
    }
  }

  private static void writeRow(DataOutputStream out, int[] row) throws IOException {
    for (int c : row) {
      out.writeByte(c);
    }
  }

  /** @throws IOException naming what is wrong with a malformed, truncated or out-of-bounds request */
  static UpdateRoleRequest parse(byte[] bytes) throws IOException {
    return WireCodec.decode(bytes, "update role", in -> {
      int version = WireCodec.requireKind(in, MessageKind.UPDATE_ROLE, UpdateRoleRequest.VERSION,
          UpdateRoleRequest.VERSION_2, "an update role");
      int zeros = version == UpdateRoleRequest.VERSION ? 0 : in.readUnsignedByte();
      if ((zeros & ~(OLD_DATA_ZERO | OLD_PARITY_ZERO)) != 0) {
        throw new IOException("update role of version " + version + " with zero-unit flags " + zeros + "; known: "
            + OLD_DATA_ZERO + " (old data) and " + OLD_PARITY_ZERO + " (old parity)");
      }
      boolean oldDataZero = (zeros & OLD_DATA_ZERO) != 0;
      boolean oldParityZero = (zeros & OLD_PARITY_ZERO) != 0;
      long key = in.readLong();
      String update = in.readUTF();
      String place = in.readUTF();
      String subject = "update role " + place + " of " + update;
      int slice = in.readInt();
      long length = in.readLong();
      BlockRef oldData = readOptional(in, subject);
      BlockRef newData = readOptional(in, subject);
      int held = oldData == null && !oldDataZero ? 0 : 1;
      List<Input> inputs = new ArrayList<>();
      for (int i = count(in, subject); i > 0; i--) {
        Input input = new Input(in.readInt(), in.readUnsignedShort(), WireCodec.readEndpoint(in),
            version == UpdateRoleRequest.VERSION ? 0 : in.readLong());
        inputs.add(input);
        held += input.rows();
      }
      if (held > UpdateRoleRequest.MAX_TRANSFERS) { // before any row of that width is allocated
        throw new IOException(subject + " holds " + held + " rows; at most " + UpdateRoleRequest.MAX_TRANSFERS + " (units in a stripe)");
      }
      List<Output> outputs = new ArrayList<>();
      int sent = 0;
      for (int i = count(in, subject); i > 0; i--) {
        int transfer = in.readInt();
        String consumer = version == UpdateRoleRequest.VERSION ? "" : in.readUTF();
        long outKey = version == UpdateRoleRequest.VERSION ? 0 : in.readLong();
        int rows = in.readUnsignedShort();
        sent += rows;
        if (rows > StepRequest.MAX_ROWS || sent > UpdateRoleRequest.MAX_TRANSFERS) {
          throw new IOException(subject + ": output transfer " + transfer + " of " + rows + " rows; at most "
              + UpdateRoleRequest.MAX_TRANSFERS + " rows sent in all (units in a stripe)");
        }
        int[][] r = new int[rows][];
        for (int j = 0; j < rows; j++) {
          r[j] = readRow(in, held);
        }
        outputs.add(new Output(transfer, r, consumer.isEmpty() ? null : consumer, outKey));
      }
      int[] parityDelta = null;
      BlockRef oldParity = null;
      EncodeTreeRequest.ParityOutput newParity = null;
      if (in.readBoolean()) {
        parityDelta = readRow(in, held);
        oldParity = oldParityZero ? null : WireCodec.readBlock(in, subject);
        BlockRef nb = WireCodec.readBlock(in, subject);
        newParity = new EncodeTreeRequest.ParityOutput(-1, nb, EncodeTreeRequest.readTargetNode(in));
      }
      int checksumType = in.readInt();
      int bytesPerChecksum = in.readInt();
      BlockRef relayToken = UpdateRoleRequest.readsNoBlock(oldData, newData, oldParity) ? WireCodec.readBlock(in, subject) : null;
      UpdateRoleRequest r = new UpdateRoleRequest(key, update, place, slice, length, oldData, newData, inputs, outputs,
          parityDelta, oldParity, newParity, checksumType, bytesPerChecksum, relayToken, oldDataZero, oldParityZero);
      WireCodec.requireEnd(in, subject);
      return r;
    });
  }

  private static BlockRef readOptional(DataInputStream in, String subject) throws IOException {
    return in.readBoolean() ? WireCodec.readBlock(in, subject) : null;
  }

  private static int[] readRow(DataInputStream in, int held) throws IOException {
    int[] row = new int[held];
    for (int j = 0; j < held; j++) {
      row[j] = in.readUnsignedByte();
    }
    return row;
  }

  private static int count(DataInputStream in, String subject) throws IOException {
    int n = in.readUnsignedShort();
    if (n > UpdateRoleRequest.MAX_TRANSFERS) {
      throw new IOException(subject + " lists " + n + " transfers; at most " + UpdateRoleRequest.MAX_TRANSFERS);
    }
    return n;
  }
}
