package org.wideec.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.wideec.archive.ArchiveSummary;
import org.wideec.archive.StripeState;
import org.wideec.archive.hdfs.Archiver;
import org.wideec.archive.hdfs.ArchiveLayout;
import org.wideec.archive.hdfs.ManifestStore;
import org.wideec.archive.hdfs.SealedArchiver;
import org.wideec.archive.hdfs.SealedFiles;

/**
 * {@code wide-ec archive FILE --code rapidraid:n=N,k=K}: a non-systematic code seals the file (issue 14 item 2) with
 * the {@link SealedArchiver}; the classic encoder is the only one this command runs for it so far.
 */
final class SealedArchiveCommand {
  private SealedArchiveCommand() {}

  static int run(Configuration conf, Path path, String spec, String encoder, boolean json, PrintStream out)
      throws IOException {
    if (!encoder.equals("classic")) {
      throw new Options.UsageException(spec + " is non-systematic: archive it with --encoder classic (got '" + encoder
          + "')");
    }
    DistributedFileSystem dfs = ArchiveCommand.hdfs(conf, path, "archive");
    ManifestStore store = new ManifestStore(dfs, ArchiveLayout.from(conf));
    SealedArchiver.Result r = new SealedArchiver(dfs, store, SealedArchiver.classic(dfs), Archiver.Hook.NONE,
        System.nanoTime()).archive(path, spec);
    ArchiveSummary sum = ArchiveSummary.of(r.manifest());
    if (json) {
      Map<String, Object> j = new LinkedHashMap<>();
      j.put("path", path.toUri().getPath());
      j.put("code", spec);
      j.put("encoder", encoder);
      j.put("sealed", r.sealed());
      j.put("length", SealedFiles.length(r.manifest()));
      j.put("stripes", r.manifest().stripes().size());
      j.put("trimmed", sum.count(StripeState.TRIMMED));
      j.put("bytesRead", r.bytesRead());
      j.put("codewordBytesWritten", r.bytesWritten());
      j.put("offPlan", r.offPlan());
      j.put("stale", r.stale());
      out.println(Json.write(j));
    } else {
      out.printf("archive %s with %s (classic encoder): %s; %d stripes; read %,d bytes, wrote %,d codeword bytes%n",
          path.toUri().getPath(), spec, r.sealed() ? "sealed (read it through WideEcFileSystem; a stock read fails)"
              : "NOT sealed", r.manifest().stripes().size(), r.bytesRead(), r.bytesWritten());
      r.offPlan().forEach(l -> out.println("  off plan: " + l));
      r.stale().forEach(l -> out.println("  stale: " + l));
    }
    return r.sealed() ? 0 : 1;
  }
}
