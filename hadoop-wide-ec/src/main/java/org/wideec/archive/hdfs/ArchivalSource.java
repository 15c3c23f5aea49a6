package org.wideec.archive.hdfs;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.HdfsConstants;
import org.apache.hadoop.hdfs.protocol.HdfsFileStatus;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedBlocks;
import org.wideec.archive.ArchivalRequest;
import org.wideec.archive.ArchiveScope;
import org.wideec.archive.PlacementKind;
import org.wideec.archive.SourceFile;
import org.wideec.archive.ArchiveGrouping;
import org.wideec.topology.Site;
import org.wideec.topology.Topology;
import org.wideec.topology.hdfs.DataNodeSites;

/**
 * Reads what the archival planner needs from HDFS: the files under a path with their inode ids, blocks, generation
 * stamps and replica locations (DataNodes named by transfer address, as everywhere in wide-ec), and the live
 * DataNodes by rack. It only reads; it refuses, naming the file, what the archival layout cannot hold: erasure-coded
 * files (already striped), files still being written, and files already archived.
 */
public final class ArchivalSource {
  /** The xattr each archived file carries, pointing to its manifest (superuser-only namespace: users cannot forge it). */
  public static final String POINTER_XATTR = "trusted.wideec.archive";

  private final DistributedFileSystem dfs;
  private final ArchiveGrouping grouping;

  /** Grouped as {@code wide-ec.archive.grouping} in the file system's configuration says. */
  public ArchivalSource(DistributedFileSystem dfs) {
    this(dfs, null);
  }

  /** Grouped by {@code grouping}; null: as the configuration says. */
  public ArchivalSource(DistributedFileSystem dfs, ArchiveGrouping grouping) {
    this.dfs = dfs;
    this.grouping = grouping;
  }

  /**
   * How the blocks form stripes: as given, else {@code wide-ec.archive.grouping} (files, racks or auto; default
   * auto).
   *
   * @throws IOException naming the key and its value when it is none of those
   */
  public ArchiveGrouping grouping() throws IOException {
    if (grouping != null) {
      return grouping;
    }
    String v = dfs.getConf().getTrimmed(ArchiveGrouping.KEY, ArchiveGrouping.DEFAULT);
    try {
      return ArchiveGrouping.byLabel(v);
    } catch (org.wideec.archive.ArchivalPlanException e) {
      throw new IOException(e.getMessage(), e);
    }
  }

  /** The request for archiving {@code path}: a file alone (file-level stripes) or every file under a directory. */
  public ArchivalRequest request(Path path, String codeSpec, PlacementKind placement) throws IOException {
    FileStatus root = dfs.getFileStatus(path);
    String name = Path.getPathWithoutSchemeAndAuthority(root.getPath()).toString();
    refuseSystemPaths(name);
    ArchiveScope scope = root.isFile() ? ArchiveScope.FILE : ArchiveScope.DIRECTORY;
    List<SourceFile> files = new ArrayList<>();
    if (root.isFile()) {
      files.add(file(name));
    } else {
      collect(root.getPath(), files);
      // Path order: the stripes of a directory do not depend on listing order.
      files.sort(Comparator.comparing(SourceFile::path));
    }
    files.removeIf(f -> f.blocks().isEmpty());
    if (files.isEmpty()) {
      throw new IOException(name + " holds no data blocks to archive");
    }
    return new ArchivalRequest(name, scope, files, codeSpec, placement, liveTopology(), 0, grouping());
  }

  /**
   * Manifests and parity live under the archival system directory: archiving them (or an ancestor of them, such as
   * /) would lower replicated manifests and other archives' parity to one replica, so those paths are refused.
   */
  private void refuseSystemPaths(String name) throws IOException {
    String system = Path.getPathWithoutSchemeAndAuthority(ArchiveLayout.from(dfs.getConf()).manifestDir().getParent())
        .toString();
    for (String sys : List.of(system, "/.reserved")) {
      if (name.equals(sys) || name.startsWith(sys + "/") || sys.startsWith(name.endsWith("/") ? name : name + "/")) {
        throw new IOException(name + " is or holds the system directory " + sys + "; archive the directories beside it"
            + " instead");
      }
    }
  }

  private void collect(Path dir, List<SourceFile> into) throws IOException {
    for (FileStatus st : dfs.listStatus(dir)) {
      String p = Path.getPathWithoutSchemeAndAuthority(st.getPath()).toString();
      if (st.isDirectory()) {
        collect(st.getPath(), into);
      } else if (st.isFile()) {
        into.add(file(p));
      }
    }
  }

  /** One file's blocks and replicas, refused when the archival layout cannot take it. */
  SourceFile file(String path) throws IOException {
    HdfsFileStatus st = dfs.getClient().getFileInfo(path);
    if (st == null) {
      throw new IOException(path + " disappeared while it was being listed");
    }
    if (st.isErasureCoded()) {
      throw new IOException(path + " is erasure-coded (policy " + st.getErasureCodingPolicy().getName()
          + "); only replicated files can be archived");
    }
    if (dfs.getClient().getXAttrs(path).containsKey(POINTER_XATTR)) {
      throw new IOException(path + " is already archived (it carries " + POINTER_XATTR + ")");
    }
    LocatedBlocks lbs = dfs.getClient().getLocatedBlocks(path, 0, st.getLen());
    if (lbs.isUnderConstruction()) {
      throw new IOException(path + " is still open for writing; archive it once it is closed");
    }
    List<SourceFile.Block> blocks = new ArrayList<>();
    for (LocatedBlock lb : lbs.getLocatedBlocks()) {
      List<Site> replicas = new ArrayList<>();
      for (DatanodeInfo d : lb.getLocations()) {
        replicas.add(DataNodeSites.of(d));
      }
      blocks.add(new SourceFile.Block(lb.getBlock().getBlockId(), lb.getBlock().getGenerationStamp(),
          lb.getBlock().getNumBytes(), replicas));
    }
    return new SourceFile(path, st.getFileId(), st.getLen(), st.getBlockSize(), blocks);
  }

  /** Live DataNodes by rack, named by transfer address. */
  public Topology liveTopology() throws IOException {
    Map<String, List<String>> byRack = new TreeMap<>();
    for (DatanodeInfo d : dfs.getDataNodeStats(HdfsConstants.DatanodeReportType.LIVE)) {
      byRack.computeIfAbsent(d.getNetworkLocation(), r -> new ArrayList<>()).add(d.getXferAddr());
    }
    byRack.values().forEach(nodes -> nodes.sort(null));
    return Topology.of(byRack);
  }
}
