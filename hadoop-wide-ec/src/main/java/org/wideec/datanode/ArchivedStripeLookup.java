package org.wideec.datanode;

import java.io.Closeable;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedBlocks;
import org.apache.hadoop.security.AccessControlException;
import org.apache.hadoop.security.UserGroupInformation;
import org.wideec.archive.ArchivePointer;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.StripeManifest;
import org.wideec.archive.StripeMember;
import org.wideec.archive.hdfs.ArchiveLayout;
import org.wideec.archive.hdfs.ManifestStore;
import org.wideec.code.UnitRole;
import org.wideec.archive.ArchivedReadRepair;

/**
 * Finds, for a DataNode serving a degraded read, the stripe of an archived file's block and where its members are
 * now: the file's pointer, its manifest (the authority on membership: it lives in the owner-only system directory,
 * so nothing a client sends can add a member) and every member's block as the NameNode lists it. It reads as the
 * DataNode's own HDFS user, which must be able to read the system directory and the pointer xattr (trusted
 * namespace): an HDFS superuser, as DataNodes normally run as the NameNode's user. Answers are kept for
 * {@link #TTL_MS} (a sequential read asks for many ranges of one block). A lookup costs the NameNode a listing of
 * every member file's blocks, so a failed one is remembered too, for {@link #FAILURE_TTL_MS}: requests for a block
 * that is in no stripe (or whose manifest is gone) fail with the remembered reason and ask the NameNode nothing;
 * a read that failed through an answer drops it only once it is {@link #FAILURE_TTL_MS} old, so failing reads
 * re-ask at most that often.
 */
final class ArchivedStripeLookup implements Closeable {
  static final long TTL_MS = 30_000;
  /** Stripes remembered at most (each up to 255 members with their locations). */
  static final int MAX_ENTRIES = 1024;
  /** How long a failed lookup is remembered, and the youngest answer a failed read may drop. */
  static final long FAILURE_TTL_MS = 10_000;

  /** A block's stripe and its members as HDFS lists them now (by unit), with the DataNodes holding them. */
  record Found(ArchivedStripe stripe, Map<Integer, ArchivedReadRepair.Current> current, Map<String, DatanodeInfo> nodes,
      String pool, long expires) {}

  /** A lookup that failed, and until when it is answered from memory. */
  private record Failed(String reason, long expires) {}

  private final Configuration conf;
  private final Map<Key, Found> cache = new ConcurrentHashMap<>();
  private final Map<Key, Failed> failed = new ConcurrentHashMap<>();
  private final java.util.concurrent.atomic.AtomicLong lookups = new java.util.concurrent.atomic.AtomicLong();

  private record Key(long inode, long block) {}
  private DistributedFileSystem fs;

  ArchivedStripeLookup(Configuration conf) {
    this.conf = new Configuration(conf);
  }

  /** The stripe holding block {@code blockId} of the file with inode {@code fileInode}. */
  Found find(long fileInode, long blockId) throws IOException {
    Key key = new Key(fileInode, blockId);
    long now = System.currentTimeMillis();
    Found hit = cache.get(key);
    if (hit != null && hit.expires() > now) {
      return hit;
    }
    Failed miss = failed.get(key);
    if (miss != null && miss.expires() > now) {
      throw new IOException(miss.reason() + " (looked up less than " + FAILURE_TTL_MS / 1000 + " s ago)");
    }
    Found f;
    try {
      lookups.incrementAndGet();
      f = lookUp(fileInode, blockId);
    } catch (IOException e) {
      bounded(failed, Failed::expires).put(key, new Failed(e.getMessage(), System.currentTimeMillis() + FAILURE_TTL_MS));
      throw e;
    }
    failed.remove(key);
    bounded(cache, Found::expires).put(key, f);
    return f;
  }

  /**
   * Room for one more entry: entries are only useful until they expire, so the expired ones go, and everything if
   * that is not enough; a DataNode serving reads for weeks after a loss keeps no more than {@link #MAX_ENTRIES}.
   */
  private static <V> Map<Key, V> bounded(Map<Key, V> m, java.util.function.ToLongFunction<V> expires) {
    if (m.size() >= MAX_ENTRIES) {
      long now = System.currentTimeMillis();
      m.values().removeIf(e -> expires.applyAsLong(e) <= now);
      if (m.size() >= MAX_ENTRIES) {
        m.clear();
      }
    }
    return m;
  }

  /**
   * A read through what was found for a block failed (members may have moved): the answer is dropped, unless it is
   * younger than {@link #FAILURE_TTL_MS}, so that reads failing one after another re-ask the NameNode at most that often.
   */
  void forget(long fileInode, long blockId) {
    cache.computeIfPresent(new Key(fileInode, blockId),
        (k, f) -> f.expires() - TTL_MS + FAILURE_TTL_MS <= System.currentTimeMillis() ? null : f);
  }

