package org.wideec.client;

import java.io.IOException;
import java.net.URI;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.hadoop.conf.Configuration;
import java.util.EnumSet;
import org.apache.hadoop.fs.CreateFlag;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Options.ChecksumOpt;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.hdfs.protocol.HdfsFileStatus;
import org.apache.hadoop.security.AccessControlException;
import org.apache.hadoop.util.Progressable;
import org.wideec.archive.StripeManifest;
import org.wideec.archive.hdfs.ArchiveLayout;
import org.wideec.archive.hdfs.SealedFiles;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DFSInputStream;
import org.apache.hadoop.hdfs.DFSStripedInputStream;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.WideEcClientAccess;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.protocol.LocatedBlocks;
import org.wideec.code.InvalidCodeSpecException;
import org.wideec.code.LinearCode;
import org.wideec.repair.UnusableHelpers;
import org.wideec.coder.ErasureCoder;
import org.wideec.coder.StripedCodec;

/**
 * HDFS for clients that must read through every loss the code can decode: set
 * {@code fs.hdfs.impl=org.wideec.client.WideEcFileSystem}. HDFS's striped reader assumes MDS and fails on
 * LRC loss patterns it could have read with another choice of parities (DESIGN.md §2); this FileSystem
 * reads such block groups itself. Everything else is DistributedFileSystem unchanged: replicated files,
 * files of other codecs, files being written and encrypted files get the stock stream, and healthy groups
 * of our files are read by the stock striped stream inside ours, with no extra NameNode call.
 *
 * <p>A range with one lost data unit is read pipelined by default (ECPipe §3.2, {@link RepairChains}): DataNodes
 * rebuild the lost rows along a chain and send them to this client once; any failure falls back to direct decode.
 *
 * <p>A replicated file whose block list shows a block with no live replica (an archived file that lost its single
 * replica, DESIGN.md §3.2) is read by {@link ArchivedInputStream}: a DataNode rebuilds each range of that block
 * through the stripe's other members and sends this client that range only.
 */
public class WideEcFileSystem extends DistributedFileSystem {
  private final ReadPathCounters counters = new ReadPathCounters();
  /** Coders shared by every stream of this FileSystem, by code spec (each caches its decode plans). */
  private final ConcurrentHashMap<String, ErasureCoder> coders = new ConcurrentHashMap<>();
  /** Pipelined degraded reads (null: direct decode), read from wide-ec.client.degraded-read. */
  private RepairChains chains;
  /**
   * DataNodes a stream of this FileSystem could not reach, read around by every stream for a while (the same memory
   * and key as repairs' unusable helpers).
   */
  private UnusableHelpers unreachable;
  /** Reads of archived files' lost blocks through a DataNode (null: off), from wide-ec.client.archived-reads. */
  private ArchivedReads archived;
  /** Reader's indexes of sealed files, by placeholder inode. */
  private final ConcurrentHashMap<Long, StripeManifest> sealed = new ConcurrentHashMap<>();

  @Override
  public void initialize(URI uri, Configuration conf) throws IOException {
    // A misspelt mode fails here, naming the key, rather than silently choosing a read path.
    RepairChains.Mode mode = RepairChains.mode(conf);
    long avoidMs = org.wideec.config.ConfigValues.longAtLeast(conf, UnusableHelpers.AVOID_KEY,
        UnusableHelpers.AVOID_DEFAULT_MS, 0);
    boolean archivedReads = ArchivedReads.enabled(conf);
    org.wideec.config.UnknownKeys.warn(conf, "WideEcFileSystem");
    super.initialize(uri, conf);
    chains = mode == RepairChains.Mode.PIPELINED ? new RepairChains(conf) : null;
    unreachable = new UnusableHelpers(avoidMs);
    archived = archivedReads ? new ArchivedReads(conf, getUri()) : null;
  }

