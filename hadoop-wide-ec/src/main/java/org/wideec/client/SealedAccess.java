package org.wideec.client;

import java.io.FileNotFoundException;
import java.io.IOException;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.protocol.HdfsFileStatus;
import org.apache.hadoop.security.AccessControlException;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.StripeManifest;
import org.wideec.archive.hdfs.ArchiveLayout;
import org.wideec.archive.hdfs.CodewordFiles;
import org.wideec.archive.hdfs.SealedFiles;

/**
 * Keeps a sealed file's parts as accessible as the file (issue 14 item 2). A reader of a sealed file reads its
 * reader's index and its codewords with its own HDFS permissions, so those carry the file's owner, group, permission
 * and ACL; a change made through {@link WideEcFileSystem} to the placeholder is made to each part too. The file goes
 * first, so HDFS authorizes the caller exactly as for the file itself (a non-owner's chmod, a non-superuser's chown
 * fail there, naming the file, and nothing else changes); then the index, then every codeword.
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

  /** Applies {@code change} ({@code what} names it in errors) to the file and, when it is sealed, to its parts. */
  void change(Path f, String what, Change change) throws IOException {
    HdfsFileStatus st = fs.getClient().getFileInfo(Path.getPathWithoutSchemeAndAuthority(fs.makeQualified(f))
        .toString());
    if (!SealedFiles.isSealed(st)) {
      change.apply(f);
      return;
    }
    Path index = ArchiveLayout.from(fs.getConf()).sealedIndex(st.getFileId());
    StripeManifest m = null;
    try {
      m = fs.sealedIndexOf(st);
    } catch (AccessControlException e) {
      // The owner made the index unreadable earlier (chmod 0200, say): read it once this change reached it.
    }
    change.apply(f);
    part(f, what, index, change);
    if (m == null) {
      m = fs.sealedIndexOf(st);
    }
    for (ArchivedStripe s : m.stripes()) {
      for (int u = 0; u < s.members().size(); u++) {
        if (!s.member(u).padding()) {
          part(f, what, CodewordFiles.file(s, u), change);
        }
      }
    }
  }

  private static void part(Path f, String what, Path part, Change change) throws IOException {
    try {
      change.apply(part);
    } catch (FileNotFoundException e) {
      // A codeword file deleted by hand is lost to the file anyway (wide-ec fsck reports it); the others still change.
    } catch (IOException e) {
      throw new IOException(f + ": " + what + " was applied to the sealed file but not to its part " + part + " ("
          + e.getMessage() + "); its readers' access follows the parts: run it again", e);
    }
  }
}
