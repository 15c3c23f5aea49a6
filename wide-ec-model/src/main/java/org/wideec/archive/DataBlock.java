package org.wideec.archive;

/** A data unit's block: block {@code index} of a source file. */
public record DataBlock(SourceFile file, int index) {
  public SourceFile.Block block() {
    return file.blocks().get(index);
  }

  public long length() {
    return block().length();
  }

  public long blockId() {
    return block().blockId();
  }

  /** e.g. {@code /data/a block 3 (id 1073741828)}: how errors and plans name it. */
  public String describe() {
    return file.path() + " block " + index + " (id " + blockId() + ")";
  }
}