  @Override
  public FSDataInputStream open(Path f, int bufferSize) throws IOException {
    FSDataInputStream in;
    try {
      in = super.open(f, bufferSize);
    } catch (RuntimeException | IOException e) {
      // A sealed placeholder fails the stock open (its codec has no coder); only then is its status asked for, so
      // every other open costs nothing extra.
      StripeManifest index = sealedIndex(f);
      if (index == null) {
        throw e;
      }
      return new FSDataInputStream(new SealedInputStream(this, f.toString(), index, counters));
    }
    if (archived != null && !(in.getWrappedStream() instanceof DFSStripedInputStream)
        && in.getWrappedStream() instanceof DFSInputStream plain
        && ArchivedInputStream.wanted(WideEcClientAccess.locatedBlocks(plain))) {
      DFSInputStream failFast = archived.openFailFast(WideEcClientAccess.src(plain), bufferSize);
      plain.close();
      return new FSDataInputStream(new ArchivedInputStream(failFast, getClient(), archived, counters));
    }
    if (!(in.getWrappedStream() instanceof DFSStripedInputStream striped)) {
      return in; // replicated, or wrapped for decryption
    }
    LocatedBlocks blocks = WideEcClientAccess.locatedBlocks(striped);
    ErasureCodingPolicy policy = blocks == null ? null : blocks.getErasureCodingPolicy();
    LinearCode code = policy == null || !CodeAwareInputStream.servable(blocks) ? null : ourCode(policy);
    if (code == null) {
      return in;
    }
    ErasureCoder coder = coders.computeIfAbsent(code.spec(), s -> ErasureCoder.best(code));
    StripedFile file = new StripedFile(getClient(), WideEcClientAccess.src(striped), policy, code, coder, WideEcClientAccess.verifiesChecksums(striped),
        counters, chains, unreachable);
    return new FSDataInputStream(new CodeAwareInputStream(striped, file));
  }

  /** The code of a policy of one of our codecs, or null (other codecs, or a (k, m) the codec cannot build). */
  static LinearCode ourCode(ErasureCodingPolicy policy) {
    if (!StripedCodec.names().contains(policy.getCodecName())) {
      return null;
    }
    try {
      LinearCode code = StripedCodec.byName(policy.getCodecName()).codeFor(policy.getNumDataUnits(), policy.getNumParityUnits());
      return code.isSystematic() ? code : null;
    } catch (InvalidCodeSpecException e) {
      return null;
    }
  }

  /**
   * The reader's index of a sealed file (its original length, stripes and codewords), or null when {@code f} is not
   * sealed. Read with this FileSystem's identity: the NameNode lets whoever may read the file at its path read it.
   */
  StripeManifest sealedIndex(Path f) throws IOException {
    HdfsFileStatus st = getClient().getFileInfo(Path.getPathWithoutSchemeAndAuthority(makeQualified(f)).toString());
    return SealedFiles.isSealed(st) ? sealedIndex(f, st) : null;
  }

  private StripeManifest sealedIndex(Path f, HdfsFileStatus st) throws IOException {
    StripeManifest m = sealed.get(st.getFileId());
    if (m == null) {
      Path index = ArchiveLayout.from(getConf()).sealedIndex(st.getFileId());
      try {
        m = SealedFiles.readIndex(this, index);
      } catch (AccessControlException e) {
        throw SealedFiles.refused(f.toString(), e);
      }
      if (sealed.size() > 1024) {
        sealed.clear();
      }
      sealed.put(st.getFileId(), m); // a placeholder's index never changes: its inode is new with each seal
    }
    return m;
  }

  /** A sealed file reports the length of the bytes it holds (from its index), not its placeholder's zero. */
  @Override
  public FileStatus getFileStatus(Path f) throws IOException {
    return unsealed(super.getFileStatus(f));
  }

  @Override
  public FileStatus[] listStatus(Path p) throws IOException {
    FileStatus[] all = super.listStatus(p);
    for (int i = 0; i < all.length; i++) {
      all[i] = unsealed(all[i]);
    }
    return all;
  }

  private FileStatus unsealed(FileStatus st) throws IOException {
    if (!(st instanceof HdfsFileStatus h) || !SealedFiles.isSealed(h)) {
      return st;
    }
    long length;
    try {
      length = SealedFiles.length(sealedIndex(st.getPath(), h));
    } catch (org.apache.hadoop.security.AccessControlException e) {
      // The caller may list the directory but not read the file: as for any file, that is no reason to fail the
      // listing; its original length is in the index, which follows the file's read access, so it shows as 0.
      return st;
    }
    return new FileStatus(length, false, st.getReplication(), st.getBlockSize(), st.getModificationTime(),
        st.getAccessTime(), st.getPermission(), st.getOwner(), st.getGroup(), null, st.getPath(), st.hasAcl(),
        st.isEncrypted(), st.isErasureCoded());
  }

  /** Sealed files are read-only: overwriting one through this FileSystem is refused (a stock one fails too). */
  @Override
  public FSDataOutputStream create(Path f, FsPermission permission, EnumSet<CreateFlag> cflags, int bufferSize,
      short replication, long blockSize, Progressable progress, ChecksumOpt checksumOpt) throws IOException {
    if (cflags.contains(CreateFlag.OVERWRITE)) {
      refuseSealed(f, "overwritten");
    }
    if (cflags.contains(CreateFlag.APPEND)) {
      refuseArchived(f, "appended to");
    }
    return super.create(f, permission, cflags, bufferSize, replication, blockSize, progress, checksumOpt);
  }

