package org.wideec.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.HdfsFileStatus;
import org.wideec.archive.ArchiveSummary;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.StripeManifest;
import org.wideec.archive.StripeMember;
import org.wideec.archive.StripeState;
import org.wideec.archive.hdfs.ArchivalSource;
import org.wideec.archive.hdfs.ArchiveLayout;
import org.wideec.archive.hdfs.ManifestStore;
import org.wideec.code.UnitRole;

/**
 * {@code wide-ec status PATH}: what the manifest covering an archived path says (its own, or for a file archived
 * with its directory the one its pointer names): stripes per state, the bytes HDFS stores for them now (data at
 * each file's replication plus the parity written), what they take once trimmed to one replica, and the saving.
 * While the NameNode is in safe mode it first says so ({@link SafeModeNotice}); while DataNodes leave service, a last
 * line says how their decommission by local reconstruction stands ({@link DecommissionProgress}).
 */
final class StatusCommand {
  private final Configuration conf;
  private final PrintStream out;

  StatusCommand(Configuration conf, PrintStream out) {
    this.conf = conf;
    this.out = out;
  }

  int run(String[] args) throws IOException {
    Options o = new Options(args, Set.of(), Set.of("json"));
    if (o.positional().size() != 1) {
      throw new Options.UsageException("status needs exactly one PATH");
    }
    Path path = new Path(o.positional().get(0));
    DistributedFileSystem dfs = ArchiveCommand.hdfs(conf, path, "status");
    ManifestStore store = new ManifestStore(dfs, ArchiveLayout.from(conf));
    StripeManifest m = store.covering(path);
    if (m == null) {
      throw new IOException(path.toUri().getPath() + " is not archived (no manifest at "
          + store.layout().manifest(store.inodeOf(path)) + " and no " + ArchivalSource.POINTER_XATTR + " pointer)");
    }
    ArchiveSummary sum = ArchiveSummary.of(m);
    long storedNow = storedNow(dfs, m, sum);
    long afterTrim = sum.logicalBytes() + sum.parityBytes();
    String safeMode = SafeModeNotice.of(dfs, "status", path.toUri().getPath(), () -> ArchiveFsck.of(dfs, path).missing());
    DecommissionProgress leaving = decommission(dfs);
    if (o.has("json")) {
      Map<String, Object> j = new LinkedHashMap<>();
      j.put("path", m.archivedPath());
      j.put("safeMode", safeMode);
      j.put("scope", m.scope().label());
      j.put("code", m.stripes().get(0).codeSpec());
      j.put("stripes", sum.stripes());
      j.put("stripesByState", sum.toJson());
      j.put("logicalBytes", sum.logicalBytes());
      j.put("parityBytes", sum.parityBytes());
      j.put("storedBytesNow", storedNow);
      j.put("storedBytesAfterTrim", afterTrim);
      j.put("redundancyNow", (double) storedNow / sum.logicalBytes());
      j.put("redundancyAfter", sum.redundancyAfterTrim());
      j.put("bytesSavedOnceTrimmed", storedNow - afterTrim);
      if (leaving != null) {
        j.put("decommission", leaving.toJson());
      }
      out.println(Json.write(j));
      return 0;
    }
    if (safeMode != null) {
      out.println(safeMode);
    }
    out.printf("%s (%s, %s): %d stripes%n", m.archivedPath(), m.scope().label(), m.stripes().get(0).codeSpec(),
        sum.stripes());
    for (StripeState s : StripeState.values()) {
      if (sum.count(s) > 0) {
        out.printf("  %-15s %d%n", s.name().toLowerCase(java.util.Locale.ROOT), sum.count(s));
      }
    }
    out.printf("data %,d bytes; stored now %,d bytes (redundancy %.4f); once trimmed %,d bytes (redundancy %.4f),"
            + " saving %,d bytes%n", sum.logicalBytes(), storedNow, (double) storedNow / sum.logicalBytes(), afterTrim,
        sum.redundancyAfterTrim(), storedNow - afterTrim);
    if (leaving != null && leaving.nodes() > 0) {
      out.println(leaving.line());
    }
    return 0;
  }

  /** The NameNode's decommission progress, or null when its /jmx page cannot be read (status goes on without it). */
  private static DecommissionProgress decommission(DistributedFileSystem dfs) {
    try {
      return DecommissionProgress.of(dfs);
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  /** The bytes the archive takes now: the parities written, and each data unit times its file's replication now. */
  private static long storedNow(DistributedFileSystem dfs, StripeManifest m, ArchiveSummary sum) throws IOException {
    long storedNow = sum.parityBytesWritten();
    Map<Long, Short> replication = new HashMap<>();
    for (ArchivedStripe s : m.stripes()) {
      for (StripeMember u : s.members()) {
        if (u.role() == UnitRole.DATA && !u.padding()) {
          Short r = replication.get(u.inodeId());
          if (r == null) {
            r = replicationOf(dfs, u.inodeId());
            replication.put(u.inodeId(), r);
          }
          storedNow += u.length() * r;
        }
      }
    }
    return storedNow;
  }

  /** A data file's replication now; a file gone since counts as holding nothing. */
  private static short replicationOf(DistributedFileSystem dfs, long inode) throws IOException {
    try {
      HdfsFileStatus st = dfs.getClient().getFileInfo(ArchiveLayout.inodePath(inode).toString());
      return st == null ? 0 : st.getReplication();
    } catch (java.io.FileNotFoundException e) {
      return 0;
    }
  }
}
