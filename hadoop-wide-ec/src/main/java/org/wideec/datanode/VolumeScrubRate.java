package org.wideec.datanode;

import java.io.IOException;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.hdfs.server.datanode.fsdataset.FsVolumeSpi;
import org.wideec.engine.ScrubThrottle;
import org.wideec.repair.BlockRef;
import org.wideec.time.ByteRate;

/**
 * The scrub's read rate per volume of this DataNode ({@value #KEY}): a summary's reads wait for their volume's share,
 * so however many scrubs ask at once, each disk gives them at most that rate and the rest to users.
 */
public final class VolumeScrubRate implements ScrubThrottle {
  public static final String KEY = "wide-ec.scrub.bytes-per-second";
  /** 16 MiB/s: a pass over a full 16 TB disk in about 11 days, a small share of a disk's sequential rate. */
  public static final long DEFAULT = 16L << 20;

  private final DataNode dn;
  private final long bytesPerSecond;
  private final ConcurrentHashMap<String, ByteRate> volumes = new ConcurrentHashMap<>();

  VolumeScrubRate(DataNode dn, long bytesPerSecond) {
    this.dn = dn;
    this.bytesPerSecond = bytesPerSecond;
  }

  /** @throws IllegalArgumentException naming the key when it is negative (0: no limit) */
  public static long bytesPerSecond(Configuration conf) {
    long v = conf.getLong(KEY, DEFAULT);
    if (v < 0) {
      throw new IllegalArgumentException(KEY + " must be >= 0 (0: no limit), got " + v);
    }
    return v;
  }

  @Override
  public void acquire(BlockRef unit, int bytes) throws IOException, InterruptedException {
    if (bytesPerSecond <= 0) {
      return;
    }
    FsVolumeSpi v = dn.getFSDataset().getVolume(new ExtendedBlock(unit.pool(), unit.blockId(), unit.numBytes(),
        unit.genStamp()));
    String volume = v == null ? "unknown" : v.getStorageID(); // a replica gone since is refused by the read itself
    volumes.computeIfAbsent(volume, x -> new ByteRate(bytesPerSecond)).acquire(bytes);
  }
}
