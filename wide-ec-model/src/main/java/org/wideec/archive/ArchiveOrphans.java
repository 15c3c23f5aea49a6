package org.wideec.archive;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.wideec.archive.StripeAudit.Finding;
import org.wideec.archive.StripeAudit.Problem;

/**
 * The archival layout's leftovers that nothing owns any more (nothing is orphaned silently). Pure: the
 * HDFS side lists the system directory and the pointers it met, and says which archived inodes still exist.
 * <ul>
 *   <li>a manifest whose archived file or directory is gone (its inode no longer exists);</li>
 *   <li>a parity directory of an archive that has no manifest, and a stripe's parity directory that its archive's
 *       manifest does not list;</li>
 *   <li>an archived file whose pointer names a manifest that does not exist.</li>
 * </ul>
 */
public final class ArchiveOrphans {
  private ArchiveOrphans() {}

  /**
   * What the system directory and the archived files hold.
   *
   * @param manifests archived inode → its manifest's path, for every manifest file present
   * @param archivedPaths archived inode → the path its manifest records (manifests that parse)
   * @param manifestStripes archived inode → stripe ids its manifest lists (manifests that parse)
   * @param parityDirs archived inode → names of the entries in its parity directory, for every parity directory present
   * @param liveInodes the archived inodes (of manifests) that still exist
   * @param pointers archived file (current path) → the manifest path its pointer names
   * @param parityRoot the directory holding every archive's parity directory (for messages)
   */
  public record Inventory(Map<Long, String> manifests, Map<Long, String> archivedPaths,
      Map<Long, Set<Long>> manifestStripes, Map<Long, Set<String>> parityDirs, Set<Long> liveInodes,
      Map<String, String> pointers, String parityRoot) {}

  public static List<Finding> of(Inventory inv) {
    List<Finding> out = new ArrayList<>();
    for (Map.Entry<Long, String> e : new TreeMap<>(inv.manifests()).entrySet()) {
      long inode = e.getKey();
      if (!inv.liveInodes().contains(inode)) {
        String recorded = inv.archivedPaths().get(inode);
        out.add(new Finding(Problem.ORPHAN_MANIFEST, e.getValue(), -1, -1, 0, "manifest " + e.getValue()
            + " archives inode " + inode + (recorded == null ? "" : " (archived as " + recorded + ")")
            + ", which no longer exists; its parity " + (inv.parityDirs().containsKey(inode)
                ? "in " + parityDir(inv, inode) + " " : "") + "protects nothing: delete the manifest"
            + (inv.parityDirs().containsKey(inode) ? " and that directory" : "") + " as an HDFS superuser"));
      }
    }
    for (Map.Entry<Long, Set<String>> e : new TreeMap<>(inv.parityDirs()).entrySet()) {
      long inode = e.getKey();
      String dir = parityDir(inv, inode);
      if (!inv.manifests().containsKey(inode)) {
        out.add(new Finding(Problem.ORPHAN_PARITY, dir, -1, -1, 0, "parity directory " + dir + " belongs to no"
            + " manifest (no manifest of inode " + inode + "): it protects nothing the layout knows of; delete it as an"
            + " HDFS superuser, after unarchiving or re-archiving the files whose pointers name the lost manifest"));
        continue;
      }
      Set<Long> listed = inv.manifestStripes().get(inode);
      if (listed == null) {
        continue; // the manifest did not parse: reported as corrupt, its stripes unknown
      }
      for (String name : new java.util.TreeSet<>(e.getValue())) {
        Long id = stripeId(name);
        if (id == null || !listed.contains(id)) {
          out.add(new Finding(Problem.ORPHAN_PARITY, dir + "/" + name, id == null ? -1 : id, -1, 0, "parity "
              + dir + "/" + name + " is not a stripe of manifest " + inv.manifests().get(inode) + ": delete it as an"
              + " HDFS superuser"));
        }
      }
    }
    for (Map.Entry<String, String> e : new TreeMap<>(inv.pointers()).entrySet()) {
      if (!inv.manifests().containsValue(e.getValue())) {
        out.add(new Finding(Problem.ORPHAN_POINTER, e.getKey(), -1, -1, 0, e.getKey() + " is archived (its pointer"
            + " names manifest " + e.getValue() + "), but that manifest does not exist: its blocks are protected by"
            + " nothing the layout can find"));
      }
    }
    return out;
  }

  private static String parityDir(Inventory inv, long inode) {
    return inv.parityRoot() + "/" + inode;
  }

  /** A stripe's parity directory is named by its id in decimal; anything else is not one of ours. */
  private static Long stripeId(String name) {
    if (name.isEmpty() || name.length() > 18 || !name.chars().allMatch(Character::isDigit)) {
      return null;
    }
    return Long.parseLong(name);
  }

