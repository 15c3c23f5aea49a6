package org.wideec.archive.hdfs;

import java.io.IOException;
import java.util.List;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.SourcePiece;
import org.wideec.archive.StripeMember;
import org.wideec.archive.StripeState;

/**
 * Computes and stores one stripe's units, for either {@link org.wideec.archive.StripeLayout}: given a stripe in
 * ENCODING whose unit directory is recorded and empty, it reads the stripe's data (the file's blocks, or a sealed
 * file's source pieces), writes one single-block file per stored unit there ({@link ArchiveLayout#parityUnit},
 * {@link CodewordFiles}), aimed at the unit's planned node, and returns what the manifest must record next. It
 * changes no data block and no manifest: the {@link Archiver} runs the {@link org.wideec.archive.StripeLifecycle}.
 *
 * <p>The writers: the classic encoder run by this client ({@link ClientClassicEncoder}, {@link
 * ClientCodewordEncoder}), ECWide's chain over the DataNodes ({@link ChainEncoder}) and RapidRAID's pipeline over
 * them ({@link PipelineCodewordEncoder}).
 */
public interface StripeEncoder {
  /** The name {@code wide-ec archive --encoder} selects this encoder by. */
  String name();

  Encoded encode(ArchivedStripe stripe) throws IOException;

  /**
   * How many stripes of one archive this encoder may encode at once: one, unless its stripes run on the DataNodes and
   * the archiver holds none of their bytes.
   */
  default int concurrentStripes() {
    return 1;
  }

  /**
   * True when the encoder reads this stripe's data blocks on the nodes that keep them (the chain, ECWide §4.2, when
   * that costs less than reading them in a core rack), so the {@link Archiver} moves the plan's blocks onto their
   * planned nodes before it encodes, rather than at the trim. The classic encoder reads through a stock client from
   * any replica: false.
   */
  default boolean readsPlannedHolders(ArchivedStripe stripe) throws IOException {
    return false;
  }

  /**
   * The CRC32C of a stored unit's replica as its holder reads it back through its checksum-verified path, when this
   * encoder reaches the DataNodes' slice ports (no unit byte then crosses to the archiver); empty when the caller
   * must read the replica through HDFS itself.
   */
  default java.util.OptionalLong heldCrc(org.apache.hadoop.hdfs.protocol.LocatedBlock lb, String where)
      throws IOException {
    return java.util.OptionalLong.empty();
  }

  /**
   * What one encoding produced.
   *
   * @param members the stripe's members with every stored unit written (inode, block id, generation stamp, CRC32C)
   *     and, for a systematic stripe, the CRC32C of every stored data block
   * @param sources a non-systematic stripe's source pieces with the CRC32C of the bytes read; empty otherwise
   * @param unitDirInode the inode id of the stripe's parity (or codeword) directory
   * @param bytesRead data bytes read (virtual padding and zero tails are not read)
   * @param bytesWritten unit bytes stored
   * @param offPlan one line per unit HDFS placed elsewhere than the plan said (favored nodes are hints)
   */
  record Encoded(List<StripeMember> members, List<SourcePiece> sources, long unitDirInode, long bytesRead,
      long bytesWritten, List<String> offPlan) {
    public Encoded {
      members = List.copyOf(members);
      sources = List.copyOf(sources);
      offPlan = List.copyOf(offPlan);
    }

    /** A systematic stripe's encoding: the data blocks are the file's own, there are no source pieces. */
    public static Encoded systematic(List<StripeMember> members, long parityDirInode, long bytesRead,
        long bytesWritten, List<String> offPlan) {
      return new Encoded(members, List.of(), parityDirInode, bytesRead, bytesWritten, offPlan);
    }

    /** The stripe as PARITY_WRITTEN records it: its units written, its source CRCs learnt. */
    public ArchivedStripe written(ArchivedStripe encoding) {
      ArchivedStripe s = encoding.withMembers(members).withParityFile(encoding.parityFilePath(), unitDirInode);
      if (!sources.isEmpty()) {
        s = s.withSources(sources);
      }
      return s.withState(StripeState.PARITY_WRITTEN);
    }
  }
}
