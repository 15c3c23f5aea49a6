package org.wideec.archive.hdfs;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.HdfsFileStatus;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.ipc.CallerContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.StripeMember;
import org.wideec.code.UnitRole;

/**
 * The systematic layout's block moves (DESIGN.md §3.2 "Keeping the planned replica"): where the NameNode lists each
 * data block now, which are not on their planned node, and copying a replica there the Balancer's way ({@link
 * BlockMover}: replaceBlock with the source as delete hint), so the NameNode itself drops the source's copy and
 * nothing is deleted by us. Used before a chain encodes (it reads the kept replicas) and by the trim.
 */
final class PlanMoves {
  private static final Logger LOG = LoggerFactory.getLogger(PlanMoves.class);

  private final DistributedFileSystem dfs;
  private final BlockMover mover;

  PlanMoves(DistributedFileSystem dfs, BlockMover mover) {
    this.dfs = dfs;
    this.mover = mover;
  }

  /** Data members of the stripes whose planned node holds no replica the NameNode lists now. */
  List<StripeMember> notOnPlannedNode(List<ArchivedStripe> stripes) throws IOException {
    List<StripeMember> all = new ArrayList<>();
    stripes.forEach(s -> all.addAll(dataMembers(s)));
    Map<Long, List<String>> now = locations(all);
    List<StripeMember> out = new ArrayList<>();
    for (StripeMember m : all) {
      List<String> at = now.get(m.blockId());
      if (at != null && !at.contains(m.plannedNode())) {
        out.add(m);
      }
    }
    return out;
  }

  /**
   * Copies a replica of each member's block onto its planned node with {@link BlockMover} (replaceBlock with the
   * source as delete hint), trying each eligible source in turn (one may be pinned or fail). The manifest records
   * no source, so the mover picks a holder whose replica HDFS will accept as the excess one. Returns, per block
   * that could not be moved, why; the trim then reports it off plan and the NameNode deletes none of its replicas.
   *
   * <p>Up to {@link BlockMover#PARALLEL_KEY} blocks move at once: a move is one copy and then seconds of waiting for the
   * NameNode to list the new replica and drop the hinted one, so one at a time leaves every link idle. Each block's
   * own attempts stay in order.
   */
  Map<Long, String> moveOntoPlan(List<StripeMember> members, Map<Long, String> paths,
      List<String> moved) throws IOException {
    return moveOntoPlan(members, paths, moved, BlockMover.Until.SETTLED);
  }

