package org.wideec.protocol;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.wideec.repair.BlockRef;

/**
 * The NameNode's order to a DataNode: pin these replicas of archived blocks, which sit where their
 * stripe's plan put them, so that the Balancer and the Mover leave them there ({@code FsDatasetSpi#setPinning}). Each
 * block carries its generation stamp (a replica with another one is not the archived block and is left alone) and
 * the NameNode's REPLACE token for it: pinning decides whether a replica may be moved, so it needs the authority a
 * move needs. Sent on the slice port (kind {@value #KIND}) by a peer that proved the cluster secret. The answer is one
 * frame of one {@link Outcome} byte per block, in order.
 *
 * @param blocks at most {@link #MAX_BLOCKS}
 */
public record PinRequest(List<BlockRef> blocks) {
  /** The kind byte that opens the request ('P'). */
  public static final int KIND = MessageKind.PIN.code();
  /** Blocks per order: the body stays far below the transport's smallest frame limit times a few. */
  public static final int MAX_BLOCKS = 256;

  /** What the DataNode did with one block. */
  public enum Outcome {
    /** Pinned now. */
    PINNED,
    /** It was pinned already. */
    ALREADY_PINNED,
    /** This DataNode holds no finalized replica of the block with that generation stamp. */
    NOT_HELD,
    /** {@code dfs.datanode.block-pinning.enabled} is false here: pinning is a no-op, the replica stays movable. */
    PINNING_OFF,
    /** The token was refused or pinning failed (the DataNode logs why). */
    FAILED;

    /** Pinned now or before. */
    public boolean pinned() {
      return this == PINNED || this == ALREADY_PINNED;
    }
  }

  public PinRequest {
    if (blocks.isEmpty() || blocks.size() > MAX_BLOCKS) {
      throw new IllegalArgumentException("a pin order names 1.." + MAX_BLOCKS + " blocks, not " + blocks.size());
    }
    blocks = List.copyOf(blocks);
  }

  /** Whether a request body is a pin order. */
  public static boolean isOne(byte[] body) {
    return MessageKind.isOf(body, MessageKind.Family.PIN);
  }

  public byte[] toBytes() {
    return WireCodec.encode(out -> {
      out.writeByte(KIND);
      out.writeShort(blocks.size());
      for (BlockRef r : blocks) {
        WireCodec.writeBlock(out, r);
      }
    });
  }

  /** @throws IOException naming what is malformed */
  public static PinRequest parse(byte[] bytes) throws IOException {
    return WireCodec.decode(bytes, "pin order", in -> {
      if (in.readUnsignedByte() != KIND) {
        throw new IOException("not a pin order");
      }
      int n = in.readUnsignedShort();
      if (n < 1 || n > MAX_BLOCKS) {
        throw new IOException("a pin order names 1.." + MAX_BLOCKS + " blocks, not " + n);
      }
      List<BlockRef> blocks = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        blocks.add(WireCodec.readBlock(in, "pin order"));
      }
      WireCodec.requireEnd(in, "pin order");
      return new PinRequest(blocks);
    });
  }

  /** The DataNode's answer: one outcome byte per block. */
  public static byte[] answer(List<Outcome> outcomes) {
    byte[] b = new byte[outcomes.size()];
    for (int i = 0; i < b.length; i++) {
      b[i] = (byte) outcomes.get(i).ordinal();
    }
    return b;
  }

  /** @throws IOException when the answer does not have one known outcome per block of this order */
  public List<Outcome> outcomes(byte[] answer) throws IOException {
    if (answer.length != blocks.size()) {
      throw new IOException("pin answer has " + answer.length + " outcomes for " + blocks.size() + " blocks");
    }
    Outcome[] all = Outcome.values();
    List<Outcome> out = new ArrayList<>(answer.length);
    for (byte b : answer) {
      if (b < 0 || b >= all.length) {
        throw new IOException("pin answer has an unknown outcome " + b);
      }
      out.add(all[b]);
    }
    return out;
  }
}
