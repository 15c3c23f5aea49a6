package org.wideec.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.hadoop.hdfs.protocol.HdfsLocatedFileStatus;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;

/**
 * The replicas one step of the cluster bench lets go, and the wait until the DataNodes have deleted them, so the
 * deletions a command leaves behind (an update's freed parity and set-aside files at the commit, a trim's excess
 * replicas, a manifest replaced) land in that command's own count, not the next one's. The NameNode forgets a deleted
 * file's blocks at once and hands the deletions to the DataNodes on later heartbeats, which delete the files in the
 * background; a trim's excess replicas stay listed (and counted as excess) until their DataNodes report them gone.
 * So the wait is over when the NameNode has no deletion left to hand out and no excess replica, and no DataNode's
 * storage (each under {@code DIR/data} of the cluster, as cluster.sh lays it out) still holds a block the step freed.
 * Only contiguous blocks are followed: the update phase deletes no striped file.
 */
final class FreedReplicas {
  private static final Pattern BLOCK_FILE = Pattern.compile("blk_(-?\\d+)");

  private final ClusterBed bed;
  private final Set<Long> before;

  private FreedReplicas(ClusterBed bed, Set<Long> before) {
    this.bed = bed;
    this.before = before;
  }

  /** Notes the blocks the NameNode lists now, before the step runs. */
  static FreedReplicas before(ClusterBed bed) throws IOException {
    return new FreedReplicas(bed, listedBlocks(bed));
  }

  /**
   * After the step: measures, as its own phase named {@code step + ": trims"}, the wait until the DataNodes deleted
   * what the step let go; the phase's figures and blocksFreed (blocks listed before, not now).
   */
  Map<String, Object> await(String step) throws IOException {
    Phase p = bed.phase(step + ": trims");
    Set<Long> freed = freed(before, listedBlocks(bed));
    java.nio.file.Path storage = java.nio.file.Path.of(bed.cluster.dir(), "data");
    Await.until("the DataNodes deleting the " + freed.size() + " blocks " + step + " freed", bed.timeoutMs, () -> {
      com.fasterxml.jackson.databind.JsonNode fsn = bed.nameNodeBean("FSNamesystem");
      return fsn != null && fsn.path("PendingDeletionBlocks").asLong(-1) == 0 && fsn.path("ExcessBlocks").asLong(-1) == 0
          && held(storage, freed).isEmpty();
    });
    Map<String, Object> m = p.end();
    m.put("blocksFreed", freed.size());
    return m;
  }

  /** The blocks listed before and not now. */
  static Set<Long> freed(Set<Long> before, Set<Long> now) {
    Set<Long> out = new HashSet<>(before);
    out.removeAll(now);
    return out;
  }

  /** Which of {@code blocks} a replica file under {@code storage} still holds ({@code blk_ID}; its .meta aside). */
  static Set<Long> held(java.nio.file.Path storage, Set<Long> blocks) throws IOException {
    Set<Long> out = new HashSet<>();
    if (blocks.isEmpty()) {
      return out;
    }
    try (Stream<java.nio.file.Path> files = Files.walk(storage)) {
      files.forEach(f -> {
        Matcher m = BLOCK_FILE.matcher(f.getFileName().toString());
        if (m.matches() && blocks.contains(Long.parseLong(m.group(1)))) {
          out.add(Long.parseLong(m.group(1)));
        }
      });
    } catch (UncheckedIOException e) {
      // A DataNode deleted a directory while it was walked: the next poll looks again.
      if (!(e.getCause() instanceof java.nio.file.NoSuchFileException)) {
        throw e.getCause();
      }
      out.addAll(blocks);
    }
    return out;
  }

  /** Every contiguous block of every file in the namespace, as the NameNode lists them. */
  private static Set<Long> listedBlocks(ClusterBed bed) throws IOException {
    Set<Long> out = new HashSet<>();
    RemoteIterator<LocatedFileStatus> it = bed.stock.listFiles(new Path("/"), true);
    while (it.hasNext()) {
      LocatedFileStatus st = it.next();
      if (st.isErasureCoded()) {
        continue;
      }
      Iterable<LocatedBlock> blocks = st instanceof HdfsLocatedFileStatus h ? h.getLocatedBlocks().getLocatedBlocks()
          : bed.stock.getClient().getLocatedBlocks(st.getPath().toUri().getPath(), 0, st.getLen()).getLocatedBlocks();
      for (LocatedBlock b : blocks) {
        out.add(b.getBlock().getBlockId());
      }
    }
    return out;
  }
}
