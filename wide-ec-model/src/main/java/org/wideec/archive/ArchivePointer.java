package org.wideec.archive;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.zip.CRC32C;
import org.wideec.archive.CorruptManifestException.Reason;

/**
 * The xattr on an archived file that points to its manifest: the manifest's path and the ids of the stripes
 * holding the file's blocks. Xattrs live in NameNode heap and default to 16 KiB and 32 per inode (DESIGN.md
 * §3.2), so the value is kept small: version byte, path, stripe ids as ascending deltas in base-128 varints,
 * CRC32C. A file in a few stripes under a typical path takes well under 100 bytes; the manifest, not the
 * pointer, is the authority.
 *
 * <pre>version u8 (1) | path length varint | path UTF-8 | stripe count varint | first id varint |
 * (id - previous id) varint ... | CRC32C u32 of everything before</pre>
 */
public record ArchivePointer(String manifestPath, long[] stripeIds) {
  public static final int VERSION = 1;
  /** HDFS's default {@code dfs.namenode.fs-limits.max-xattr-size}: a pointer never comes near it. */
  public static final int MAX_BYTES = 16 * 1024;

  public ArchivePointer {
    if (manifestPath == null || !manifestPath.startsWith("/")) {
      throw new IllegalArgumentException("an archive pointer names the manifest's absolute path, got '"
          + manifestPath + "'");
    }
    stripeIds = stripeIds.clone();
    if (stripeIds.length == 0) {
      throw new IllegalArgumentException("pointer to " + manifestPath + " lists no stripe");
    }
    for (int i = 0; i < stripeIds.length; i++) {
      if (stripeIds[i] < 0 || (i > 0 && stripeIds[i] <= stripeIds[i - 1])) {
        throw new IllegalArgumentException("pointer to " + manifestPath + ": stripe ids must be distinct, ascending and"
            + " not negative, got " + Arrays.toString(stripeIds));
      }
    }
  }

  @Override
  public long[] stripeIds() {
    return stripeIds.clone();
  }

  public byte[] toBytes() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(VERSION);
    byte[] path = manifestPath.getBytes(StandardCharsets.UTF_8);
    varint(out, path.length);
    out.write(path, 0, path.length);
    varint(out, stripeIds.length);
    for (int i = 0; i < stripeIds.length; i++) {
      varint(out, i == 0 ? stripeIds[0] : stripeIds[i] - stripeIds[i - 1]);
    }
    CRC32C crc = new CRC32C();
    crc.update(out.toByteArray());
    int c = (int) crc.getValue();
    out.write(c >>> 24);
    out.write(c >>> 16);
    out.write(c >>> 8);
    out.write(c);
    byte[] bytes = out.toByteArray();
    if (bytes.length > MAX_BYTES) {
      throw new IllegalArgumentException("pointer to " + manifestPath + " with " + stripeIds.length + " stripes takes "
          + bytes.length + " bytes, more than an xattr may (" + MAX_BYTES + ")");
    }
    return bytes;
  }

  /** Parses an xattr value; {@code source} (the archived file) goes into every error. */
  public static ArchivePointer parse(byte[] bytes, String source) throws CorruptManifestException {
    String what = source + ": archive pointer xattr";
    if (bytes.length < 1 + 4) {
      throw new CorruptManifestException(Reason.TRUNCATED, what + " of " + bytes.length + " bytes is cut short");
    }
    CRC32C crc = new CRC32C();
    crc.update(bytes, 0, bytes.length - 4);
    int stored = ByteBuffer.wrap(bytes, bytes.length - 4, 4).getInt();
    if (stored != (int) crc.getValue()) {
      throw new CorruptManifestException(Reason.CHECKSUM, what + " fails its CRC32C (corrupt or cut short)");
    }
    if (bytes[0] != VERSION) {
      throw new CorruptManifestException(Reason.VERSION, what + " has version " + (bytes[0] & 0xff)
          + "; this build reads version " + VERSION);
    }
    ByteBuffer in = ByteBuffer.wrap(bytes, 1, bytes.length - 5);
    try {
      long pathLength = varint(in, what);
      if (pathLength > in.remaining()) {
        throw new CorruptManifestException(Reason.MALFORMED, what + ": path of " + pathLength + " bytes, "
            + in.remaining() + " left");
      }
      byte[] path = new byte[(int) pathLength];
      in.get(path);
      String manifest = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(path)).toString();
      long count = varint(in, what);
      if (count > in.remaining()) {
        throw new CorruptManifestException(Reason.MALFORMED, what + ": " + count + " stripe ids cannot fit in "
            + in.remaining() + " bytes");
      }
      long[] ids = new long[(int) count];
      for (int i = 0; i < ids.length; i++) {
        long v = varint(in, what);
        ids[i] = i == 0 ? v : Math.addExact(ids[i - 1], v);
      }
      if (in.hasRemaining()) {
        throw new CorruptManifestException(Reason.MALFORMED, what + ": " + in.remaining() + " bytes after the ids");
      }
      return new ArchivePointer(manifest, ids);
    } catch (CharacterCodingException e) {
      throw new CorruptManifestException(Reason.MALFORMED, what + ": the manifest path is not valid UTF-8", e);
    } catch (IllegalArgumentException | ArithmeticException e) {
      throw new CorruptManifestException(Reason.INCONSISTENT, what + ": " + e.getMessage(), e);
    }
  }

  private static void varint(ByteArrayOutputStream out, long v) {
    while ((v & ~0x7FL) != 0) {
      out.write((int) ((v & 0x7F) | 0x80));
      v >>>= 7;
    }
    out.write((int) v);
  }

  /** A base-128 varint of at most 9 bytes (63 bits: ids are not negative), in its shortest form only. */
  private static long varint(ByteBuffer in, String what) throws CorruptManifestException {
    long v = 0;
    for (int shift = 0; shift < 63; shift += 7) {
      if (!in.hasRemaining()) {
        throw new CorruptManifestException(Reason.MALFORMED, what + ": a number is cut short");
      }
      int b = in.get() & 0xff;
      v |= (long) (b & 0x7F) << shift;
      if ((b & 0x80) == 0) {
        if (b == 0 && shift > 0) {
          throw new CorruptManifestException(Reason.MALFORMED, what + ": a number is not in its shortest form");
        }
        return v;
      }
    }
    throw new CorruptManifestException(Reason.MALFORMED, what + ": a number is longer than 63 bits");
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ArchivePointer p && p.manifestPath.equals(manifestPath) && Arrays.equals(p.stripeIds, stripeIds);
  }

  @Override
  public int hashCode() {
    return manifestPath.hashCode() * 31 + Arrays.hashCode(stripeIds);
  }

  @Override
  public String toString() {
    return manifestPath + " " + Arrays.toString(stripeIds);
  }
}
