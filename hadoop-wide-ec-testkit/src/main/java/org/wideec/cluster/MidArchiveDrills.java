package org.wideec.cluster;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.HdfsConstants.SafeModeAction;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;

/**
 * The fault drills that strike an archive while it runs: kill -9 of a DataNode holding a block being encoded, of the
 * archiver's own JVM, or of the NameNode, after the archiver wrote its manifest; then the archive is rerun as an
 * operator would (it resumes from its manifest once the killed run's lock lease is recovered) and every file it
 * archived is returned for the byte comparison.
 */
final class MidArchiveDrills {
  private final ClusterBed bed;
  private final ArchivalComparison.Settings archive;
  private final IntSupplier files;
  private final long fileBytes;

  MidArchiveDrills(ClusterBed bed, ArchivalComparison.Settings archive, IntSupplier files, long fileBytes) {
    this.bed = bed;
    this.archive = archive;
    this.files = files;
    this.fileBytes = fileBytes;
  }

  /**
   * Archives a fresh replicated directory with the chain encoder, strikes {@code what} mid-archive, then reruns it;
   * {@code nodes}: the DataNodes that must be live again before the rerun.
   */
  FaultDrills.Outcome strike(String what, int nodes) throws Exception {
    Path dir = new Path("/bench-faults/archive-" + what);
    List<Path> paths = new ArrayList<>();
    long seed = 5000L + what.hashCode() % 1000;
    bed.stock.mkdirs(dir);
    for (int f = 0; f < files.getAsInt(); f++) {
      paths.add(new Path(dir, "f" + f));
      FileContent.write(bed.stock, paths.get(f), seed + f, fileBytes);
    }
    String[] command = ArchivalComparison.concat(new String[] {"archive", dir.toString()}, archive.archiveArgs(
        archive.wideCode(), "chain"));
    long manifests = manifests();
    ToolProcess first = ToolProcess.start(command);
    Await.until("the archiver writing its manifest", bed.timeoutMs, () -> !first.isAlive() || manifests() > manifests);
    String struck;
    switch (what) {
      case "datanode" -> {
        LocatedBlock b = bed.stock.getClient().getLocatedBlocks(paths.get(0).toString(), 0, 1).get(0);
        DatanodeInfo dn = b.getLocations()[0];
        struck = ClusterScript.nodeName(dn);
        bed.cluster.kill(struck);
        int exit = first.waitFor(bed.timeoutMs);
        bed.startDataNode(struck);
        bed.awaitLive(nodes);
        struck = "DataNode " + struck + " (holding a replica of the first block) killed with SIGKILL mid-archive (archiver"
            + " exit " + exit + "), restarted";
      }
      case "archiver" -> {
        first.killHard();
        struck = "the archiver (wide-ec archive, its own JVM) killed with SIGKILL mid-archive";
      }
      default -> {
        bed.cluster.kill("nn");
        int exit = first.waitFor(TimeUnit.MINUTES.toMillis(3));
        if (exit == -1) {
          first.killHard();
        }
        bed.cluster.start("nn");
        Await.until("the NameNode out of safe mode", bed.timeoutMs, () -> {
          try {
            return !bed.stock.setSafeMode(SafeModeAction.SAFEMODE_GET);
          } catch (IOException e) {
            return false; // still starting
          }
        });
        bed.awaitLive(nodes);
        struck = "the NameNode killed with SIGKILL mid-archive (archiver exit " + exit + "), restarted";
      }
    }
    boolean finishedAnyway = !first.isAlive() && first.waitFor(0) == 0;
    long start = System.nanoTime();
    String again = rerunOnceTheLockIsFree(command);
    long waited = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start);
    String did = struck + "; the archive rerun resumed and finished" + (finishedAnyway ? " (the first run had finished"
        + " anyway)" : "") + " after " + waited + " s: " + lastLine(again);
    return new FaultDrills.Outcome(did, paths, seed);
  }

  /**
   * The rerun as the archiver tells an operator to do it: a run killed with SIGKILL leaves its lock open until HDFS
   * recovers the lease (about a minute), and a rerun meanwhile says so and stops; rerun until it gets the lock.
   */
  private String rerunOnceTheLockIsFree(String[] command) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(bed.timeoutMs);
    while (true) {
      try {
        return ToolProcess.run(bed.timeoutMs, command);
      } catch (IOException e) {
        if (!e.getMessage().contains("another wide-ec archive run holds") || System.nanoTime() > deadline) {
          throw e;
        }
        bed.log.println("cluster bench: the killed run's lock is still held; rerunning in 15 s");
        Thread.sleep(15_000);
      }
    }
  }

  private long manifests() throws IOException {
    Path root = new Path(bed.conf.get("wide-ec.archive.dir", "/.wideec"));
    return bed.stock.exists(root) ? bed.stock.getContentSummary(root).getFileCount() : 0;
  }

  private static String lastLine(String out) {
    String[] lines = out.trim().split("\n");
    return lines[lines.length - 1];
  }
}
