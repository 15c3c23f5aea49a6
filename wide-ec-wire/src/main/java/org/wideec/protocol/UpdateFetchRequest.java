package org.wideec.protocol;

import java.io.IOException;

/**
 * One role of a parity update asking another for the rows it sends on one transfer of the plan (the receiver pulls,
 * as every stream of the slice port is pulled). It carries no block token: the rows were computed by a role its node
 * admitted on the updater's READ tokens, and are served only to a connection that proved the cluster secret (a
 * DataNode: a role dials with its node's credential), naming the update's key (a random number only the updater and
 * the roles it ordered know, never logged nor put in an error) and exactly the transfer's rows and slices; one fetch
 * takes them, and a fetch that does not match leaves them to the one that does.
 *
 * <p>Wire format: kind byte {@link #KIND}, version byte 1, then the fields in declaration order. The reply is one
 * frame per slice of {@code rows} row-slices back to back, then END; a failure is an ERROR naming the node to blame.
 */
public record UpdateFetchRequest(long updateKey, int transfer, int rows, int sliceBytes, long length) {
  public static final int KIND = MessageKind.UPDATE_FETCH.code();
  public static final int VERSION = 1;

  public UpdateFetchRequest {
    if (transfer < 0 || rows < 1 || rows > StepRequest.MAX_ROWS || sliceBytes < 1 || length < 0) {
      throw new IllegalArgumentException("bad update fetch: transfer " + transfer + ", " + rows + " rows, slices of "
          + sliceBytes + ", length " + length);
    }
  }

  public int slices() {
    return StepRequest.slices(length, sliceBytes);
  }

  public byte[] toBytes() {
    return WireCodec.encode(out -> {
      out.writeByte(KIND);
      out.writeByte(VERSION);
      out.writeLong(updateKey);
      out.writeInt(transfer);
      out.writeShort(rows);
      out.writeInt(sliceBytes);
      out.writeLong(length);
    });
  }

  /** @throws IOException naming what is wrong with a malformed request */
  public static UpdateFetchRequest parse(byte[] bytes) throws IOException {
    return WireCodec.decode(bytes, "update fetch", in -> {
      WireCodec.requireKind(in, MessageKind.UPDATE_FETCH, VERSION, "an update fetch");
      UpdateFetchRequest r = new UpdateFetchRequest(in.readLong(), in.readInt(), in.readUnsignedShort(), in.readInt(),
          in.readLong());
      WireCodec.requireEnd(in, "update fetch");
      return r;
    });
  }
}
