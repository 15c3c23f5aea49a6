package org.wideec.engine;

import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.wideec.transport.PeerFailure;

/**
 * Where a node's update roles leave the rows of each output transfer for the role that fetches them: one bounded
 * queue per (update key, transfer), so a role runs at most {@link #WINDOW} slices ahead of its slowest consumer and a
 * collector that fans out to several parity racks (RackCU §III-A) computes each row once. A role registers its
 * outboxes before it asks its own inputs, so a fetch that arrives first waits for it (bounded by the stall timeout).
 */
final class UpdateOutboxes {
  static final int WINDOW = 4;

  /** One transfer's rows, slice by slice, then the end or a failure. */
  static final class Outbox {
    final int rows;
    final int slices;
    /** The node its consumer plays on and the transfer's key; null and 0 when unbound (a version-1 role's). */
    private final String consumer;
    private final byte[] key;
    private final ArrayBlockingQueue<Object> queue = new ArrayBlockingQueue<>(WINDOW);
    private final CountDownLatch delivered = new CountDownLatch(1);
    private volatile boolean claimed;

    Outbox(int rows, int slices, String consumer, long key) {
      this.rows = rows;
      this.slices = slices;
      this.consumer = consumer;
      this.key = java.nio.ByteBuffer.allocate(Long.BYTES).putLong(key).array();
    }

    /** Why the asker may not take these rows, or null: a bound transfer goes to its consumer's node with its key. */
    private String refusal(String asker, long fetchKey) {
      if (consumer == null) {
        return null;
      }
      // Compared in constant time: the key is the authority, and its bytes must not leak by timing.
      if (!java.security.MessageDigest.isEqual(key, java.nio.ByteBuffer.allocate(Long.BYTES).putLong(fetchKey)
          .array())) {
        return "the fetch does not prove the key its consumer was given";
      }
      if (!consumer.equals(asker)) {
        return "fetched by " + asker + ", but its role sends it to " + consumer;
      }
      return null;
    }

    /** Leaves one slice; waits while the consumer is {@link #WINDOW} slices behind. */
    void put(byte[] slice, long stallMs, String what) throws PeerFailure, InterruptedException {
      if (!queue.offer(slice, stallMs, TimeUnit.MILLISECONDS)) {
        throw new PeerFailure(null, what + ": its consumer took no slice within " + stallMs + " ms");
      }
    }

    /** Ends the rows with a failure the consumer reports (offered, never blocking: the role is giving up). */
    void fail(PeerFailure why) {
      queue.clear();
      queue.offer(why);
    }

    /** The next slice; a failure the producing role left is thrown. */
    byte[] take(long stallMs, String what) throws PeerFailure, InterruptedException {
      Object o = queue.poll(stallMs, TimeUnit.MILLISECONDS);
      if (o == null) {
        throw new PeerFailure(null, what + ": no slice within " + stallMs + " ms");
      }
      if (o instanceof PeerFailure f) {
        throw f;
      }
      return (byte[]) o;
    }

    void delivered() {
      delivered.countDown();
    }

    /** Whether the consumer took every slice within the stall timeout. */
    boolean awaitDelivered(long stallMs) throws InterruptedException {
      return delivered.await(stallMs, TimeUnit.MILLISECONDS);
    }
  }

  private record Key(long update, int transfer) {}

  private final Map<Key, Outbox> boxes = new ConcurrentHashMap<>();
  private final Object arrivals = new Object();

  /** @param consumer the node the transfer's consumer plays on, or null (unbound: {@code key} 0) */
  Outbox register(long update, int transfer, int rows, int slices, String consumer, long key) {
    Outbox box = new Outbox(rows, slices, consumer, key);
    if (boxes.putIfAbsent(new Key(update, transfer), box) != null) {
      throw new IllegalStateException("transfer " + transfer + " of the update is already sent by a role here");
    }
    synchronized (arrivals) {
      arrivals.notifyAll();
    }
    return box;
  }

  void remove(long update, int transfer) {
    boxes.remove(new Key(update, transfer));
  }

  /** Why a fetch was refused, without the update's key (the key is the fetch's authority: never in a log or reply). */
  static final class Refused extends Exception {
    Refused(String why) {
      super(why, null, false, false);
    }
  }

  /**
   * The outbox of a transfer, taken by its one consumer once its shape matches the fetch's and, when bound, the fetch
   * comes from its consumer's node ({@code asker}, as it announced itself) with its key; waits for its role to
   * register it. A fetch that does not match leaves the outbox unclaimed for the consumer its role ordered.
   *
   * @throws Refused when no role registered it within {@code stallMs}, the fetch is not its consumer's, another
   *     consumer took it, or its rows and slices are not the fetch's
   */
  Outbox claim(long update, int transfer, int rows, int slices, String asker, long transferKey, long stallMs)
      throws InterruptedException, Refused {
    long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(stallMs);
    Key key = new Key(update, transfer);
    synchronized (arrivals) {
      while (true) {
        Outbox box = boxes.get(key);
        if (box != null) {
          synchronized (box) {
            String refused = box.refusal(asker, transferKey);
            if (refused != null) {
              throw new Refused(refused);
            }
            if (box.claimed) {
              throw new Refused("another role already fetched it");
            }
            if (box.rows != rows || box.slices != slices) {
              throw new Refused("the role sends " + box.rows + " rows in " + box.slices + " slices, the fetch asks "
                  + rows + " rows in " + slices);
            }
            box.claimed = true;
            return box;
          }
        }
        long left = TimeUnit.NANOSECONDS.toMillis(until - System.nanoTime());
        if (left <= 0) {
          throw new Refused("no role here sends it (never ordered, failed, or already done)");
        }
        arrivals.wait(left);
      }
    }
  }
}
