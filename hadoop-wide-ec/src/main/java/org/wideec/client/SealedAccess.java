package org.wideec.client;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.protocol.HdfsFileStatus;
import org.apache.hadoop.security.AccessControlException;
import org.wideec.archive.ArchivePointer;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.StripeManifest;
import org.wideec.archive.hdfs.ArchivalSource;
import org.wideec.archive.hdfs.ArchiveLayout;
import org.wideec.archive.hdfs.CodewordFiles;
import org.wideec.archive.hdfs.SealedFiles;

/**
 * Keeps a sealed file's parts as readable as the file (issue 14 item 2). A reader of a sealed file reads its reader's
 * index and its codewords with its own HDFS permissions; those parts belong to the archiving superuser, read-only,
 * with ACL entries mirroring who may read the file ({@link SealedFiles#readAcl}). A change made through
 * {@link WideEcFileSystem} goes to the placeholder first, so HDFS authorizes the caller exactly as for the file (a
 * non-owner's chmod, a non-superuser's chown fail there, naming the file, and nothing else changes). Rewriting the
 * parts' ACLs is a superuser step: as anyone else the change reaches the placeholder only, and the error says what
 * to run. Every path taken from the index must be the codeword directory of the pointer's archive, checked before
 * anything is touched: an index never steers a change onto other files.
 */
final class SealedAccess {
  /** One access change, applied to a path by the stock client. */
  @FunctionalInterface
  interface Change {
    void apply(Path p) throws IOException;
  }

  private final WideEcFileSystem fs;

  SealedAccess(WideEcFileSystem fs) {
    this.fs = fs;
  }

  /** Applies {@code change} ({@code what} names it in errors) to the file and, when it is sealed, mirrors it. */
  void change(Path f, String what, Change change) throws IOException {
    String name = Path.getPathWithoutSchemeAndAuthority(fs.makeQualified(f)).toString();
    HdfsFileStatus st = fs.getClient().getFileInfo(name);
    if (!SealedFiles.isSealed(st)) {
      change.apply(f);
      return;
    }
    change.apply(f);
    byte[] pointer;
    try {
      pointer = fs.getXAttr(f, ArchivalSource.POINTER_XATTR);
    } catch (AccessControlException e) {
      throw new IOException(f + ": " + what + " changed the sealed file's placeholder only. Its codewords and reader's"
          + " index belong to the archiving superuser, with ACL entries mirroring who may read the file, so its readers"
          + " keep their old access until an HDFS superuser mirrors the change: run it again as the superuser through"
          + " WideEcFileSystem (hdfs dfs -D fs.hdfs.impl=" + WideEcFileSystem.class.getName() + " ...), which"
          + " mirrors the file's current access onto every part", e);
    }
    if (pointer == null) {
      throw new IOException(f + ": " + what + " changed the sealed file's placeholder only: it has no "
          + ArchivalSource.POINTER_XATTR + " pointer; run wide-ec fsck " + name);
    }
    mirror(f, name, what, st, ArchivePointer.parse(pointer, name));
  }

  private void mirror(Path f, String name, String what, HdfsFileStatus st, ArchivePointer pointer)
      throws IOException {
    ArchiveLayout layout = ArchiveLayout.from(fs.getConf());
    long archive = ArchiveLayout.archiveInodeOf(pointer.manifestPath());
    Path index = layout.sealedIndex(st.getFileId());
    StripeManifest m = fs.sealedIndexOf(st);
    List<Path> parts = new ArrayList<>(List.of(index));
    for (ArchivedStripe s : m.stripes()) {
      String dir = layout.codewordDir(archive, s.stripeId()).toUri().getPath();
      if (!dir.equals(s.parityFilePath())) {
        throw new IOException(f + ": " + what + " changed the placeholder only: its reader's index " + index
            + " lists " + s.parityFilePath() + " for stripe " + s.stripeId() + ", not " + dir + " under the codeword"
            + " root of its archive (inode " + archive + "); no part was touched. Run wide-ec fsck " + name);
      }
      for (int u = 0; u < s.members().size(); u++) {
        if (!s.member(u).padding()) {
          parts.add(CodewordFiles.file(s, u));
        }
      }
    }
    var acl = SealedFiles.readAcl(fs.getFileStatus(f), fs.getAclStatus(f).getEntries());
    for (Path part : parts) {
      try {
        fs.setAcl(part, acl);
      } catch (FileNotFoundException e) {
        // A codeword file deleted by hand is lost to the file anyway (wide-ec fsck reports it); the others still change.
      } catch (IOException e) {
        throw new IOException(f + ": " + what + " was applied to the sealed file but not to its part " + part + " ("
            + e.getMessage() + "); its readers' access follows the parts: run it again", e);
      }
    }
  }
}
