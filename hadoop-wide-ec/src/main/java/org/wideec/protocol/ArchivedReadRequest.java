package org.wideec.protocol;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
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
  public static final int KIND = 0x41;
  public static final int VERSION = 1;
  /** Largest range one request rebuilds: the DataNode holds one slice at a time, this bounds the client's buffer. */
  public static final long MAX_LENGTH = 64L << 20;

  public ArchivedReadRequest {
    if (fileInode <= 0 || block.blockId() == 0 || block.token().length > StepRequest.MAX_TOKEN) {
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
    return body.length > 0 && (body[0] & 0xff) == KIND;
  }

  public int slices() {
    return StepRequest.slices(length, sliceBytes);
  }

  public int sliceLength(int slice) {
    return (int) Math.min(sliceBytes, length - (long) slice * sliceBytes);
  }

  public byte[] toBytes() {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(b)) {
      out.writeByte(KIND);
      out.writeByte(VERSION);
      out.writeLong(fileInode);
      out.writeUTF(block.pool());
      out.writeLong(block.blockId());
      out.writeLong(block.genStamp());
      out.writeLong(block.numBytes());
      out.writeShort(block.token().length);
      out.write(block.token());
      out.writeLong(offset);
      out.writeLong(length);
      out.writeInt(sliceBytes);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return b.toByteArray();
  }

  /** @throws IOException naming what is wrong with a malformed, truncated or out-of-bounds request */
  public static ArchivedReadRequest parse(byte[] bytes) throws IOException {
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
      int kind = in.readUnsignedByte();
      int version = in.readUnsignedByte();
      if (kind != KIND || version != VERSION) {
        throw new IOException("not an archived read request of version " + VERSION + " (kind " + kind + ", version "
            + version + ")");
      }
      long inode = in.readLong();
      String pool = in.readUTF();
      long id = in.readLong();
      long genStamp = in.readLong();
      long numBytes = in.readLong();
      int tokenLength = in.readUnsignedShort();
      if (tokenLength > StepRequest.MAX_TOKEN) {
        throw new IOException("archived read request carries a block token of " + tokenLength + " bytes; at most "
            + StepRequest.MAX_TOKEN);
      }
      byte[] token = new byte[tokenLength];
      in.readFully(token);
      ArchivedReadRequest r = new ArchivedReadRequest(inode, new BlockRef(pool, id, genStamp, numBytes, token),
          in.readLong(), in.readLong(), in.readInt());
      if (in.available() > 0) {
        throw new IOException("archived read request has " + in.available() + " trailing bytes");
      }
      return r;
    } catch (java.io.EOFException e) {
      throw new IOException("archived read request is truncated", e);
    } catch (IllegalArgumentException e) {
      throw new IOException("malformed archived read request: " + e.getMessage(), e);
    }
  }
}
