package org.wideec.archive;

/**
 * One piece of the file a non-systematic stripe encodes: after a RapidRAID archival the stored
 * blocks are codewords, not the file's bytes, and the file's own blocks are gone, so the manifest keeps what is
 * needed to give the file back exactly: which block each piece was, how long it was, its CRC32C and where it sat in
 * the file. Piece t of a stripe is the code's data symbol t; a short last stripe has fewer than k pieces and the
 * missing ones are virtual zeros (never stored, never listed).
 *
 * @param inodeId the archived file's inode when it was archived
 * @param blockId the block the piece was
 * @param generationStamp that block's generation stamp
 * @param length bytes in the piece
 * @param crc32c CRC32C of the piece's bytes, or {@link StripeMember#NO_CRC} until the encoder has read it
 * @param offset where the piece starts in the file
 */
public record SourcePiece(long inodeId, long blockId, long generationStamp, long length, long crc32c, long offset) {
  public SourcePiece {
    if (inodeId <= 0 || blockId == 0 || generationStamp <= 0) {
      throw new IllegalArgumentException("source piece of block " + blockId + ": needs its inode id, block id and"
          + " generation stamp (got inode " + inodeId + ", generation stamp " + generationStamp + ")");
    }
    if (length < 0 || offset < 0) {
      throw new IllegalArgumentException("source piece of block " + blockId + ": negative length or offset");
    }
    if (crc32c != StripeMember.NO_CRC && (crc32c < 0 || crc32c > 0xFFFF_FFFFL)) {
      throw new IllegalArgumentException("CRC32C " + crc32c + " of block " + blockId + " is not an unsigned 32-bit value");
    }
  }

  public boolean hasCrc() {
    return crc32c != StripeMember.NO_CRC;
  }

  public SourcePiece withCrc(long crc) {
    return new SourcePiece(inodeId, blockId, generationStamp, length, crc, offset);
  }
}
