package org.wideec.repair;

import java.io.IOException;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Told of a source replica found corrupt during a repair, before the repair goes on without it. HDFS's own
 * reconstructor reports such a replica to the NameNode as soon as its read fails ({@code StripedReader} hands the
 * corrupt blocks to {@code DataNode#reportCorruptedBlocks}), so the NameNode stops counting it as live and queues it
 * for reconstruction while the rest of the group is being rebuilt. A repair that restarted without the helper and
 * said nothing would end with the NameNode still counting the corrupt unit live, and nothing would rebuild it.
 *
 * <p>A helper that finds its replica corrupt fails its stream with a message made by {@link #message}; the requestor
 * recognises it with {@link #blockIn}.
 */
@FunctionalInterface
public interface CorruptSources {
  /** Told nothing (tests, degraded reads of a client, which has no NameNode channel of a DataNode). */
  CorruptSources IGNORE = (unit, where, block, detail) -> {};

  /** What {@link #message} writes, as {@link #blockIn} finds it in a failure's text (the helper may prefix it). */
  Pattern CORRUPT_REPLICA = Pattern.compile("corrupt replica \\S*:blk_(-?\\d+)_\\d+ at offset");

  /**
   * The replica {@code block} of {@code unit}, read at {@code where}, failed its checksum. Called on the repair's
   * thread before the next attempt starts; an exception is logged and the repair goes on.
   */
  void found(int unit, UnitLocation where, BlockRef block, String detail) throws IOException;

  /** The text a helper fails its stream with when its replica of {@code blockId} fails its checksum. */
  static String message(String pool, long blockId, long genStamp, long offset, String why) {
    return "corrupt replica " + pool + ":blk_" + blockId + "_" + genStamp + " at offset " + offset + ": " + why;
  }

  /** The unit whose replica a failure message names as corrupt, if it is one of {@code blocks}; else null. */
  static Integer blockIn(String failure, Map<Integer, BlockRef> blocks) {
    if (failure == null) {
      return null;
    }
    Matcher m = CORRUPT_REPLICA.matcher(failure);
    if (!m.find()) {
      return null;
    }
    long id = Long.parseLong(m.group(1));
    for (Map.Entry<Integer, BlockRef> e : blocks.entrySet()) {
      if (e.getValue().blockId() == id) {
        return e.getKey();
      }
    }
    return null;
  }

}
