package org.wideec.repair;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.LongFunction;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.StripeMember;
import org.wideec.archive.StripeState;
import org.wideec.code.UnitRole;

/**
 * The repair of one lost data block of an archived stripe, from the manifest's record of the stripe and what HDFS
 * holds now. The manifest, not the asker, says which blocks are members; a member is a helper only while HDFS still
 * lists the very block the parity covers (same id, generation stamp and length) with a live replica: an appended,
 * truncated, rewritten or deleted member no longer matches its parity, and reading through it would return wrong
 * bytes, so it counts as lost (the code may still decode without it). Only COMMITTED and TRIMMED stripes are read
 * through: before COMMITTED the parity is not yet the stripe's, and a STALE stripe's parity covers bytes that changed.
 */
public final class ArchivedStripeRepair {
  private ArchivedStripeRepair() {}

  /** A member block as HDFS lists it now: its block and one live replica (null node when it has none). */
  public record Current(long blockId, long genStamp, long length, String node, String rack) {}

  /** The repair, and why each member left out was left out (unit, reason), for the error when it cannot decode. */
  public record Plan(StripeRepair repair, int lostUnit, StripeMember lost, Map<Integer, String> leftOut) {}

  /**
   * @param lostBlock the block to rebuild, as the asker holds it (id, generation stamp, length)
   * @param current each stored member's block as HDFS lists it now, by unit (absent: not listed)
   * @param refs the reference (with a token) through which a helper reads a member's block
   * @throws IOException naming the stripe and the block when the block is not a data member of a readable stripe or
   *     differs from what the stripe covers
   */
  public static Plan plan(String name, ArchivedStripe stripe, BlockRef lostBlock, Map<Integer, Current> current,
      LongFunction<BlockRef> refs, RepairScheme scheme) throws IOException {
    String where = name + ": stripe " + stripe.stripeId() + " (" + stripe.codeSpec() + ")";
    int lostUnit = -1;
    for (int u = 0; u < stripe.members().size(); u++) {
      StripeMember m = stripe.member(u);
      if (!m.padding() && m.role() == UnitRole.DATA && m.blockId() == lostBlock.blockId()) {
        lostUnit = u;
      }
    }
    if (lostUnit < 0) {
      throw new IOException(name + ": block " + lostBlock.blockId() + " is not a data block of stripe "
          + stripe.stripeId());
    }
    StripeMember lost = stripe.member(lostUnit);
    if (stripe.state() != StripeState.COMMITTED && stripe.state() != StripeState.TRIMMED) {
      throw new IOException(where + " is " + stripe.state() + ": only COMMITTED or TRIMMED stripes are read through");
    }
    if (lost.generationStamp() != lostBlock.genStamp() || lost.length() != lostBlock.numBytes()) {
      throw new IOException(where + ": block " + lost.blockId() + " is now stamp " + lostBlock.genStamp() + ", "
          + lostBlock.numBytes() + " bytes; the stripe covers stamp " + lost.generationStamp() + ", " + lost.length()
          + " bytes (appended or rewritten since it was archived)");
    }
    Map<Integer, UnitLocation> survivors = new HashMap<>();
    Map<Integer, BlockRef> blocks = new HashMap<>();
    Set<Integer> zero = new HashSet<>();
    Map<Integer, String> leftOut = new HashMap<>();
    for (int u = 0; u < stripe.members().size(); u++) {
      StripeMember m = stripe.member(u);
      if (m.padding()) {
        zero.add(u);
        continue;
      }
      if (u == lostUnit) {
        continue;
      }
      Current c = current.get(u);
      String why = c == null ? "block " + m.blockId() + " is no longer listed"
          : c.blockId() != m.blockId() || c.genStamp() != m.generationStamp() || c.length() != m.length()
              ? "block " + m.blockId() + " is now blk_" + c.blockId() + "_" + c.genStamp() + " of " + c.length()
                  + " bytes, not what the parity covers"
              : c.node() == null ? "block " + m.blockId() + " has no live replica" : null;
      if (why != null) {
        leftOut.put(u, why);
        continue;
      }
      survivors.put(u, new UnitLocation(u, c.node(), c.rack()));
      BlockRef r = refs.apply(m.blockId());
      blocks.put(u, new BlockRef(r.pool(), m.blockId(), m.generationStamp(), m.length(), r.token()));
    }
    StripeRepair repair = StripeRepair.of(where + " unit " + lostUnit, stripe.code(), new int[] {lostUnit},
        new long[] {lost.length()}, survivors, blocks, zero, scheme);
    return new Plan(repair, lostUnit, lost, leftOut);
  }

  /** The reasons members were left out, for an error message. */
  public static String describe(Map<Integer, String> leftOut) {
    List<String> parts = new ArrayList<>();
    leftOut.entrySet().stream().sorted(Map.Entry.comparingByKey())
        .forEach(e -> parts.add("unit " + e.getKey() + ": " + e.getValue()));
    return parts.isEmpty() ? "no member left out" : String.join("; ", parts);
  }
}
