package org.wideec.placement.hdfs;

import java.io.IOException;
import java.net.URI;
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
