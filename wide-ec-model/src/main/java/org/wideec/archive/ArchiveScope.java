package org.wideec.archive;

/**
 * What one manifest archives: a large file's own blocks (file-level stripes), or the blocks of many
 * smaller files of a directory packed together (directory-level stripes). Either way the short last stripe is
 * padded virtually. Fixed codes in the manifest bytes.
 */
public enum ArchiveScope {
  FILE(1),
  DIRECTORY(2);

  private final int code;

  ArchiveScope(int code) {
    this.code = code;
  }

  int code() {
    return code;
  }

  static ArchiveScope ofCode(int code) {
    for (ArchiveScope s : values()) {
      if (s.code == code) {
        return s;
      }
    }
    return null;
  }

  public String label() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