  /** Lookups that went to the NameNode since start (each lists every member file's blocks). */
  long lookups() {
    return lookups.get();
  }

  private Found lookUp(long fileInode, long blockId) throws IOException {
    DistributedFileSystem dfs = fs();
    ManifestStore store = new ManifestStore(dfs, ArchiveLayout.from(conf));
    Path file = ArchiveLayout.inodePath(fileInode);
    ArchivePointer pointer;
    StripeManifest manifest;
    try {
      pointer = store.pointer(file);
      if (pointer == null) {
        throw new IOException("inode " + fileInode + " is not archived (no archive pointer)");
      }
      manifest = store.read(new Path(pointer.manifestPath()));
    } catch (FileNotFoundException e) {
      throw new IOException("inode " + fileInode + " or its manifest no longer exists: " + e.getMessage(), e);
    } catch (AccessControlException e) {
      throw new IOException("this DataNode's HDFS user " + UserGroupInformation.getCurrentUser().getShortUserName()
          + " may not read the archive's manifest or pointer; degraded reads of archived files need DataNodes that run"
          + " as an HDFS superuser (dfs.permissions.superusergroup): " + e.getMessage(), e);
    }
    ArchivedStripe stripe = null;
    for (long id : pointer.stripeIds()) {
      ArchivedStripe s = manifest.stripe(id);
      if (s != null && s.members().stream().anyMatch(m -> m.role() == UnitRole.DATA && !m.padding()
          && m.blockId() == blockId && m.inodeId() == fileInode)) {
        stripe = s;
      }
    }
    if (stripe == null) {
      throw new IOException("block " + blockId + " of inode " + fileInode + " is in no stripe of "
          + pointer.manifestPath());
    }
    Map<Long, List<LocatedBlock>> byInode = new HashMap<>();
    Map<Integer, ArchivedReadRepair.Current> current = new HashMap<>();
    Map<String, DatanodeInfo> nodes = new HashMap<>();
    String pool = null;
    for (int u = 0; u < stripe.members().size(); u++) {
      StripeMember m = stripe.member(u);
      if (m.padding()) {
        continue;
      }
      List<LocatedBlock> blocks = byInode.get(m.inodeId());
      if (blocks == null) {
        blocks = blocksOf(dfs, m.inodeId());
        byInode.put(m.inodeId(), blocks);
      }
      for (LocatedBlock lb : blocks) {
        if (lb.getBlock().getBlockId() != m.blockId()) {
          continue;
        }
        DatanodeInfo at = live(lb);
        if (at != null) {
          nodes.put(at.getXferAddr(), at);
        }
        pool = lb.getBlock().getBlockPoolId();
        current.put(u, new ArchivedReadRepair.Current(m.blockId(), lb.getBlock().getGenerationStamp(),
            lb.getBlock().getNumBytes(), at == null ? null : at.getXferAddr(), at == null ? null : at.getNetworkLocation()));
      }
    }
    return new Found(stripe, current, nodes, pool, System.currentTimeMillis() + TTL_MS);
  }

  /** Every block of a file by inode, or none when the file is gone. */
  private static List<LocatedBlock> blocksOf(DistributedFileSystem dfs, long inode) throws IOException {
    try {
      LocatedBlocks lbs = dfs.getClient().getLocatedBlocks(ArchiveLayout.inodePath(inode).toString(), 0, Long.MAX_VALUE);
      return lbs == null ? List.of() : lbs.getLocatedBlocks();
    } catch (FileNotFoundException e) {
      return List.of();
    }
  }

  /** A replica the NameNode lists as usable (not corrupt, not decommissioned), nearest first as it sorted them. */
  private static DatanodeInfo live(LocatedBlock lb) {
    if (lb.isCorrupt()) {
      return null;
    }
    for (DatanodeInfo d : lb.getLocations()) {
      if (!d.isDecommissioned()) {
        return d;
      }
    }
    return null;
  }

  private synchronized DistributedFileSystem fs() throws IOException {
    if (fs == null) {
      // Our own instance, never the cached one (and never WideEcFileSystem, should fs.hdfs.impl name it here).
      DistributedFileSystem d = new DistributedFileSystem();
      d.initialize(FileSystem.getDefaultUri(conf), conf);
      fs = d;
    }
    return fs;
  }

  @Override
  public synchronized void close() throws IOException {
    cache.clear();
    failed.clear();
    if (fs != null) {
      fs.close();
      fs = null;
    }
  }
}
