package org.wideec.archive.mr;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.HdfsConstants;
import org.apache.hadoop.io.SequenceFile;
import org.apache.hadoop.io.Text;
import org.wideec.archive.ArchivalPlan;
import org.wideec.archive.ArchivalPlanner;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.PlacementKind;
import org.wideec.archive.PlannedStripe;
import org.wideec.archive.StripeManifest;
import org.wideec.archive.StripeMember;
import org.wideec.archive.encode.EncodePlan;
import org.wideec.archive.hdfs.ArchivalSource;
import org.wideec.archive.hdfs.ArchiveOrchestrator;
import org.wideec.archive.hdfs.ManifestStore;
import org.wideec.code.UnitRole;

/**
 * The archival job's listing (DistCp's shape): one {@link ArchiveItem} per PATH argument, written as a
 * SequenceFile (key: the path) before the job is submitted, so the split planner and every mapper see the same work.
 * A path not yet being archived is planned on the live cluster, as {@code archive --dry-run} does, for its locality
 * host and costs; a path with a manifest is listed from the manifest (that, not a new plan, is what a rerun resumes).
 * Overlapping paths are refused: each archive unit has one manifest with one writer, and a file in two units would
 * be archived twice.
 */
public final class ArchiveListing {
  private ArchiveListing() {
  }

  /** The listing of {@code paths}, in the order given. */
  public static List<ArchiveItem> of(DistributedFileSystem dfs, ManifestStore store, List<Path> paths, String codeSpec,
      PlacementKind placement, String encoder, EncodePlan.Shape chainShape, boolean trim) throws IOException {
    return of(dfs, store, paths, codeSpec, placement, encoder, chainShape, trim, null);
  }

  /** As above, new plans grouped by {@code grouping} (null: {@code wide-ec.archive.grouping}). */
  public static List<ArchiveItem> of(DistributedFileSystem dfs, ManifestStore store, List<Path> paths, String codeSpec,
      PlacementKind placement, String encoder, EncodePlan.Shape chainShape, boolean trim,
      org.wideec.archive.ArchiveGrouping grouping) throws IOException {
    refuseOverlaps(paths);
    Map<String, String> hostOf = new HashMap<>();
    for (DatanodeInfo d : dfs.getDataNodeStats(HdfsConstants.DatanodeReportType.LIVE)) {
      hostOf.put(d.getXferAddr(), d.getHostName());
    }
    List<ArchiveItem> items = new ArrayList<>();
    for (Path p : paths) {
      String name = Path.getPathWithoutSchemeAndAuthority(p).toString();
      StripeManifest m = store.find(store.inodeOf(p));
      if (m != null) {
        items.add(fromManifest(name, m, hostOf, trim));
        continue;
      }
      ArchivalPlan plan = ArchivalPlanner.plan(new ArchivalSource(dfs, grouping).request(p, codeSpec, placement))
          .withChainShape(chainShape, org.wideec.archive.hdfs.ChainEncoder.readsOf(dfs.getConf()));
      long[] cross = new long[plan.stripes().size()];
      for (PlannedStripe s : plan.stripes()) {
        cross[(int) s.stripeId()] = encoder.equals("chain") ? s.chain().crossRackBytes() : s.classic().crossRackBytes();
      }
      PlannedStripe first = plan.stripes().get(0);
      String node = encoder.equals("chain") && !first.chain().trees().isEmpty()
          ? first.chain().sources().get(first.chain().trees().get(0).get(0)) : first.classic().encoderNode();
      items.add(new ArchiveItem(name, hostOf.getOrDefault(node, ""), plan.logicalBytes(), plan.stripes().size(),
          cross));
    }
    return items;
  }

  /** A unit already being archived: its first unfinished stripe's first data block's planned node starts it. */
  private static ArchiveItem fromManifest(String name, StripeManifest m, Map<String, String> hostOf, boolean trim) {
    long bytes = 0;
    String node = null;
    for (ArchivedStripe s : m.stripes()) {
      for (StripeMember u : s.members()) {
        if (u.role() == UnitRole.DATA && !u.padding()) {
          bytes += u.length();
          if (node == null && !ArchiveOrchestrator.finalState(s.state(), trim)) {
            node = u.plannedNode();
          }
        }
      }
    }
    return new ArchiveItem(name, node == null ? "" : hostOf.getOrDefault(node, ""), bytes, m.stripes().size(),
        new long[0]);
  }

  /** Refuses a path given twice, or one inside another. */
  static void refuseOverlaps(List<Path> paths) {
    List<String> names = paths.stream().map(p -> Path.getPathWithoutSchemeAndAuthority(p).toString()).toList();
    for (int i = 0; i < names.size(); i++) {
      for (int j = 0; j < names.size(); j++) {
        String a = names.get(i);
        String b = names.get(j);
        if (i != j && (a.equals(b) && i < j || b.startsWith(a.endsWith("/") ? a : a + "/"))) {
          throw new IllegalArgumentException(a.equals(b) ? a + " is given twice"
              : b + " is inside " + a + ": one archive run would archive it twice; give one of them");
        }
      }
    }
  }

  public static void write(FileSystem fs, Path file, List<ArchiveItem> items) throws IOException {
    try (SequenceFile.Writer w = SequenceFile.createWriter(fs.getConf(), SequenceFile.Writer.file(fs.makeQualified(file)),
        SequenceFile.Writer.keyClass(Text.class), SequenceFile.Writer.valueClass(ArchiveItem.class))) {
      for (ArchiveItem i : items) {
        w.append(new Text(i.path()), i);
      }
    }
  }

  public static List<ArchiveItem> read(Configuration conf, Path file) throws IOException {
    List<ArchiveItem> out = new ArrayList<>();
    try (SequenceFile.Reader r = new SequenceFile.Reader(conf, SequenceFile.Reader.file(file))) {
      Text key = new Text();
      while (true) {
        ArchiveItem item = new ArchiveItem();
        if (!r.next(key, item)) {
          return out;
        }
        out.add(item);
      }
    }
  }
}