  /** {@link #moveOntoPlan(List, Map, List)}, each move waiting only as far as {@code until}. */
  Map<Long, String> moveOntoPlan(List<StripeMember> members, Map<Long, String> paths,
      List<String> moved, BlockMover.Until until) throws IOException {
    Map<Long, String> failed = new java.util.concurrent.ConcurrentHashMap<>();
    if (members.isEmpty()) {
      return failed;
    }
    Map<String, DatanodeInfo> live = mover.liveNodes();
    int threads = Math.max(1, Math.min(members.size(), dfs.getConf().getInt(BlockMover.PARALLEL_KEY, BlockMover.PARALLEL_DEFAULT)));
    java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(threads, r -> {
      Thread t = new Thread(r, "wide-ec archive mover");
      t.setDaemon(true);
      return t;
    });
    CallerContext context = CallerContext.getCurrent();
    List<java.util.concurrent.Future<?>> work = new ArrayList<>();
    try {
      for (StripeMember m : members) {
        work.add(pool.submit(() -> {
          CallerContext.setCurrent(context);
          moveOne(m, paths, live, moved, failed, until);
          return null;
        }));
      }
      for (java.util.concurrent.Future<?> f : work) {
        try {
          f.get();
        } catch (java.util.concurrent.ExecutionException e) {
          Throwable cause = e.getCause();
          throw cause instanceof IOException io ? io : new IOException("moving archived blocks onto plan failed", cause);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new java.io.InterruptedIOException("interrupted while moving archived blocks onto plan");
    } finally {
      // A failure ends the batch; moves already under way finish (or fail) before the trim goes on or its lock is
      // released, so none lands unaccounted for.
      pool.shutdownNow();
      try {
        if (!pool.awaitTermination(dfs.getConf().getLong(BlockMover.WAIT_KEY, BlockMover.WAIT_DEFAULT) + 60_000,
            java.util.concurrent.TimeUnit.MILLISECONDS)) {
          LOG.warn("moves onto plan still running after the batch ended");
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    return failed;
  }

  /** Moves one member's block onto its planned node, recording the move or why it could not be made. */
  private void moveOne(StripeMember m, Map<Long, String> paths, Map<String, DatanodeInfo> live,
      List<String> moved, Map<Long, String> failed, BlockMover.Until until) throws IOException {
    String file = ArchiveLayout.inodePath(m.inodeId()).toString();
    String name = paths.getOrDefault(m.inodeId(), "inode " + m.inodeId());
    LocatedBlock lb = locatedBlock(file, m.blockId());
    if (lb == null) {
      failed.put(m.blockId(), "the block is gone from " + name);
      return;
    }
    DatanodeInfo target = live.get(m.plannedNode());
    if (target == null) {
      failed.put(m.blockId(), "its planned node " + m.plannedNode() + " is not a live DataNode, so no replica"
          + " was moved there");
      return;
    }
    List<BlockMover.Move> ways = BlockMover.candidates(name, lb, target, null);
    if (ways.isEmpty()) {
      if (!Arrays.stream(lb.getLocations()).anyMatch(d -> d.getXferAddr().equals(m.plannedNode()))) {
        failed.put(m.blockId(), "no replica of it can be moved to " + m.plannedNode() + " (holders "
            + holders(lb) + ")");
      }
      return;
    }
    List<String> errors = new ArrayList<>();
    for (BlockMover.Move way : ways) {
      try {
        mover.move(way, until);
        synchronized (moved) {
          moved.add(way.describe());
        }
        return;
      } catch (IOException e) {
        LOG.warn("{}", e.getMessage());
        errors.add(e.getMessage());
      }
    }
    failed.put(m.blockId(), String.join("; ", errors));
  }

  LocatedBlock locatedBlock(String file, long blockId) throws IOException {
    HdfsFileStatus st = dfs.getClient().getFileInfo(file);
    if (st == null) {
      return null;
    }
    for (LocatedBlock lb : dfs.getClient().getLocatedBlocks(file, 0, st.getLen()).getLocatedBlocks()) {
      if (lb.getBlock().getBlockId() == blockId) {
        return lb;
      }
    }
    return null;
  }

  private static String holders(LocatedBlock lb) {
    List<String> at = new ArrayList<>();
    for (DatanodeInfo d : lb.getLocations()) {
      at.add(d.getXferAddr());
    }
    return at.isEmpty() ? "none" : String.join(", ", at);
  }

  /** Block id → transfer addresses of the DataNodes the NameNode lists for it, for the files of these members. */
  Map<Long, List<String>> locations(java.util.Collection<StripeMember> members) throws IOException {
    Map<Long, List<String>> out = new HashMap<>();
    Set<Long> inodes = new LinkedHashSet<>();
    members.forEach(m -> inodes.add(m.inodeId()));
    for (long inode : inodes) {
      String file = ArchiveLayout.inodePath(inode).toString();
      HdfsFileStatus st = dfs.getClient().getFileInfo(file);
      if (st == null) {
        continue;
      }
      for (LocatedBlock lb : dfs.getClient().getLocatedBlocks(file, 0, st.getLen()).getLocatedBlocks()) {
        List<String> at = new ArrayList<>();
        for (DatanodeInfo d : lb.getLocations()) {
          at.add(d.getXferAddr());
        }
        out.put(lb.getBlock().getBlockId(), at);
      }
    }
    return out;
  }

  /** Inode id → current path of each file under the archived path (names in reports; renames are followed). */
  Map<Long, String> currentPaths(Path path) throws IOException {
    Map<Long, String> out = new HashMap<>();
    java.util.ArrayDeque<Path> todo = new java.util.ArrayDeque<>(List.of(path));
    while (!todo.isEmpty()) {
      for (FileStatus st : dfs.listStatus(todo.pop())) {
        if (st.isDirectory()) {
          todo.push(st.getPath());
        } else if (st instanceof HdfsFileStatus h) {
          out.put(h.getFileId(), Path.getPathWithoutSchemeAndAuthority(st.getPath()).toString());
        }
      }
    }
    return out;
  }

  static List<StripeMember> dataMembers(ArchivedStripe s) {
    return s.members().stream().filter(m -> m.role() == UnitRole.DATA && !m.padding()).toList();
  }

  static Set<Long> dataInodes(ArchivedStripe s) {
    Set<Long> out = new LinkedHashSet<>();
    dataMembers(s).forEach(m -> out.add(m.inodeId()));
    return out;
  }
}
