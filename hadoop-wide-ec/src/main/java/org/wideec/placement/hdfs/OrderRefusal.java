package org.wideec.placement.hdfs;

import java.util.HashSet;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;

/**
 * What a rebuild order's failure says of each of its units ({@link RebuildOrders}): none (every unit is then confirmed
 * live on its target or failed after the timeout), or the reason, which for a joint order names by its block
 * (blk_...) each unit the DataNode did not store; a reason that names none of the order's blocks (it names none, or a
 * helper's) refuses every unit. Block group units have negative ids (blk_-9223...), archived blocks positive ones.
 */
final class OrderRefusal {
  private static final Pattern BLOCK = Pattern.compile("blk_(-?\\d+)");
  static final OrderRefusal NONE = new OrderRefusal(null, Set.of());

  /** The reason, or null when the order was not refused. */
  private final String reason;
  private final Set<Long> named = new HashSet<>();

  private OrderRefusal(String reason, Set<Long> orderBlocks) {
    this.reason = reason;
    if (reason != null) {
      Matcher x = BLOCK.matcher(reason);
      while (x.find()) {
        long b = Long.parseLong(x.group(1));
        if (orderBlocks.contains(b)) {
          named.add(b);
        }
      }
    }
  }

  /**
   * The order of the units stored under {@code orderBlocks} failed with {@code e}: sending it, or the DataNode's report
   * of its end.
   */
  static OrderRefusal of(Throwable e, Set<Long> orderBlocks) {
    return new OrderRefusal(e.getMessage() == null ? e.toString() : e.getMessage(), orderBlocks);
  }

  boolean refused() {
    return reason != null;
  }

  /** Whether the refusal covers the unit stored under {@code block}: it names it, or names none of the order's. */
  boolean refuses(long block) {
    return reason != null && (named.contains(block) || named.isEmpty());
  }

  /** Why a refused unit failed. */
  String failure(DatanodeInfo requestor) {
    return "rebuild on " + requestor.getXferAddr() + " failed: " + reason;
  }

  /** Why a unit not refused failed: the NameNode did not list it live on its target in time. */
  String unconfirmed(DatanodeInfo target, long confirmTimeoutMs) {
    return target.getXferAddr() + " stored it, but the NameNode lists no live replica there after " + confirmTimeoutMs
        + " ms (" + ArchiveRepairSettings.CONFIRM_KEY + ")" + (reason == null ? "" : "; " + reason);
  }
}
