package org.wideec.protocol;

import java.io.IOException;
import org.wideec.repair.BlockRef;

/**
 * A client's request for a range of a lost block of an archived file (DESIGN.md §3.2, degraded reads): the file's
 * inode id (where the DataNode looks the stripe up), the block as the NameNode listed it to the client, with the
 * client's READ token for it, and the range. The DataNode that receives it checks the token, finds the block's
 * stripe in the manifest itself, rebuilds the range through a chain of the stripe's other members with tokens it
 * mints, and sends the client that range and nothing else: the client never names, nor receives, another member.
 *
 * <p>Wire format: kind byte {@link #KIND} (far from the step kinds 0..2, so a helper older than this request
 * refuses it as a step of unknown kind), version byte 1, then inode, block pool, id, generation stamp, length,
 * token, offset, length and slice size. The range comes back in slices of {@code sliceBytes} from offset 0.
 */
public record ArchivedReadRequest(long fileInode, BlockRef block, long offset, long length, int sliceBytes) {
  public static final int KIND = MessageKind.ARCHIVED_READ.code();
  public static final int VERSION = 1;
  /** Largest range one request rebuilds: the DataNode holds one slice at a time, this bounds the client's buffer. */
  public static final long MAX_LENGTH = 64L << 20;

  public ArchivedReadRequest {
    if (fileInode <= 0 || block.blockId() == 0 || block.token().length > WireCodec.MAX_TOKEN) {
      throw new IllegalArgumentException("bad archived read request: inode " + fileInode + ", block " + block
          + ", token of " + block.token().length + " bytes");
    }
    if (offset < 0 || length <= 0 || length > MAX_LENGTH || sliceBytes <= 0 || offset > block.numBytes() - length) {
      throw new IllegalArgumentException("bad archived read request: bytes [" + offset + ", +" + length + ") of " + block
          + " in slices of " + sliceBytes + "; a range inside the block of at most " + MAX_LENGTH + " bytes");
    }
  }

  /** Whether a request body is one of these (the first byte names the kind). */
  public static boolean isOne(byte[] body) {
    return MessageKind.isOf(body, MessageKind.Family.ARCHIVED_READ);
  }

  public int slices() {
    return StepRequest.slices(length, sliceBytes);
  }

  public int sliceLength(int slice) {
    return StepRequest.sliceLength(length, sliceBytes, slice);
  }

  public byte[] toBytes() {
    return WireCodec.encode(out -> {
      out.writeByte(KIND);
      out.writeByte(VERSION);
      out.writeLong(fileInode);
      WireCodec.writeBlock(out, block);
      out.writeLong(offset);
      out.writeLong(length);
      out.writeInt(sliceBytes);
    });
  }

  /** @throws IOException naming what is wrong with a malformed, truncated or out-of-bounds request */
  public static ArchivedReadRequest parse(byte[] bytes) throws IOException {
    return WireCodec.decode(bytes, "archived read request", in -> {
      WireCodec.requireKind(in, MessageKind.ARCHIVED_READ, VERSION, "an archived read request");
      long inode = in.readLong();
      ArchivedReadRequest r = new ArchivedReadRequest(inode, WireCodec.readBlock(in, "archived read request"),
          in.readLong(), in.readLong(), in.readInt());
      WireCodec.requireEnd(in, "archived read request");
      return r;
    });
  }
}
