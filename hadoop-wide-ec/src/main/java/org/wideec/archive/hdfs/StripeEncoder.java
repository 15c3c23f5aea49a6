package org.wideec.archive.hdfs;

import java.io.IOException;
import java.util.List;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.StripeMember;

/**
 * Computes and stores the parity of one stripe : given a stripe in ENCODING, whose parity
 * directory is recorded and empty, it reads the stripe's data blocks, writes one single-block file per stored
 * parity unit there ({@link ArchiveLayout#parityUnit}), aimed at the unit's planned node, and returns what the
 * manifest must record next. It changes no data block and no manifest: the {@link Archiver} owns the state machine.
 * The classic encoder run by the archiver is one implementation; DataNode-side classic and chain encoders are others.
 */
public interface StripeEncoder {
  /** The name {@code wide-ec archive --encoder} selects this encoder by. */
  String name();

  EncodedStripe encode(ArchivedStripe stripe) throws IOException;

  /**
   * True when the encoder reads each data block on the node that keeps it (the chain: ECWide §4.2 runs where the kept
   * replicas will be), so the {@link Archiver} moves the plan's blocks onto their planned nodes before it encodes,
   * rather than at the trim. The classic encoder reads through a stock client from any replica: false.
   */
  default boolean readsPlannedHolders() {
    return false;
  }

  /**
   * What one encoding produced.
   *
   * @param members the stripe's members with every stored parity written (inode, block id, generation stamp,
   *     CRC32C) and the CRC32C of every stored data block
   * @param parityDirInode the inode id of the stripe's parity directory
   * @param dataBytesRead data bytes read (virtual padding and zero tails are not read)
   * @param parityBytesWritten parity bytes stored
   * @param offPlan one line per parity block HDFS placed elsewhere than the plan said (favored nodes are hints)
   */
  record EncodedStripe(List<StripeMember> members, long parityDirInode, long dataBytesRead, long parityBytesWritten,
      List<String> offPlan) {
    public EncodedStripe {
      members = List.copyOf(members);
      offPlan = List.copyOf(offPlan);
    }
  }
}
