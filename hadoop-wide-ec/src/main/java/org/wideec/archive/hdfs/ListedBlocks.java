package org.wideec.archive.hdfs;

import java.io.FileNotFoundException;
import java.io.IOException;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.HdfsLocatedFileStatus;
import org.apache.hadoop.hdfs.protocol.LocatedBlocks;

/**
 * A file's blocks and their locations as the NameNode lists them, asked so that it answers in safe mode too: HDFS's
 * getBlockLocations refuses a file with a block listed nowhere while the NameNode is in safe mode ("Zero
 * blocklocations"), which is exactly the file fsck must describe when archived blocks are missing; the file-info
 * call with locations lists the same blocks and refuses nothing.
 */
public final class ListedBlocks {
  private ListedBlocks() {}

  /** The file or directory at {@code path} with the blocks of a file; null when nothing is there. */
  public static HdfsLocatedFileStatus status(DistributedFileSystem dfs, String path) throws IOException {
    try {
      return dfs.getClient().getLocatedFileInfo(path, false);
    } catch (FileNotFoundException e) {
      return null;
    }
  }

  /** Every block of the file at {@code path}; null when no file is there (gone, or a directory). */
  public static LocatedBlocks of(DistributedFileSystem dfs, String path) throws IOException {
    HdfsLocatedFileStatus st = status(dfs, path);
    return st == null || st.isDirectory() ? null : st.getLocatedBlocks();
  }
}
