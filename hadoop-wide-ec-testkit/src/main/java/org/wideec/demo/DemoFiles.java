package org.wideec.demo;

import java.io.IOException;
import java.util.Arrays;
import java.util.Map;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.io.IOUtils;

/** The demo's files: random bytes written at replication 3, read back and compared byte for byte. */
final class DemoFiles {
  private DemoFiles() {}

  /** The code-aware client: {@code fs.hdfs.impl} set to WideEcFileSystem, as an operator sets it in core-site.xml. */
  static FileSystem wideEcReader(MiniDFSCluster cluster) throws IOException {
    Configuration c = new Configuration(cluster.getConfiguration(0));
    c.set("fs.hdfs.impl", "org.wideec.client.WideEcFileSystem");
    c.setBoolean("fs.hdfs.impl.disable.cache", true);
    return FileSystem.get(cluster.getFileSystem().getUri(), c);
  }

  static byte[] write(DistributedFileSystem fs, Path p, long size, Random rnd) throws IOException {
    byte[] bytes = new byte[(int) size];
    rnd.nextBytes(bytes);
    try (FSDataOutputStream o = fs.create(p, (short) 3)) {
      o.write(bytes);
    }
    return bytes;
  }

  /** Reads every file back and compares it with what was written; returns the bytes read. */
  static long readAll(DemoConsole console, FileSystem fs, Map<Path, byte[]> written, String how) throws IOException {
    long t = System.nanoTime();
    long bytes = 0;
    for (Map.Entry<Path, byte[]> e : written.entrySet()) {
      byte[] back = new byte[e.getValue().length];
      try (FSDataInputStream in = fs.open(e.getKey())) {
        IOUtils.readFully(in, back, 0, back.length);
      }
      if (!Arrays.equals(back, e.getValue())) {
        throw new IOException(e.getKey() + " read back through " + how + " differs from what was written");
      }
      bytes += back.length;
    }
    console.step(String.format("read back through %s: %d files, %,d bytes, every byte equal (%.1f MiB/s)", how,
        written.size(), bytes, bytes / 1048576.0 / ((System.nanoTime() - t) / 1e9)));
    return bytes;
  }


  static void require(boolean ok, String problem) throws IOException {
    if (!ok) {
      throw new IOException(problem);
    }
  }

  static String human(long bytes) {
    return bytes < 1024 * 1024 ? String.format("%.0f KiB", bytes / 1024.0) : String.format("%.1f MiB", bytes / 1048576.0);
  }
}
