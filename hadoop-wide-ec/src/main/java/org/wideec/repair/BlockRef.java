package org.wideec.repair;

/** The stored replica a helper reads: block pool, block id, generation stamp and replica length. */
public record BlockRef(String pool, long blockId, long genStamp, long numBytes) {
  @Override
  public String toString() {
    return pool + ":blk_" + blockId + "_" + genStamp + " (" + numBytes + " bytes)";
  }
}