  /**
   * A reader's index of a sealed file ({@code sealed/<placeholder inode>.wecm}) and what it leads to now.
   *
   * @param placeholderInode the inode the index is named by
   * @param index the index's path
   * @param placeholder the placeholder's current path, "inode N" when out of the walk, null when no sealed
   *     placeholder has that inode any more (deleted, or replaced by another file)
   * @param pointer the manifest path the placeholder's pointer names, null when it has none
   */
  public record SealedIndex(long placeholderInode, String index, String placeholder, String pointer) {}

  /**
   * What the sealed part of the system directory holds.
   *
   * @param manifests archived inode → its manifest's path, for every manifest file present
   * @param manifestStripes archived inode → stripe ids its manifest lists (manifests that parse)
   * @param codewordDirs archived inode → names of the entries in its codeword directory
   * @param indexes every reader's index in scope, by placeholder inode
   * @param placeholders sealed placeholders met in the walk: current path → inode
   * @param pointers the walk's pointers: current path → manifest path
   * @param codewordRoot the directory holding every archive's codeword directory (for messages)
   */
  public record SealedInventory(Map<Long, String> manifests, Map<Long, Set<Long>> manifestStripes,
      Map<Long, Set<String>> codewordDirs, Map<Long, SealedIndex> indexes, Map<String, Long> placeholders,
      Map<String, String> pointers, String codewordRoot) {}

  /**
   * Leftovers of sealed files: codeword directories no manifest lists, reader's indexes whose placeholder is gone,
   * and placeholders that cannot be read (no pointer, no manifest, or no reader's index). A placeholder whose manifest
   * is gone is never "just" an orphan: its codewords are the only copy of its bytes, and its reader's index holds a
   * copy of the manifest, so the finding says how to put it back.
   */
  public static List<Finding> sealed(SealedInventory inv) {
    List<Finding> out = new ArrayList<>();
    for (Map.Entry<Long, Set<String>> e : new TreeMap<>(inv.codewordDirs()).entrySet()) {
      long inode = e.getKey();
      String dir = inv.codewordRoot() + "/" + inode;
      if (!inv.manifests().containsKey(inode)) {
        out.add(new Finding(Problem.ORPHAN_CODEWORDS, dir, -1, -1, 0, "codeword directory " + dir + " belongs to no"
            + " manifest (no manifest of inode " + inode + "): if a sealed placeholder still names that manifest, its"
            + " reader's index holds a copy (see its finding); otherwise delete the directory as an HDFS superuser"));
        continue;
      }
      Set<Long> listed = inv.manifestStripes().get(inode);
      if (listed == null) {
        continue; // reported as a corrupt manifest
      }
      for (String name : new java.util.TreeSet<>(e.getValue())) {
        Long id = stripeId(name);
        if (id == null || !listed.contains(id)) {
          out.add(new Finding(Problem.ORPHAN_CODEWORDS, dir + "/" + name, id == null ? -1 : id, -1, 0, "codewords "
              + dir + "/" + name + " are not a stripe of manifest " + inv.manifests().get(inode) + ": delete them as an"
              + " HDFS superuser"));
        }
      }
    }
    Set<String> manifestPaths = new java.util.HashSet<>(inv.manifests().values());
    Set<Long> indexed = new java.util.HashSet<>();
    for (SealedIndex x : new TreeMap<>(inv.indexes()).values()) {
      indexed.add(x.placeholderInode());
      if (x.placeholder() == null) {
        out.add(new Finding(Problem.ORPHAN_INDEX, x.index(), -1, -1, 0, "reader's index " + x.index() + " names"
            + " placeholder inode " + x.placeholderInode() + ", which is no longer a sealed file (deleted or replaced):"
            + " delete the index as an HDFS superuser"));
      } else if (x.pointer() == null) {
        out.add(new Finding(Problem.ORPHAN_PLACEHOLDER, x.placeholder(), -1, -1, 0, "sealed file " + x.placeholder()
            + " has no pointer to its manifest; its reader's index " + x.index() + " holds a copy of the manifest"));
      } else if (!manifestPaths.contains(x.pointer())) {
        out.add(new Finding(Problem.ORPHAN_PLACEHOLDER, x.placeholder(), -1, -1, 0, "sealed file " + x.placeholder()
            + " names manifest " + x.pointer() + ", which does not exist: its bytes live only in its codewords; its"
            + " reader's index " + x.index() + " holds a copy of the manifest: copy it to " + x.pointer() + " as an"
            + " HDFS superuser to make the file repairable and restorable again"));
      }
    }
    for (Map.Entry<String, Long> e : new TreeMap<>(inv.placeholders()).entrySet()) {
      if (indexed.contains(e.getValue())) {
        continue;
      }
      String pointer = inv.pointers().get(e.getKey());
      out.add(new Finding(Problem.ORPHAN_PLACEHOLDER, e.getKey(), -1, -1, 0, "sealed file " + e.getKey() + " has no"
          + " reader's index (no sealed/" + e.getValue() + ".wecm), so no client can read it"
          + (pointer == null ? " and no pointer to a manifest" : "; rerun 'wide-ec archive' on it, or copy its manifest "
              + pointer + " to that index as an HDFS superuser")));
    }
    return out;
  }
}
