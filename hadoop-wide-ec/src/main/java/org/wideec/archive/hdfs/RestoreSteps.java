package org.wideec.archive.hdfs;

import java.io.IOException;
import java.util.Map;
import org.apache.hadoop.fs.Path;
import org.wideec.archive.ArchivePointer;
import org.wideec.archive.StripeLayout;
import org.wideec.archive.UnarchiveLifecycle;
import org.wideec.archive.UnarchiveLifecycle.Step;

/**
 * The HDFS work of one {@link StripeLayout}'s way back, which the {@link Unarchiver} calls in the order the {@link
 * UnarchiveLifecycle} decides: the systematic layout's ({@link SystematicRestore}: raise the blocks' replication,
 * pointers, parity) and the non-systematic one's ({@link NonSystematicRestore}: decode, the placeholder swap,
 * codewords). The unarchiver holds the archive's lock, waits for the own copy, proves the lock before each step that
 * changes the archive, deletes the manifest and shows each step to the crash tests' hook.
 */
interface RestoreSteps {
  /** The archive a file's pointer names, or a refusal naming the file and the pointer it cannot read. */
  static long archiveOf(String name, ArchivePointer p) throws IOException {
    try {
      return ArchiveLayout.archiveInodeOf(p.manifestPath());
    } catch (IllegalArgumentException e) {
      throw new IOException(name + "'s " + ArchivalSource.POINTER_XATTR + " pointer names no manifest: "
          + e.getMessage(), e);
    }
  }

  StripeLayout layout();

  /** The inode id of the archive whose lock the run takes. */
  long archive();

  /** What the run finds, once it holds the lock (another run may have finished meanwhile). */
  UnarchiveLifecycle.Found find() throws IOException;

  /**
   * {@link Step#RESTORE}: the data's own copy, refused before anything changes when a block or piece of it has no live
   * source.
   */
  void restore(short replication) throws IOException;

  /** The files of the own copy, inode id to the path named in messages. */
  Map<Long, String> ownCopy() throws IOException;

  /** Block id to its place in the stripes ("stripe 0 unit 3"), for messages; empty where a block has none. */
  default Map<Long, String> where() {
    return Map.of();
  }

  /** {@link Step#RELEASE}; returns the pointers removed. */
  int release() throws IOException;

  /** {@link Step#FREE}; returns the unit files deleted. */
  long free() throws IOException;

  /** The manifest {@link Step#FORGET} deletes. */
  Path manifest();

  /** After the manifest is deleted: the marks a rerun found the archive by (nothing by default). */
  default void forget() throws IOException {}

  /** What the step is about to change, for the lock's proof ("removing the pointers of /a"). */
  String changing(Step step);

  /** The name the crash tests' hook knows the step by once it is done, or null where it has none. */
  String doneName(Step step);

  /** Files given back their own replicated copy. */
  int files();

  /** Stripes of the manifest the run frees. */
  int stripes();
}