  @Override
  public FSDataOutputStream create(Path f, FsPermission permission, boolean overwrite, int bufferSize,
      short replication, long blockSize, Progressable progress) throws IOException {
    if (overwrite) {
      refuseSealed(f, "overwritten");
    }
    return super.create(f, permission, overwrite, bufferSize, replication, blockSize, progress);
  }

  @Override
  public FSDataOutputStream append(Path f, EnumSet<CreateFlag> flag, int bufferSize, Progressable progress)
      throws IOException {
    refuseSealed(f, "appended to");
    refuseArchived(f, "appended to");
    return super.append(f, flag, bufferSize, progress);
  }

  /** The append with favored nodes (also what {@code appendFile(f).build()} calls): refused like the others. */
  @Override
  public FSDataOutputStream append(Path f, EnumSet<CreateFlag> flag, int bufferSize, Progressable progress,
      java.net.InetSocketAddress[] favoredNodes) throws IOException {
    refuseSealed(f, "appended to");
    refuseArchived(f, "appended to");
    return super.append(f, flag, bufferSize, progress, favoredNodes);
  }

  /** A truncate of a sealed file or of a member of an archived stripe is refused like an append. */
  @Override
  public boolean truncate(Path f, long newLength) throws IOException {
    refuseSealed(f, "truncated");
    refuseArchived(f, "truncated");
    return super.truncate(f, newLength);
  }

  /**
   * Refuses to change the bytes of a member of an archived systematic stripe (the file carries the archive pointer):
   * its stripe's parity encodes the archived bytes, and a stock append or truncate would leave the stripe covering a
   * block that changed (DESIGN.md §2: the protection of the other members must not drop). The pointer is a trusted
   * xattr, which HDFS shows to the superuser only: other users' changes pass as a stock client's, and the NameNode
   * plugin's reprotection covers the stripe as for any member changed behind wide-ec's back.
   */
  private void refuseArchived(Path f, String what) throws IOException {
    java.util.Map<String, byte[]> xattrs;
    try {
      xattrs = getXAttrs(f);
    } catch (java.io.FileNotFoundException | AccessControlException e) {
      return; // the stock call reports it (a writer that may not read the file sees no pointer either)
    }
    byte[] pointer = xattrs.get(org.wideec.archive.hdfs.ArchivalSource.POINTER_XATTR);
    if (pointer == null) {
      return;
    }
    String manifest;
    try {
      manifest = org.wideec.archive.ArchivePointer.parse(pointer, f.toString()).manifestPath();
    } catch (org.wideec.archive.CorruptManifestException e) {
      manifest = "an unreadable pointer";
    }
    String name = Path.getPathWithoutSchemeAndAuthority(makeQualified(f)).toString();
    throw new IOException(name + " is archived (a member of the stripes of manifest " + manifest + ") and cannot be "
        + what + ": its stripe's parity encodes its archived bytes. Run 'wide-ec unarchive' on the archived path"
        + " first, or write the new content to a new file and run 'wide-ec replace " + name + " NEWFILE'");
  }

  private void refuseSealed(Path f, String what) throws IOException {
    HdfsFileStatus st = getClient().getFileInfo(Path.getPathWithoutSchemeAndAuthority(makeQualified(f)).toString());
    if (SealedFiles.isSealed(st)) {
      throw new IOException(f + " is sealed (archived by wide-ec with a non-systematic code) and read-only: it cannot"
          + " be " + what + "; restore it first with 'wide-ec unarchive " + f + "'");
    }
  }

  @Override
  public void close() throws IOException {
    try {
      super.close();
    } finally {
      if (chains != null) {
        chains.close();
      }
      if (archived != null) {
        archived.close();
      }
    }
  }

  /** The scheme of the chains that serve pipelined degraded reads. */
  public static final org.wideec.repair.RepairScheme CHAIN_SCHEME = RepairChains.SCHEME;

  /**
   * The slice a pipelined degraded read of {@code rangeBytes} travels in by default, so that a benchmark can time other
   * paths of the same range in the same slices.
   */
  public static int chainSliceBytes(long rangeBytes, int checksumChunk, int maxSlice) {
    return RepairChains.sliceBytes(rangeBytes, RepairChains.TARGET_SLICES, checksumChunk, maxSlice);
  }

  /** What this FileSystem's reads did (code-aware path versus stock). */
  public ReadPathCounters readPathCounters() {
    return counters;
  }

  /**
   * What the warm-up of the degraded reads' chain path found ({@link DegradedReadWarmup}), waiting up to
   * {@code timeoutMs}; null when it is off, failed or still running, or degraded reads are not pipelined.
   */
  public org.wideec.engine.ChainWarmup.Result degradedReadWarmup(long timeoutMs) throws InterruptedException {
    return chains == null ? null : chains.warmup(timeoutMs);
  }
}
