package org.wideec.placement.hdfs;

import java.io.IOException;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;
import java.security.PrivilegedExceptionAction;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.server.namenode.NameNode;
import org.apache.hadoop.security.UserGroupInformation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.wideec.archive.StripeManifest;
import org.wideec.archive.hdfs.ArchiveLayout;
import org.wideec.archive.hdfs.ManifestStore;

/**
 * How the NameNode plugin's threads (the trimmer, the repair monitor) read the archive's manifests: through a DFS
 * client in this process as the NameNode's login user (an HDFS superuser). Their bytes live on DataNodes, so the
 * namesystem alone cannot read them, and going through the client keeps permission checks and the format's checks
 * (CRC, structure) exactly as for the archiver. One per thread; the client is opened on first use.
 */
final class ManifestReader implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ManifestReader.class);
  private final NameNode nn;
  private final Configuration conf;
  private final ArchiveLayout layout;
  private DistributedFileSystem fs;

  ManifestReader(NameNode nn, Configuration conf) {
    this.nn = nn;
    this.conf = conf;
    this.layout = ArchiveLayout.from(conf);
  }

  ArchiveLayout layout() {
    return layout;
  }

  /** The manifest files (*.wecm) under the archive directory; none when it does not exist. */
  FileStatus[] manifests() throws IOException {
    DistributedFileSystem dfs = fs();
    Path dir = layout.manifestDir();
    if (!dfs.exists(dir)) {
      return new FileStatus[0];
    }
    return java.util.Arrays.stream(dfs.listStatus(dir)).filter(st -> st.getPath().getName().endsWith(".wecm"))
        .toArray(FileStatus[]::new);
  }

  StripeManifest read(Path manifest) throws IOException {
    return new ManifestStore(fs(), layout).read(manifest);
  }

  /**
   * The manifest a listing entry names, parsed again only when the file changed: a manifest is replaced by rename, so
   * a new version is a new inode (and has its own modification time and length). A pass every few seconds over many manifests would otherwise
   * read every one of them from the DataNodes each time. At most {@link #CACHED} are kept, least recently used out.
   */
  StripeManifest read(FileStatus st) throws IOException {
    String key = st.getPath().toUri().getPath();
    Cached c = cache.get(key);
    long inode = st instanceof org.apache.hadoop.hdfs.protocol.HdfsFileStatus h ? h.getFileId() : -1;
    if (c != null && inode != -1 && c.inode == inode && c.modified == st.getModificationTime() && c.length == st.getLen()) {
      return c.manifest;
    }
    StripeManifest m = read(st.getPath());
    cache.put(key, new Cached(inode, st.getModificationTime(), st.getLen(), m));
    return m;
  }

  static final int CACHED = 10_000;

  private record Cached(long inode, long modified, long length, StripeManifest manifest) {}

  private final Map<String, Cached> cache = new LinkedHashMap<>(16, 0.75f, true) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<String, Cached> eldest) {
      return size() > CACHED;
    }
  };

  /** The client, as the NameNode's login user, whatever thread started the plugin. */
  DistributedFileSystem fs() throws IOException {
    if (fs == null) {
      URI uri = org.apache.hadoop.hdfs.DFSUtilClient.getNNUri(nn.getNameNodeAddress());
      try {
        FileSystem f = UserGroupInformation.getLoginUser().doAs(
            (PrivilegedExceptionAction<FileSystem>) () -> FileSystem.newInstance(uri, conf));
        if (!(f instanceof DistributedFileSystem d)) {
          f.close();
          throw new IOException(uri + " is not served by HDFS's DistributedFileSystem but by " + f.getClass().getName());
        }
        fs = d;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted while connecting to " + uri, e);
      }
    }
    return fs;
  }

  @Override
  public void close() {
    if (fs != null) {
      try {
        fs.close();
      } catch (IOException e) {
        LOG.debug("closing the manifest reader's client", e);
      }
      fs = null;
    }
  }
}
