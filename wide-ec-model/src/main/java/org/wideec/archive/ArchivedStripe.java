package org.wideec.archive;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.wideec.code.Codes;
import org.wideec.code.LinearCode;
import org.wideec.code.UnitRole;

/**
 * One stripe of a manifest: its code (a pinned spec and the on-disk code format that pins it), its state, where its
 * parity lives and its n members in unit order. The parity path names the stripe's parity directory and the parity
 * inode that directory's inode: every stored parity unit is a single-block file of its own there, so each can be
 * written to (and later repaired on) the node the plan chose, and each parity member names its own file's inode. Construction checks every rule a stripe must obey, so an
 * inconsistent stripe cannot exist in memory (the parser turns the refusal into a
 * {@link CorruptManifestException}):
 * <ul>
 *   <li>the spec is canonical and pinned by the code format it names (only pinned codes may define stored bytes,
 *       DESIGN.md §2), and systematic (format 1 records stripes whose data blocks stay as they are);</li>
 *   <li>n members, each with the role the code gives its unit;</li>
 *   <li>at least one stored data unit; a parity is virtual exactly when its generator row touches only virtual data
 *       units (then it is zero);</li>
 *   <li>every stored member has a planned node and rack, all nodes distinct (one unit per node) and all known
 *       block ids distinct; every parity is as long as the longest data block;</li>
 *   <li>what the state promises: a parity file from ENCODING on; parity block ids, generation stamps and CRCs from
 *       PARITY_WRITTEN on, and none while PLANNED (a rolled-back encoding discards its parity); the CRC of every data
 *       block from VERIFIED on. A STALE stripe keeps what it had.</li>
 * </ul>
 */
