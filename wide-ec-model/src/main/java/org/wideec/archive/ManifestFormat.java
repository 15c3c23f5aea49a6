package org.wideec.archive;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;
import org.wideec.archive.CorruptManifestException.Reason;
import org.wideec.code.UnitRole;

/**
 * Manifest format 1, the bytes of a {@link StripeManifest}. The bytes are a format (DESIGN.md §2): a field never
 * changes meaning; a change of layout is a new version, and the golden test pins version 1 byte for byte.
 *
 * <p>Binary rather than JSON: a manifest has exactly one encoding (no whitespace, key order, escaping or number
 * forms to canonicalise), 64-bit block ids and generation stamps stay exact (JSON readers commonly round integers
 * above 2^53), and every field has a fixed width or an explicit length that the reader checks against what is left.
 * The trailer is a CRC32C rather than SHA-256: what threatens a manifest is accidental (a torn write, a
 * buggy writer, bit rot missed below), which a CRC catches (every burst up to 32 bits, the rest but for 2^-32);
 * anyone able to write {@code /.wideec} could recompute any unkeyed digest, so a hash would add cost and no
 * protection there (HDFS permissions guard it). CRC32C is also what HDFS uses for block data.
 *
 * <pre>
 * header   magic "WECM" (4) | format version u16 | body length u32
 * body     archived path str | scope u8 (1 file, 2 directory) | stripe count u32 | stripes
 * stripe   stripe id u64 | code spec str (canonical) | code format u16 | state u8 (StripeState codes) |
 *          parity file path str | parity file inode u64 | member count u16 | members in unit order
 * member   role u8 (1 data, 2 global parity, 3 local parity) | flags u8 (bit 0 virtual padding, bit 1 CRC known) |
 *          inode id u64 | block id u64 | generation stamp u64 | length u64 | CRC32C u32 (0 when unknown) |
 *          planned node str | planned rack str
 * trailer  CRC32C u32 of header and body
 * str      byte length u32 | UTF-8 bytes
 * </pre>
 * The parity file path and inode name the stripe's parity directory ({@code /.wideec/parity/<archive inode>/<stripe>},
 * one single-block file {@code u<unit>} per stored parity); each parity member's inode id is its own file's.
 * All integers big-endian. Magic and version stay where they are in every future version, so a reader recognises
 * a newer manifest as such before anything else.
 *
 * <p>Format 2 is written only when some stripe is sealed (a non-systematic code whose members are
 * codewords, role 4); a manifest without one is still written in format 1, byte for byte. Format 2 is format 1 with
 * each stripe followed by the pieces of the file it encodes:
 * <pre>
 * stripe   (as in format 1) | piece count u16 | pieces in data-symbol order
 * piece    flags u8 (bit 1 CRC known) | inode id u64 | block id u64 | generation stamp u64 | length u64 |
 *          CRC32C u32 (0 when unknown) | offset in the file u64
 * </pre>
 * A format 1 reader meets version 2 in the header and says a newer wide-ec wrote it.
 *
 * <p>Format 3 is written only for a manifest a parity update changed (its version above 0; never sealed): the body
 * starts with the manifest's version, then format 1's body follows unchanged:
 * <pre>
 * body     manifest version u64 | (format 1 body)
 * </pre>
 * A manifest of version 0 is still written in format 1 or 2, byte for byte.
 */
final class ManifestFormat {
  static final int MAGIC = 0x5745434D; // "WECM"
  static final int HEADER = 10;
  static final int TRAILER = 4;
  private static final int FLAG_PADDING = 1;
  private static final int FLAG_CRC = 2;

  private ManifestFormat() {}

