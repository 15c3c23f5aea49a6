package org.wideec.protocol;

import java.io.IOException;

/**
 * One role of a parity update asking another for the rows it sends on one transfer of the plan (the receiver pulls,
 * as every stream of the slice port is pulled). It carries no block token: the rows were computed by a role its node
 * admitted on the updater's READ tokens, and are served only to a connection that proved the cluster secret (a
 * DataNode: a role dials with its node's credential), naming the update's key (a random number only the updater and
 * the roles it ordered know, never logged nor put in an error) and exactly the transfer's rows and slices, and, for a
 * transfer bound to its consumer, coming from that consumer's node with the transfer's own key ({@code consumerKey},
 * given only to the producer and that consumer). One fetch takes the rows; a fetch that does not match is refused and
 * leaves them to the one that does.
 *
 * <p>Wire format: kind byte {@link #KIND}, version byte 1, then the fields in declaration order without
 * {@code consumerKey} (an unbound transfer, 0); version 2 (a bound one) adds {@code consumerKey} last. The reply is one
 * frame per slice of {@code rows} row-slices back to back, then END; a failure is an ERROR naming the node to blame.
 */
public record UpdateFetchRequest(long updateKey, int transfer, int rows, int sliceBytes, long length,
    long consumerKey) {
  public static final int KIND = MessageKind.UPDATE_FETCH.code();
  public static final int VERSION = 1;
  public static final int VERSION_BOUND = 2;

  /** A fetch of an unbound transfer (a version-1 role's). */
  public UpdateFetchRequest(long updateKey, int transfer, int rows, int sliceBytes, long length) {
    this(updateKey, transfer, rows, sliceBytes, length, 0);
  }

  /** Without the keys: they are the fetch's authority, never logged. */
  @Override
  public String toString() {
    return "fetch of transfer " + transfer + " (" + rows + " rows, " + slices() + " slices)";
  }

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
      out.writeByte(consumerKey == 0 ? VERSION : VERSION_BOUND);
      out.writeLong(updateKey);
      out.writeInt(transfer);
      out.writeShort(rows);
      out.writeInt(sliceBytes);
      out.writeLong(length);
      if (consumerKey != 0) {
        out.writeLong(consumerKey);
      }
    });
  }

  /** @throws IOException naming what is wrong with a malformed request */
  public static UpdateFetchRequest parse(byte[] bytes) throws IOException {
    return WireCodec.decode(bytes, "update fetch", in -> {
      int version = WireCodec.requireKind(in, MessageKind.UPDATE_FETCH, VERSION, VERSION_BOUND, "an update fetch");
      UpdateFetchRequest r = new UpdateFetchRequest(in.readLong(), in.readInt(), in.readUnsignedShort(), in.readInt(),
          in.readLong(), version == VERSION ? 0 : in.readLong());
      if (version == VERSION_BOUND && r.consumerKey() == 0) {
        throw new IOException("update fetch of version " + VERSION_BOUND + " without its consumer's key");
      }
      WireCodec.requireEnd(in, "update fetch");
      return r;
    });
  }
}
