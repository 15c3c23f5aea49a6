package org.wideec.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.wideec.archive.hdfs.ArchiveLayout;
import org.wideec.archive.hdfs.ManifestStore;
import org.wideec.archive.hdfs.Unarchiver;

/**
 * {@code wide-ec unarchive PATH [--replication N] [--json]}: an archived file or directory back to plain replication,
 * then its stripes freed ({@link Unarchiver}). A path that is not archived (or no longer: a rerun after success) is
 * left alone and exits 0; a path inside an archived directory is refused, naming the directory.
 */
final class UnarchiveCommand {
  static final String USAGE = String.join("\n",
      "  unarchive PATH [--replication N] [--json]            back to plain replication (N: dfs.replication): raise it,",
      "                                                        wait until HDFS holds every data block that many times,",
      "                                                        then free the stripes (pointers, parity, manifest); a",
      "                                                        sealed file is decoded into a new replicated file that",
      "                                                        replaces its placeholder, then its codewords, reader's",
      "                                                        index and manifest are freed; rerun to finish a crash");

  private final Configuration conf;
  private final PrintStream out;
  private final PrintStream err;

  UnarchiveCommand(Configuration conf, PrintStream out, PrintStream err) {
    this.conf = conf;
    this.out = out;
    this.err = err;
  }

  int run(String[] args) throws IOException {
    Options o = new Options(args, Set.of("replication"), Set.of("json"));
    if (o.positional().size() != 1) {
      throw new Options.UsageException("unarchive needs exactly one PATH");
    }
    long replication = o.getLong("replication", conf.getInt(org.apache.hadoop.hdfs.DFSConfigKeys.DFS_REPLICATION_KEY,
        org.apache.hadoop.hdfs.DFSConfigKeys.DFS_REPLICATION_DEFAULT));
    // One replica is no better than the trimmed layout without its parity: the stripes would be freed while a
    // block's only replica may sit on a node that died minutes ago and is not yet declared dead.
    if (replication < 2 || replication > Short.MAX_VALUE) {
      throw new Options.UsageException("--replication must be 2.." + Short.MAX_VALUE + ", got " + replication);
    }
    Path path = new Path(o.positional().get(0));
    DistributedFileSystem dfs = ArchiveCommand.hdfs(conf, path, "unarchive");
    ManifestStore store = new ManifestStore(dfs, ArchiveLayout.from(conf));
    ProgressReport progress = new ProgressReport(err, "unarchive " + path + " (blocks re-replicated)");
    Unarchiver.Result r;
    try {
      r = new Unarchiver(dfs, store, Unarchiver.Hook.NONE).unarchive(path, (short) replication, progress::at);
    } finally {
      progress.finish();
    }
    if (o.has("json")) {
      Map<String, Object> j = new LinkedHashMap<>();
      j.put("path", r.path());
      j.put("wasArchived", r.archived());
      j.put("manifest", r.manifest());
      j.put("replication", r.replication());
      j.put("files", r.files());
      j.put("blocks", r.blocks());
      j.put("stripesFreed", r.stripesFreed());
      j.put("parityFilesDeleted", r.parityFilesDeleted());
      j.put("pointersRemoved", r.pointersRemoved());
      out.println(Json.write(j));
    } else if (!r.archived()) {
      out.println(r.path() + " is not archived: nothing to do");
    } else {
      out.printf("unarchived %s: %d files (%d blocks) at replication %d; %d stripes freed, %d parity files deleted,"
              + " %d pointers removed%s%n", r.path(), r.files(), r.blocks(), r.replication(), r.stripesFreed(),
          r.parityFilesDeleted(), r.pointersRemoved(), r.manifest().isEmpty() ? "" : ", manifest " + r.manifest()
              + (r.stripesFreed() > 0 ? " deleted" : " was already gone"));
    }
    return 0;
  }
}
