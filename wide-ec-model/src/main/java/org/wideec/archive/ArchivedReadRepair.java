package org.wideec.archive;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongFunction;
import org.wideec.code.UnitRole;
import org.wideec.repair.BlockRef;
import org.wideec.repair.RepairScheme;
import org.wideec.repair.StripeRepair;
import org.wideec.topology.Site;

/**
 * The repair of one lost data block of an archived stripe for a reader: the block the reader holds a
 * token for, checked against the manifest, then the stripe sorted as for any repair ({@link ArchivedStripeRepair}:
 * a member is a helper only while HDFS still lists the very block the parity covers with a live replica; appended,
 * truncated, rewritten or deleted members never help). The manifest, not the asker, says which blocks are members.
 */
public final class ArchivedReadRepair {
  private ArchivedReadRepair() {}

  /** A member block as HDFS lists it now: its block and one live replica (null node when it has none). */
  public record Current(long blockId, long genStamp, long length, String node, String rack) {}

  /** The repair, and why each member left out was left out (unit, reason), for the error when it cannot decode. */
  public record Plan(StripeRepair repair, int lostUnit, StripeMember lost, Map<Integer, String> leftOut) {}

  /**
   * @param lostBlock the block to rebuild, as the asker holds it (id, generation stamp, length)
   * @param current each stored member's block as HDFS lists it now, by unit (absent: not listed)
   * @param refs the reference (with a token) through which a helper reads a member's block, by block id
   * @throws IOException naming the stripe and the block when the block is not a data member of a stripe whose parity
   *     protects it, differs from what the stripe covers, or cannot be decoded from the members left
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
    if (!ArchivedStripeRepair.protects(stripe)) {
      throw new IOException(where + " is " + stripe.state() + ": its parity protects nothing yet, so nothing is read"
          + " through it");
    }
    StripeMember lost = stripe.member(lostUnit);
    if (lost.generationStamp() != lostBlock.genStamp() || lost.length() != lostBlock.numBytes()) {
      throw new IOException(where + ": block " + lost.blockId() + " is now stamp " + lostBlock.genStamp() + ", "
          + lostBlock.numBytes() + " bytes; the stripe covers stamp " + lost.generationStamp() + ", " + lost.length()
          + " bytes (appended or rewritten since it was archived)");
    }
    Map<Integer, ArchivedStripeRepair.BlockNow> now = new HashMap<>();
    Map<Integer, String> leftOut = new HashMap<>();
    for (int u : stripe.storedUnits()) {
      StripeMember m = stripe.member(u);
      Current c = current.get(u);
      if (u == lostUnit) {
        now.put(u, new ArchivedStripeRepair.BlockNow(m.generationStamp(), m.length(), List.of())); // what is asked for
      } else if (c == null) {
        leftOut.put(u, "block " + m.blockId() + " is no longer listed");
      } else if (c.blockId() != m.blockId() || c.genStamp() != m.generationStamp() || c.length() != m.length()) {
        // Another block, stamp or length than the parity covers: stale, whatever the stamp recorded.
        now.put(u, new ArchivedStripeRepair.BlockNow(-1, c.length(), List.of()));
        leftOut.put(u, "block " + m.blockId() + " is now blk_" + c.blockId() + "_" + c.genStamp() + " of " + c.length()
            + " bytes, not what the parity covers");
      } else if (c.node() == null) {
        now.put(u, new ArchivedStripeRepair.BlockNow(c.genStamp(), c.length(), List.of()));
        leftOut.put(u, "block " + m.blockId() + " has no live replica");
      } else {
        now.put(u, new ArchivedStripeRepair.BlockNow(c.genStamp(), c.length(),
            List.of(new Site(c.node(), c.rack()))));
      }
    }
    ArchivedStripeRepair sorted = ArchivedStripeRepair.of(stripe, now);
    for (int u : sorted.unrecoverable()) {
      if (u == lostUnit) {
        throw new IOException(where + ": block " + lost.blockId() + " (unit " + lostUnit + ") cannot be decoded from"
            + " the members left (" + describe(leftOut) + ")");
      }
    }
    StripeRepair repair = sorted.repairOf(lostUnit, where + " unit " + lostUnit, u -> {
      StripeMember m = stripe.member(u);
      BlockRef r = refs.apply(m.blockId());
      return new BlockRef(r.pool(), m.blockId(), m.generationStamp(), m.length(), r.token());
    }, scheme, Comparator.naturalOrder());
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