  static byte[] write(StripeManifest m) {
    int version = m.sealed() ? StripeManifest.SEALED_FORMAT_VERSION
        : m.version() > 0 ? StripeManifest.UPDATED_FORMAT_VERSION : StripeManifest.FORMAT_VERSION;
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(body)) {
      if (version == StripeManifest.UPDATED_FORMAT_VERSION) {
        out.writeLong(m.version());
      }
      string(out, m.archivedPath());
      out.writeByte(m.scope().code());
      out.writeInt(m.stripes().size());
      for (ArchivedStripe s : m.stripes()) {
        out.writeLong(s.stripeId());
        string(out, s.codeSpec());
        out.writeShort(s.codeFormatVersion());
        out.writeByte(s.state().code());
        string(out, s.parityFilePath());
        out.writeLong(s.parityFileInode());
        out.writeShort(s.members().size());
        for (StripeMember u : s.members()) {
          out.writeByte(roleCode(u.role()));
          out.writeByte((u.padding() ? FLAG_PADDING : 0) | (u.hasCrc() ? FLAG_CRC : 0));
          out.writeLong(u.inodeId());
          out.writeLong(u.blockId());
          out.writeLong(u.generationStamp());
          out.writeLong(u.length());
          out.writeInt(u.hasCrc() ? (int) u.crc32c() : 0);
          string(out, u.plannedNode());
          string(out, u.plannedRack());
        }
        if (version == StripeManifest.SEALED_FORMAT_VERSION) {
          out.writeShort(s.sources().size());
          for (SourcePiece p : s.sources()) {
            out.writeByte(p.hasCrc() ? FLAG_CRC : 0);
            out.writeLong(p.inodeId());
            out.writeLong(p.blockId());
            out.writeLong(p.generationStamp());
            out.writeLong(p.length());
            out.writeInt(p.hasCrc() ? (int) p.crc32c() : 0);
            out.writeLong(p.offset());
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a byte array does not fail
    }
    byte[] b = body.toByteArray();
    ByteBuffer all = ByteBuffer.allocate(HEADER + b.length + TRAILER);
    all.putInt(MAGIC).putShort((short) version).putInt(b.length).put(b);
    all.putInt((int) crc(all.array(), HEADER + b.length));
    return all.array();
  }

  static StripeManifest read(byte[] bytes, String source) throws CorruptManifestException {
    if (bytes.length < HEADER + TRAILER) {
      throw new CorruptManifestException(Reason.TRUNCATED, source + ": " + bytes.length + " bytes, shorter than a"
          + " manifest's " + (HEADER + TRAILER) + "-byte header and trailer");
    }
    ByteBuffer in = ByteBuffer.wrap(bytes);
    int magic = in.getInt();
    if (magic != MAGIC) {
      throw new CorruptManifestException(Reason.MALFORMED, source + ": not a wide-ec stripe manifest (magic 0x"
          + Integer.toHexString(magic) + ", expected 0x" + Integer.toHexString(MAGIC) + ")");
    }
    int version = in.getShort() & 0xffff;
    if (version != StripeManifest.FORMAT_VERSION && version != StripeManifest.SEALED_FORMAT_VERSION
        && version != StripeManifest.UPDATED_FORMAT_VERSION) {
      throw new CorruptManifestException(Reason.VERSION, source + ": manifest format " + version + "; this build reads"
          + " formats " + StripeManifest.FORMAT_VERSION + " to " + StripeManifest.UPDATED_FORMAT_VERSION
          + " (a newer wide-ec wrote it, or the header is corrupt)");
    }
    long bodyLength = in.getInt() & 0xFFFF_FFFFL;
    long expected = HEADER + bodyLength + TRAILER;
    if (bytes.length < expected) {
      throw new CorruptManifestException(Reason.TRUNCATED, source + ": the header announces " + expected + " bytes,"
          + " only " + bytes.length + " are there (a cut-short write?)");
    }
    if (bytes.length > expected) {
      throw new CorruptManifestException(Reason.MALFORMED, source + ": " + (bytes.length - expected) + " bytes after"
          + " the " + expected + " the header announces");
    }
    long stored = ByteBuffer.wrap(bytes, (int) (HEADER + bodyLength), TRAILER).getInt() & 0xFFFF_FFFFL;
    long actual = crc(bytes, (int) (HEADER + bodyLength));
    if (stored != actual) {
      throw new CorruptManifestException(Reason.CHECKSUM, source + ": CRC32C mismatch (stored 0x"
          + Long.toHexString(stored) + ", computed 0x" + Long.toHexString(actual) + "): the manifest is corrupt");
    }
    Reader r = new Reader(ByteBuffer.wrap(bytes, HEADER, (int) bodyLength).slice(), source, version);
    StripeManifest manifest = r.manifest();
    if (version == StripeManifest.SEALED_FORMAT_VERSION && !manifest.sealed()) {
      throw new CorruptManifestException(Reason.MALFORMED, source + ": format 2 without a sealed stripe (format 1 is"
          + " written then)");
    }
    if (version == StripeManifest.UPDATED_FORMAT_VERSION && manifest.version() == 0) {
      throw new CorruptManifestException(Reason.MALFORMED, source + ": format 3 with manifest version 0 (format 1 is"
          + " written then)");
    }
    if (r.in.hasRemaining()) {
      throw r.malformed(r.in.remaining() + " bytes left after the last stripe");
    }
    return manifest;
  }

  private static long crc(byte[] b, int length) {
    CRC32C c = new CRC32C();
    c.update(b, 0, length);
    return c.getValue();
  }

  private static void string(DataOutputStream out, String s) throws IOException {
    byte[] b = s.getBytes(StandardCharsets.UTF_8);
    out.writeInt(b.length);
    out.write(b);
  }

  static int roleCode(UnitRole role) {
    return switch (role) {
      case DATA -> 1;
      case GLOBAL_PARITY -> 2;
      case LOCAL_PARITY -> 3;
      case CODED -> 4;
    };
  }

  static UnitRole roleOf(int code) {
    return switch (code) {
      case 1 -> UnitRole.DATA;
      case 2 -> UnitRole.GLOBAL_PARITY;
      case 3 -> UnitRole.LOCAL_PARITY;
      case 4 -> UnitRole.CODED;
      default -> null;
    };
  }

  /** Reads a body whose checksum matched; every count and length is checked against what is left. */
  private static final class Reader {
    final ByteBuffer in;
    final String source;
    final int version;
    String where = "header";

    Reader(ByteBuffer in, String source, int version) {
      this.in = in;
      this.source = source;
      this.version = version;
    }

    StripeManifest manifest() throws CorruptManifestException {
      long manifestVersion = version == StripeManifest.UPDATED_FORMAT_VERSION ? i64() : 0;
      String path = string("archived path");
      int scopeCode = u8();
      ArchiveScope scope = ArchiveScope.ofCode(scopeCode);
      if (scope == null) {
        throw malformed("scope code " + scopeCode + " is neither 1 (file) nor 2 (directory)");
      }
      long count = u32();
      List<ArchivedStripe> stripes = new ArrayList<>();
      for (long i = 0; i < count; i++) {
        where = "stripe #" + i;
        stripes.add(stripe());
      }
      try {
        return new StripeManifest(path, scope, stripes, manifestVersion);
      } catch (IllegalArgumentException e) {
        throw new CorruptManifestException(Reason.INCONSISTENT, source + ": " + e.getMessage(), e);
      }
    }

    private ArchivedStripe stripe() throws CorruptManifestException {
      long id = i64();
      where = "stripe " + id;
      String spec = string("code spec");
      int codeFormat = u16();
      int stateCode = u8();
      StripeState state = StripeState.ofCode(stateCode);
      if (state == null) {
        throw malformed("state code " + stateCode + " is not a stripe state");
      }
      String parityFile = string("parity file path");
      long parityInode = i64();
      int n = u16();
      List<StripeMember> members = new ArrayList<>();
      for (int u = 0; u < n; u++) {
        members.add(member(u));
      }
      List<SourcePiece> pieces = new ArrayList<>();
      if (version == StripeManifest.SEALED_FORMAT_VERSION) {
        int count = u16();
        for (int t = 0; t < count; t++) {
          pieces.add(piece(t));
        }
      }
      if (codeFormat != org.wideec.code.CodeFormat.FORMAT_VERSION) {
        throw new CorruptManifestException(Reason.VERSION, source + ": stripe " + id + " (" + spec + ") was written"
            + " under code format " + codeFormat + "; this build pins codes by format "
            + org.wideec.code.CodeFormat.FORMAT_VERSION);
      }
      try {
        return new ArchivedStripe(id, spec, codeFormat, state, parityFile, parityInode, members, pieces);
      } catch (IllegalArgumentException e) {
        throw new CorruptManifestException(Reason.INCONSISTENT, source + ": " + e.getMessage(), e);
      }
    }

    private StripeMember member(int unit) throws CorruptManifestException {
      int roleCode = u8();
      UnitRole role = roleOf(roleCode);
      if (role == null) {
        throw malformed("unit " + unit + ": role code " + roleCode + " is not a unit role");
      }
      int flags = u8();
      if ((flags & ~(FLAG_PADDING | FLAG_CRC)) != 0) {
        throw malformed("unit " + unit + ": unknown flag bits 0x" + Integer.toHexString(flags));
      }
      long inode = i64();
      long block = i64();
      long genStamp = i64();
      long length = i64();
      long crc = u32();
      String node = string("unit " + unit + " planned node");
      String rack = string("unit " + unit + " planned rack");
      if ((flags & FLAG_CRC) == 0 && crc != 0) {
        throw malformed("unit " + unit + ": a CRC value without the flag that says it is known");
      }
      try {
        return new StripeMember(role, (flags & FLAG_PADDING) != 0, inode, block, genStamp, length,
            (flags & FLAG_CRC) != 0 ? crc : StripeMember.NO_CRC, node, rack);
      } catch (IllegalArgumentException e) {
        throw new CorruptManifestException(Reason.INCONSISTENT, source + ": " + where + ", unit " + unit + ": "
            + e.getMessage(), e);
      }
    }

    private SourcePiece piece(int t) throws CorruptManifestException {
      int flags = u8();
      if ((flags & ~FLAG_CRC) != 0) {
        throw malformed("source piece " + t + ": unknown flag bits 0x" + Integer.toHexString(flags));
      }
      long inode = i64();
      long block = i64();
      long genStamp = i64();
      long length = i64();
      long crc = u32();
      long offset = i64();
      if ((flags & FLAG_CRC) == 0 && crc != 0) {
        throw malformed("source piece " + t + ": a CRC value without the flag that says it is known");
      }
      try {
        return new SourcePiece(inode, block, genStamp, length, (flags & FLAG_CRC) != 0 ? crc : StripeMember.NO_CRC,
            offset);
      } catch (IllegalArgumentException e) {
        throw new CorruptManifestException(Reason.INCONSISTENT, source + ": " + where + ", source piece " + t + ": "
            + e.getMessage(), e);
      }
    }

    CorruptManifestException malformed(String what) {
      return new CorruptManifestException(Reason.MALFORMED, source + ": " + where + ": " + what);
    }

    private void need(long bytes, String what) throws CorruptManifestException {
      if (in.remaining() < bytes) {
        throw malformed(what + " needs " + bytes + " bytes, " + in.remaining() + " are left");
      }
    }

    private int u8() throws CorruptManifestException {
      need(1, "a byte");
      return in.get() & 0xff;
    }

    private int u16() throws CorruptManifestException {
      need(2, "a 16-bit count");
      return in.getShort() & 0xffff;
    }

    private long u32() throws CorruptManifestException {
      need(4, "a 32-bit field");
      return in.getInt() & 0xFFFF_FFFFL;
    }

    private long i64() throws CorruptManifestException {
      need(8, "a 64-bit field");
      return in.getLong();
    }

    private String string(String what) throws CorruptManifestException {
      long length = u32();
      need(length, what);
      byte[] b = new byte[(int) length];
      in.get(b);
      try {
        return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(b)).toString();
      } catch (CharacterCodingException e) {
        throw malformed(what + " is not valid UTF-8");
      }
    }
  }
}
