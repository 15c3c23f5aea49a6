package org.wideec.archive;

import org.wideec.code.UnitRole;

/**
 * One unit of an archived stripe as the manifest records it. Members are named by inode id, not path, so renames
 * never break a stripe (DESIGN.md §3.2: {@code /.reserved/.inodes/<id>}); block id, generation stamp and length
 * say which replica bytes the parity covers, so an append, truncate or rewrite is detectable; the CRC32C of the
 * block's bytes checks a rebuilt block before it is written back under its id.
 *
 * <p>A virtual member ({@link #padding}) is a known block of zeros, never stored: a data unit past the end of a
 * short last stripe, or a parity whose generator row touches only such units (it is zero too). Its ids, length,
 * CRC and placement are all zero or empty. Parity members carry zero ids until their blocks are written.
 *
 * @param role the unit's role in the code (data, global parity, local parity)
 * @param padding a virtual zero unit
 * @param inodeId the file holding the block (the parity file for a parity), 0 when unknown
 * @param blockId HDFS block id, 0 when unknown (a parity not yet written)
 * @param generationStamp the block's generation stamp, 0 when unknown
 * @param length bytes in the block (a parity's planned length before it is written)
 * @param crc32c CRC32C of the block's bytes as an unsigned 32-bit value, or {@link #NO_CRC}
 * @param plannedNode the node that keeps (data) or receives (parity) this unit
 * @param plannedRack that node's rack
 */
public record StripeMember(UnitRole role, boolean padding, long inodeId, long blockId, long generationStamp,
    long length, long crc32c, String plannedNode, String plannedRack) {

  /** The CRC is not known yet. */
  public static final long NO_CRC = -1;

  public StripeMember {
    if (role == null) {
      throw new IllegalArgumentException("a stripe member needs a role");
    }
    plannedNode = plannedNode == null ? "" : plannedNode;
    plannedRack = plannedRack == null ? "" : plannedRack;
    if (crc32c != NO_CRC && (crc32c < 0 || crc32c > 0xFFFF_FFFFL)) {
      throw new IllegalArgumentException("CRC32C " + crc32c + " of block " + blockId + " is not an unsigned 32-bit value");
    }
    if (length < 0 || generationStamp < 0 || inodeId < 0) {
      throw new IllegalArgumentException("block " + blockId + ": negative length, generation stamp or inode id");
    }
    if (padding && (inodeId != 0 || blockId != 0 || generationStamp != 0 || length != 0 || crc32c != NO_CRC
        || !plannedNode.isEmpty() || !plannedRack.isEmpty())) {
      throw new IllegalArgumentException("a virtual (padding) member is never stored, so it names no inode, block,"
          + " length, CRC or node; got block " + blockId + " on '" + plannedNode + "'");
    }
  }

  /** A virtual zero unit of the given role. */
  public static StripeMember padding(UnitRole role) {
    return new StripeMember(role, true, 0, 0, 0, 0, NO_CRC, "", "");
  }

  /** A stored data block, its CRC not yet known. */
  public static StripeMember data(long inodeId, long blockId, long generationStamp, long length, String node,
      String rack) {
    return new StripeMember(UnitRole.DATA, false, inodeId, blockId, generationStamp, length, NO_CRC, node, rack);
  }

  /** A parity unit planned onto a node, its block not yet written. */
  public static StripeMember plannedParity(UnitRole role, long length, String node, String rack) {
    return new StripeMember(role, false, 0, 0, 0, length, NO_CRC, node, rack);
  }

  public boolean hasCrc() {
    return crc32c != NO_CRC;
  }

  /**
   * A unit the encoder computes and stores in a single-block file of its own: a parity, or a codeword of a
   * non-systematic (sealed) stripe, which is handled like a parity everywhere (written, verified, located, rebuilt).
   */
  public boolean isParity() {
    return role == UnitRole.GLOBAL_PARITY || role == UnitRole.LOCAL_PARITY || role == UnitRole.CODED;
  }

  /** The same member once its block is written: ids, generation stamp and CRC (a parity after encoding). */
  public StripeMember written(long inode, long block, long genStamp, long crc) {
    return new StripeMember(role, padding, inode, block, genStamp, length, crc, plannedNode, plannedRack);
  }

  /** The member as planned: a parity without its block, a data block without its CRC (what a rollback keeps). */
  public StripeMember unwritten() {
    if (padding) {
      return this;
    }
    return isParity() ? plannedParity(role, length, plannedNode, plannedRack) : withCrc(NO_CRC);
  }

  /** The same member with the CRC of its bytes. */
  public StripeMember withCrc(long crc) {
    return new StripeMember(role, padding, inodeId, blockId, generationStamp, length, crc, plannedNode, plannedRack);
  }
}
