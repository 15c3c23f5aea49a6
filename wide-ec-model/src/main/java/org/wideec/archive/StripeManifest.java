package org.wideec.archive;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.wideec.code.UnitRole;

/**
 * The authoritative record of an archived file or directory (DESIGN.md §3.2): the archived path, whether
 * its stripes hold one file's blocks or many files' blocks, and every stripe. Stored in HDFS under the system
 * directory (replicated, written temp-then-rename) in the bytes {@link ManifestFormat} defines. Like a stripe, a
 * manifest checks its own rules when built: stripe ids strictly ascending, no block in two places, and in a
 * file-level manifest every data block belongs to one inode.
 */
public record StripeManifest(String archivedPath, ArchiveScope scope, List<ArchivedStripe> stripes, long version) {
  /** The manifest format of archives whose stripes are all systematic (written so, byte for byte, forever). */
  public static final int FORMAT_VERSION = 1;
  /** The format of a manifest holding a sealed (non-systematic) stripe: format 1 plus each stripe's source pieces. */
  public static final int SEALED_FORMAT_VERSION = 2;
  /**
   * The format of a manifest that a parity update has changed since archival: format 1 preceded by the manifest's
   * version, so a reader or repair can tell which version it started with (DESIGN.md §3.3).
   */
  public static final int UPDATED_FORMAT_VERSION = 3;

  /** A manifest as archival writes it: version 0, never updated. */
  public StripeManifest(String archivedPath, ArchiveScope scope, List<ArchivedStripe> stripes) {
    this(archivedPath, scope, stripes, 0);
  }

  public StripeManifest {
    stripes = List.copyOf(stripes);
    if (archivedPath == null || !archivedPath.startsWith("/")) {
      throw new IllegalArgumentException("a manifest archives an absolute path, got '" + archivedPath + "'");
    }
    if (version < 0) {
      throw new IllegalArgumentException("manifest of " + archivedPath + ": version " + version + " is negative");
    }
    if (version > 0 && stripes.stream().anyMatch(ArchivedStripe::sealed)) {
      throw new IllegalArgumentException("manifest of " + archivedPath + ": version " + version + " holds a sealed"
          + " stripe; only systematic stripes take parity updates (their data blocks are the file's own)");
    }
    if (scope == null) {
      throw new IllegalArgumentException("manifest of " + archivedPath + ": no scope (file or directory)");
    }
    Map<Long, String> blocks = new HashMap<>();
    long inode = 0;
    for (int i = 0; i < stripes.size(); i++) {
      ArchivedStripe s = stripes.get(i);
      if (i > 0 && s.stripeId() <= stripes.get(i - 1).stripeId()) {
        throw new IllegalArgumentException("manifest of " + archivedPath + ": stripe " + s.stripeId() + " follows stripe "
            + stripes.get(i - 1).stripeId() + " (ids strictly ascending)");
      }
      for (int u = 0; u < s.members().size(); u++) {
        StripeMember m = s.members().get(u);
        String here = "stripe " + s.stripeId() + " unit " + u;
        if (m.blockId() != 0) {
          String before = blocks.putIfAbsent(m.blockId(), here);
          if (before != null) {
            throw new IllegalArgumentException("manifest of " + archivedPath + ": block " + m.blockId() + " is both "
                + before + " and " + here);
          }
        }
        if (scope == ArchiveScope.FILE && m.role() == UnitRole.DATA && !m.padding()) {
          if (inode != 0 && m.inodeId() != inode) {
            throw new IllegalArgumentException("file-level manifest of " + archivedPath + ": " + here + " is a block of"
                + " inode " + m.inodeId() + ", earlier data blocks belong to inode " + inode);
          }
          inode = m.inodeId();
        }
      }
      for (int t = 0; t < s.sources().size(); t++) {
        SourcePiece p = s.sources().get(t);
        String here = "stripe " + s.stripeId() + " source piece " + t;
        String before = blocks.putIfAbsent(p.blockId(), here);
        if (before != null) {
          throw new IllegalArgumentException("manifest of " + archivedPath + ": block " + p.blockId() + " is both "
              + before + " and " + here);
        }
        if (scope == ArchiveScope.FILE && inode != 0 && p.inodeId() != inode) {
          throw new IllegalArgumentException("file-level manifest of " + archivedPath + ": " + here + " is a block of"
              + " inode " + p.inodeId() + ", earlier pieces belong to inode " + inode);
        }
        inode = p.inodeId();
      }
    }
  }

  /** True when some stripe is sealed: the manifest is written in format {@link #SEALED_FORMAT_VERSION}. */
  public boolean sealed() {
    return stripes.stream().anyMatch(ArchivedStripe::sealed);
  }

  /** The stripe with the given id, or null. */
  public ArchivedStripe stripe(long id) {
    for (ArchivedStripe s : stripes) {
      if (s.stripeId() == id) {
        return s;
      }
    }
    return null;
  }

  /** The manifest with one stripe replaced (same id): how each recorded transition is written. */
  public StripeManifest with(ArchivedStripe updated) {
    List<ArchivedStripe> next = new java.util.ArrayList<>(stripes);
    for (int i = 0; i < next.size(); i++) {
      if (next.get(i).stripeId() == updated.stripeId()) {
        next.set(i, updated);
        return new StripeManifest(archivedPath, scope, next, version);
      }
    }
    throw new IllegalArgumentException("manifest of " + archivedPath + " has no stripe " + updated.stripeId());
  }

  /**
   * The next version of this manifest, with these stripes: what a parity update commits (a stripe left out had every
   * data unit removed, so it protects nothing any more).
   */
  public StripeManifest nextVersion(List<ArchivedStripe> next) {
    return new StripeManifest(archivedPath, scope, next, version + 1);
  }

  /** The stripes that hold a block of the given inode (what its pointer lists), ascending. */
  public long[] stripesOf(long inodeId) {
    return stripes.stream().filter(s -> s.members().stream()
            .anyMatch(m -> m.role() == UnitRole.DATA && !m.padding() && m.inodeId() == inodeId)
            || s.sources().stream().anyMatch(p -> p.inodeId() == inodeId))
        .mapToLong(ArchivedStripe::stripeId).toArray();
  }

  public byte[] toBytes() {
    return ManifestFormat.write(this);
  }

  /** Parses manifest bytes; {@code source} (the file's path) goes into every error. */
  public static StripeManifest parse(byte[] bytes, String source) throws CorruptManifestException {
    return ManifestFormat.read(bytes, source);
  }
}
