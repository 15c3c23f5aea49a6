package org.wideec.datanode;

import java.io.IOException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;

/**
 * The rebuilt units this process is writing to their targets right now. Two rebuilds of one unit can meet: the
 * NameNode plugin's order and HDFS's own reconstruction task for the same group (scheduled while our claim did not
 * hold it back), and both choose the group's planned node, so both write the same block to the same target. The
 * target refuses the second writer (its replica already exists, TEMPORARY) and the writer sees only a broken pipe;
 * handing that task to HDFS's reconstructor would collide again. So a writer takes its unit here before it connects,
 * and a second writer of the same block to the same target is refused at once, by name, before its rebuild reads a
 * byte from the helpers.
 */
final class UnitsBeingStored {
  private static final Set<String> WRITING = ConcurrentHashMap.newKeySet();

  private UnitsBeingStored() {}

  /** A second rebuild of a unit that is being written to the same target already. */
  static final class AlreadyBeingStored extends IOException {
    AlreadyBeingStored(String message) {
      super(message);
    }
  }

  /** A unit taken for writing; released once, by whoever ends the write. */
  static final class Claim {
    private final String key;
    private final AtomicBoolean held = new AtomicBoolean(true);

    private Claim(String key) {
      this.key = key;
    }

    void release() {
      if (held.compareAndSet(true, false)) {
        WRITING.remove(key);
      }
    }
  }

  /** Takes the unit for writing to target; AlreadyBeingStored when another rebuild here writes it there now. */
  static Claim take(ExtendedBlock block, DatanodeInfo target) throws AlreadyBeingStored {
    String key = key(block.getBlockPoolId(), block.getBlockId(), target.getXferAddr());
    if (!WRITING.add(key)) {
      throw new AlreadyBeingStored(block.getBlockName() + " is already being stored on " + target.getXferAddr()
          + " by another rebuild on this DataNode");
    }
    return new Claim(key);
  }

  /** Whether another rebuild here writes this block to target now. */
  static boolean isBeingStored(String pool, long blockId, DatanodeInfo target) {
    return WRITING.contains(key(pool, blockId, target.getXferAddr()));
  }

  /** Whether e, or what caused it, is a refusal of a second writer. */
  static boolean refused(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof AlreadyBeingStored) {
        return true;
      }
    }
    return false;
  }

  private static String key(String pool, long blockId, String target) {
    return pool + "/" + blockId + "@" + target;
  }
}