public record ArchivedStripe(long stripeId, String codeSpec, int codeFormatVersion, StripeState state,
    String parityFilePath, long parityFileInode, List<StripeMember> members, List<SourcePiece> sources) {

  public ArchivedStripe {
    members = List.copyOf(members);
    sources = sources == null ? List.of() : List.copyOf(sources);
    parityFilePath = parityFilePath == null ? "" : parityFilePath;
    check(stripeId, codeSpec, codeFormatVersion, state, parityFilePath, parityFileInode, members, sources);
  }

  /** A stripe of a systematic code: its data members are the file's own blocks, no source pieces. */
  public ArchivedStripe(long stripeId, String codeSpec, int codeFormatVersion, StripeState state,
      String parityFilePath, long parityFileInode, List<StripeMember> members) {
    this(stripeId, codeSpec, codeFormatVersion, state, parityFilePath, parityFileInode, members, List.of());
  }

  /**
   * A sealed stripe: a non-systematic code whose n members are all codewords, each a single-block
   * file of the stripe's codeword directory (the "parity path"), and whose source pieces say what they encode.
   */
  public boolean sealed() {
    return !sources.isEmpty();
  }

  /** The stripe's code (pinned; cached by {@link Codes}). */
  public LinearCode code() {
    return Codes.pinnedFromSpec(codeSpec);
  }

  public StripeMember member(int unit) {
    return members.get(unit);
  }

  /** The length of every stored parity: the longest data block (shorter ones count as zero-padded). */
  public long unitLength() {
    return unitLength(members);
  }

  /** Units that are stored (not virtual), ascending. */
  public int[] storedUnits() {
    return java.util.stream.IntStream.range(0, members.size()).filter(u -> !members.get(u).padding()).toArray();
  }

  /** The stripe in the next state: the transition must be allowed and the members must satisfy it. */
  public ArchivedStripe withState(StripeState next) {
    state.checkTransition(stripeId, next);
    return new ArchivedStripe(stripeId, codeSpec, codeFormatVersion, next, parityFilePath, parityFileInode, members,
        sources);
  }

  /** The same stripe with other members (blocks written, CRCs learnt); the state's rules still apply. */
  public ArchivedStripe withMembers(List<StripeMember> next) {
    return new ArchivedStripe(stripeId, codeSpec, codeFormatVersion, state, parityFilePath, parityFileInode, next,
        sources);
  }

  /** The same sealed stripe with other source pieces (their CRCs learnt by the encoder). */
  public ArchivedStripe withSources(List<SourcePiece> next) {
    return new ArchivedStripe(stripeId, codeSpec, codeFormatVersion, state, parityFilePath, parityFileInode, members,
        next);
  }

  /**
   * The stripe rolled back to PLANNED (a crashed or failed encoding): parity members lose their blocks, data
   * members their CRCs, and the parity directory its inode; the path stays, as the encoding redone writes there.
   */
  public ArchivedStripe rolledBack() {
    state.checkTransition(stripeId, StripeState.PLANNED);
    List<StripeMember> next = members.stream().map(StripeMember::unwritten).toList();
    List<SourcePiece> pieces = sources.stream().map(p -> p.withCrc(StripeMember.NO_CRC)).toList();
    return new ArchivedStripe(stripeId, codeSpec, codeFormatVersion, StripeState.PLANNED, parityFilePath, 0, next,
        pieces);
  }

  /** The same stripe once its parity file exists. */
  public ArchivedStripe withParityFile(String path, long inode) {
    return new ArchivedStripe(stripeId, codeSpec, codeFormatVersion, state, path, inode, members, sources);
  }

  /** The longest data block, or for a sealed stripe the longest source piece: every coded unit's length. */
  private long unitLength(List<StripeMember> members) {
    return sources.isEmpty() ? dataLength(members) : pieceLength(sources);
  }

  private static long pieceLength(List<SourcePiece> sources) {
    return sources.stream().mapToLong(SourcePiece::length).max().orElse(0);
  }

  private static long dataLength(List<StripeMember> members) {
    long max = 0;
    for (StripeMember m : members) {
      if (m.role() == UnitRole.DATA && !m.padding()) {
        max = Math.max(max, m.length());
      }
    }
    return max;
  }

  private static void check(long id, String spec, int formatVersion, StripeState state, String parityFile,
      long parityInode, List<StripeMember> members, List<SourcePiece> sources) {
    String where = "stripe " + id + " (" + spec + ")";
    if (id < 0) {
      throw new IllegalArgumentException(where + ": stripe ids are not negative");
    }
    if (state == null) {
      throw new IllegalArgumentException(where + ": no state");
    }
    LinearCode code = pinnedCode(where, spec, formatVersion);
    boolean sealed = !sources.isEmpty();
    checkCodeShape(where, code, members, sources);
    checkUnitRoles(where, code, members, sources);
    checkParityFile(where, state, parityFile, parityInode);
    long unitLength = sealed ? pieceLength(sources) : dataLength(members);
    Set<Long> dataInodes = new HashSet<>();
    members.stream().filter(m -> m.role() == UnitRole.DATA && !m.padding()).forEach(m -> dataInodes.add(m.inodeId()));
    checkSources(where, state, sources, dataInodes);
    checkStoredMembers(where, state, code, members, unitLength, dataInodes);
  }

  /** The code the spec names: written canonically and pinned by the recorded code format (DESIGN.md §2). */
  private static LinearCode pinnedCode(String where, String spec, int formatVersion) {
    LinearCode code = Codes.pinnedFromSpec(spec);
    if (!code.spec().equals(spec)) {
      throw new IllegalArgumentException(where + ": the spec must be written canonically, as " + code.spec());
    }
    if (formatVersion != code.formatVersion()) {
      throw new IllegalArgumentException(where + ": recorded under code format " + formatVersion + ", but this build"
          + " pins " + spec + " by code format " + code.formatVersion());
    }
    return code;
  }

  /** Source pieces exactly for a non-systematic code, at most k of them, and n members. */
  private static void checkCodeShape(String where, LinearCode code, List<StripeMember> members,
      List<SourcePiece> sources) {
    boolean sealed = !sources.isEmpty();
    if (!code.isSystematic() && !sealed) {
      throw new IllegalArgumentException(where + ": not systematic, so its stored units are codewords: it needs the"
          + " source pieces they encode (manifest format " + StripeManifest.SEALED_FORMAT_VERSION + ")");
    }
    if (code.isSystematic() && sealed) {
      throw new IllegalArgumentException(where + ": a systematic code keeps the file's blocks as data units; only a"
          + " non-systematic stripe lists source pieces");
    }
    if (sources.size() > code.k()) {
      throw new IllegalArgumentException(where + ": " + sources.size() + " source pieces, the code encodes k = "
          + code.k());
    }
    if (members.size() != code.n()) {
      throw new IllegalArgumentException(where + ": " + members.size() + " members, the code has n = " + code.n());
    }
  }

  /**
   * Every member has the role the code gives its unit, a parity is virtual exactly when its generator row touches
   * only virtual data units, and at least one data unit is stored.
   */
  private static void checkUnitRoles(String where, LinearCode code, List<StripeMember> members,
      List<SourcePiece> sources) {
    boolean sealed = !sources.isEmpty();
    boolean anyData = false;
    for (int u = 0; u < code.n(); u++) {
      StripeMember m = members.get(u);
      if (m.role() != code.role(u)) {
        throw new IllegalArgumentException(where + ", unit " + u + ": recorded as " + m.role() + ", the code makes it "
            + code.role(u));
      }
      anyData |= (m.role() == UnitRole.DATA && !m.padding()) || sealed;
      java.util.function.IntPredicate virtual = sealed ? d -> d >= sources.size() : d -> members.get(d).padding();
      if (m.isParity() && m.padding() != zeroParity(code, u, virtual)) {
        throw new IllegalArgumentException(where + ", unit " + u + ": a parity is virtual exactly when its generator"
            + " row touches only virtual data units (it is zero); recorded " + (m.padding() ? "virtual" : "stored"));
      }
    }
    if (!anyData) {
      throw new IllegalArgumentException(where + ": every data unit is virtual padding");
    }
  }

  /** The parity file's path from ENCODING on, its inode only with a path and from PARITY_WRITTEN on. */
  private static void checkParityFile(String where, StripeState state, String parityFile, long parityInode) {
    if (state != StripeState.PLANNED && state != StripeState.STALE && parityFile.isEmpty()) {
      throw new IllegalArgumentException(where + ": state " + state + " needs the parity file's path");
    }
    if (parityInode < 0 || (parityInode > 0 && parityFile.isEmpty())) {
      throw new IllegalArgumentException(where + ": parity file inode " + parityInode + " without a path");
    }
    if (state.parityWritten() && parityInode == 0) {
      throw new IllegalArgumentException(where + ": state " + state + " needs the parity file's inode id");
    }
  }

  /** Every stored member: a planned node and rack, one unit per node, distinct block ids, what its state promises. */
  private static void checkStoredMembers(String where, StripeState state, LinearCode code, List<StripeMember> members,
      long unitLength, Set<Long> dataInodes) {
    Set<String> nodes = new HashSet<>();
    Set<Long> blocks = new HashSet<>();
    for (int u = 0; u < code.n(); u++) {
      StripeMember m = members.get(u);
      if (m.padding()) {
        continue;
      }
      String unit = where + ", unit " + u + " (" + m.role() + ", block " + m.blockId() + ")";
      if (m.plannedNode().isEmpty() || m.plannedRack().isEmpty()) {
        throw new IllegalArgumentException(unit + ": a stored member needs a planned node and rack");
      }
      if (!nodes.add(m.plannedNode())) {
        throw new IllegalArgumentException(unit + ": node " + m.plannedNode() + " already holds another unit of the"
            + " stripe (one unit per node, so a node loss is one erasure)");
      }
      if (m.blockId() != 0 && !blocks.add(m.blockId())) {
        throw new IllegalArgumentException(unit + ": block id appears twice in the stripe");
      }
      if (m.role() == UnitRole.DATA) {
        checkDataMember(unit, state, m);
      } else {
        checkParityMember(unit, state, m, unitLength, dataInodes);
      }
    }
  }

  /** A stored data block is known, and has its CRC32C from VERIFIED on. */
  private static void checkDataMember(String unit, StripeState state, StripeMember m) {
    checkWritten(unit, m, true);
    if (state.parityVerified() && !m.hasCrc()) {
      throw new IllegalArgumentException(unit + ": state " + state + " needs the CRC32C of every data block");
    }
  }

  /**
   * A stored parity is as long as the longest data block, has no block while PLANNED, a written block with its CRC32C
   * from PARITY_WRITTEN on, and lives in a file of its own.
   */
  private static void checkParityMember(String unit, StripeState state, StripeMember m, long unitLength,
      Set<Long> dataInodes) {
    if (m.length() != unitLength) {
      throw new IllegalArgumentException(unit + ": parity length " + m.length() + ", the longest data block has "
          + unitLength);
    }
    boolean written = m.blockId() != 0;
    checkWritten(unit, m, written);
    if (written && state == StripeState.PLANNED) {
      throw new IllegalArgumentException(unit + ": a PLANNED stripe has no parity blocks yet (a rolled-back"
          + " encoding discards them)");
    }
    if (state.parityWritten() && !(written && m.hasCrc())) {
      throw new IllegalArgumentException(unit + ": state " + state + " needs the parity block's id, generation"
          + " stamp and CRC32C");
    }
    if (written && dataInodes.contains(m.inodeId())) {
      throw new IllegalArgumentException(unit + ": parity block of inode " + m.inodeId() + ", which holds data"
          + " of the stripe (parity lives in files of its own)");
    }
  }

  /** Source pieces: one file, in file order without gaps, distinct blocks, CRCs exactly from PARITY_WRITTEN on. */
  private static void checkSources(String where, StripeState state, List<SourcePiece> sources, Set<Long> inodes) {
    Set<Long> blocks = new HashSet<>();
    for (int t = 0; t < sources.size(); t++) {
      SourcePiece p = sources.get(t);
      String piece = where + ", source piece " + t + " (block " + p.blockId() + ")";
      inodes.add(p.inodeId());
      if (inodes.size() > 1) {
        throw new IllegalArgumentException(piece + ": a sealed stripe encodes pieces of one file, this one is of inode "
            + p.inodeId());
      }
      if (!blocks.add(p.blockId())) {
        throw new IllegalArgumentException(piece + ": block id appears twice in the stripe");
      }
      if (t > 0 && p.offset() != sources.get(t - 1).offset() + sources.get(t - 1).length()) {
        throw new IllegalArgumentException(piece + ": starts at offset " + p.offset() + ", the piece before ends at "
            + (sources.get(t - 1).offset() + sources.get(t - 1).length()) + " (pieces are contiguous, in file order)");
      }
      if (state == StripeState.PLANNED && p.hasCrc()) {
        throw new IllegalArgumentException(piece + ": a PLANNED stripe has not read its pieces yet, so no CRC32C");
      }
      if (state.parityWritten() && !p.hasCrc()) {
        throw new IllegalArgumentException(piece + ": state " + state + " needs the CRC32C of every source piece");
      }
    }
  }

  /** A known block has an inode, an id and a generation stamp; an unknown one (unwritten parity) has none. */
  private static void checkWritten(String unit, StripeMember m, boolean known) {
    boolean ok = known
        ? m.inodeId() > 0 && m.blockId() != 0 && m.generationStamp() > 0
        : m.inodeId() == 0 && m.generationStamp() == 0 && !m.hasCrc();
    if (!ok) {
      throw new IllegalArgumentException(unit + (known
          ? ": a stored block needs its inode id, block id and generation stamp (got inode " + m.inodeId()
              + ", generation stamp " + m.generationStamp() + ")"
          : ": a parity not yet written has no inode, generation stamp or CRC"));
    }
  }

  /**
   * True when parity unit u's generator row is zero on every stored data unit, so the parity is zero whatever the
   * data: such a parity is virtual like the data it covers (the local parity of a group of padding only).
   */
  static boolean zeroParity(LinearCode code, int u, java.util.function.IntPredicate virtualData) {
    int[] row = code.generator().row(u);
    for (int d = 0; d < code.k(); d++) {
      if (row[d] != 0 && !virtualData.test(d)) {
        return false;
      }
    }
    return true;
  }
}
