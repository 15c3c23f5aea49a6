package org.wideec.archive.hdfs;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.apache.hadoop.fs.permission.FsAction;

/**
 * What a path under the archive's system directory is to a sealed file, read from its components alone: the reader's
 * index {@code sealed/<placeholder inode>.wecm} (which names its sealed file), a codeword
 * {@code codewords/<archive inode>/<stripe>/u<i>} (whose sealed file the archive directory's {@link #LINK_XATTR}
 * names), another part (the directories, a set-aside original, a restored or temporary file: nobody but a superuser
 * has business there), or no part at all. The NameNode asks this for every permission check, so the first test is a
 * comparison of the path's first components with the root's, without decoding a string.
 *
 * @param kind what the path is
 * @param inode the placeholder inode (an index) or the archive inode (a codeword); -1 otherwise
 */
public record SealedPart(Kind kind, long inode) {
  /**
   * On {@code codewords/<archive inode>}: the decimal inode id of the sealed file (its placeholder) whose codewords
   * lie beneath. Set by the seal before the placeholder takes the file's path; trusted.*, so only a superuser sets it.
   */
  public static final String LINK_XATTR = "trusted.wideec.sealed-file";

  /** In every refusal of a part by the NameNode plugin, so a client can tell it from stock permissions. */
  public static final String REFUSAL = "a part of a sealed file is readable only by whoever may read that file at"
      + " its current path";

  /** The kinds of path under the system directory, as far as sealed files go. */
  public enum Kind {
    NOT_A_PART,
    INDEX,
    CODEWORD,
    OTHER_PART
  }

  private static final SealedPart NONE = new SealedPart(Kind.NOT_A_PART, -1);
  private static final SealedPart OTHER = new SealedPart(Kind.OTHER_PART, -1);
  private static final byte[] SEALED = bytes("sealed");
  private static final byte[] CODEWORDS = bytes("codewords");
  private static final byte[] SNAPSHOT = bytes(".snapshot");

  /** The components of the system directory below the root ({@code /.wideec}: one, {@code .wideec}). */
  public static byte[][] rootComponents(ArchiveLayout layout) {
    String[] names = layout.root().toUri().getPath().split("/");
    return Arrays.stream(names).filter(s -> !s.isEmpty()).map(SealedPart::bytes).toArray(byte[][]::new);
  }

  /**
   * What the path with these components is ({@code components[0]} is the root's empty name, as HDFS gives them).
   *
   * @param root {@link #rootComponents} of the layout
   */
  public static SealedPart of(byte[][] root, byte[][] components) {
    int r = root.length;
    if (components == null || components.length < 2) {
      return NONE;
    }
    for (int i = 1; i <= Math.min(r + 1, components.length - 1); i++) {
      if (isSnapshot(components[i])) {
        return inSnapshot(root, components, i);
      }
    }
    if (components.length < r + 2) {
      return NONE; // the system directory itself and above are not parts: stock permissions keep them
    }
    for (int i = 0; i < r; i++) {
      if (!Arrays.equals(root[i], components[i + 1])) {
        return NONE;
      }
    }
    byte[] area = components[r + 1];
    int below = components.length - (r + 2);
    if (Arrays.equals(area, SEALED)) {
      long placeholder = below == 1 ? number(components[r + 2], "", ".wecm") : -1;
      return placeholder >= 0 ? new SealedPart(Kind.INDEX, placeholder) : OTHER;
    }
    if (Arrays.equals(area, CODEWORDS)) {
      if (below != 3 || number(components[r + 3], "", "") < 0 || number(components[r + 4], "u", "") < 0) {
        return OTHER;
      }
      long archive = number(components[r + 2], "", "");
      return archive >= 0 ? new SealedPart(Kind.CODEWORD, archive) : OTHER;
    }
    return NONE;
  }

  /**
   * A path through a snapshot ({@code .snapshot/<name>}, which HDFS hands a permission check as one component, or as
   * two) of the system directory or one of its ancestors: a snapshot keeps the attributes its parts had when it was
   * taken (parts of earlier builds carried copies of their files' ACLs), which no later change reaches, so under the
   * system directory every such path is a part nobody but a superuser may use.
   */
  private static SealedPart inSnapshot(byte[][] root, byte[][] components, int at) {
    int skip = components[at].length > SNAPSHOT.length ? 1 : 2; // ".snapshot/s" or ".snapshot", "s"
    byte[][] live = new byte[components.length - skip][];
    System.arraycopy(components, 0, live, 0, at);
    System.arraycopy(components, at + skip, live, at, components.length - at - skip);
    if (live.length < root.length + 1) {
      return NONE;
    }
    for (int i = 0; i < root.length; i++) {
      if (!Arrays.equals(root[i], live[i + 1])) {
        return NONE;
      }
    }
    return live.length == root.length + 1 ? NONE : OTHER;
  }

  private static boolean isSnapshot(byte[] name) {
    if (name == null || name.length < SNAPSHOT.length) {
      return false;
    }
    for (int i = 0; i < SNAPSHOT.length; i++) {
      if (name[i] != SNAPSHOT[i]) {
        return false;
      }
    }
    return name.length == SNAPSHOT.length || name[SNAPSHOT.length] == '/';
  }

  /**
   * Whether a permission check asks nothing beyond reading the path itself: no owner check, no access on an ancestor,
   * the parent or the subtree, and on the path at most read (null: traverse only, as a status call asks).
   */
  public static boolean asksOnlyToRead(boolean doCheckOwner, FsAction ancestorAccess, FsAction parentAccess,
      FsAction access, FsAction subAccess) {
    return !doCheckOwner && ancestorAccess == null && parentAccess == null && subAccess == null
        && (access == null || access == FsAction.READ);
  }

  /** The decimal number between prefix and suffix in name, or -1 when name is not exactly that. */
  static long number(byte[] name, String prefix, String suffix) {
    if (name == null) {
      return -1;
    }
    String s = new String(name, StandardCharsets.UTF_8);
    if (!s.startsWith(prefix) || !s.endsWith(suffix)) {
      return -1;
    }
    String digits = s.substring(prefix.length(), s.length() - suffix.length());
    if (digits.isEmpty() || digits.length() > 18 || !digits.chars().allMatch(c -> c >= '0' && c <= '9')) {
      return -1;
    }
    return Long.parseLong(digits);
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
