package org.wideec.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A consumer's stream as the producer sees it: a helper thread sends slices as the consumer grants credits
 * ({@link CreditHandler}), each shaped by the emulated links and written in order by the event loop. Memory per
 * stream is bounded by the window of unacknowledged slices, whatever the block size.
 */
final class SliceDownstream implements Downstream {
  private final SlicePort port;
  private final Channel channel;
  private final long repairId;
  private final String peerNode;
  private final String peerRack;
  private final String selfNode;
  private final String selfRack;
  private final boolean clusterPeer;
  private final long askedAt = System.nanoTime();
  private final Semaphore credits = new Semaphore(0);
  private final AtomicLong sent = new AtomicLong();
  private long granted; // event loop only
  private volatile boolean gone;
  /** Its END was written (event loop): the connection may carry the consumer's next request. */
  private volatile boolean ended;
  private final AtomicReference<Runnable> onEnd = new AtomicReference<>();
  private long lastDue = Long.MIN_VALUE;
  private final ArrayDeque<Pending> queue = new ArrayDeque<>();

  /** A frame waiting for the emulated links, and when it may leave (System.nanoTime). */
  private record Pending(Frame frame, long due) {}

  SliceDownstream(SlicePort port, Channel channel, long repairId, String peerNode, String peerRack, String selfNode,
      String selfRack, boolean clusterPeer) {
    this.port = port;
    this.channel = channel;
    this.clusterPeer = clusterPeer;
    this.repairId = repairId;
    this.peerNode = peerNode;
    this.peerRack = peerRack;
    this.selfNode = selfNode;
    this.selfRack = selfRack;
  }

  @Override
  public long askedAtNanos() {
    return askedAt;
  }

  @Override
  public String selfNode() {
    return selfNode;
  }

  @Override
  public String selfRack() {
    return selfRack;
  }

  @Override
  public String node() {
    return peerNode;
  }

  @Override
  public boolean clusterPeer() {
    return clusterPeer;
  }

  @Override
  public String rack() {
    return peerRack;
  }

  @Override
  public ByteBufAllocator alloc() {
    return channel.alloc();
  }

  /** Whether its END went out: until then the connection carries this stream and no other. */
  boolean ended() {
    return ended;
  }

  /**
   * The consumer granted {@code n} more credits (event loop); false, granting nothing, when that would let it hold
   * more than {@code max} unacknowledged slices, which an honest consumer never does.
   */
  boolean grant(int n, int max) {
    if ((granted += n) - sent.get() > max) {
      return false;
    }
    credits.release(n);
    return true;
  }

  /** Runs {@code release} once, as the END is queued or the request is done, whichever comes first. */
  void onEnd(Runnable release) {
    onEnd.set(release);
  }

  @Override
  public void send(int slice, ByteBuf data) throws IOException, InterruptedException {
    long stallMs = port.conf.stallTimeoutMs();
    try {
      if (!credits.tryAcquire(stallMs, TimeUnit.MILLISECONDS)) {
        throw new PeerFailure(peerNode, peerNode + " took no slice of repair " + repairId + " for " + stallMs + " ms");
      }
      if (gone || !channel.isActive()) {
        throw new PeerFailure(null, peerNode + " closed repair " + repairId);
      }
      TransportFaultInjector.get().beforeSend(selfNode, peerNode, repairId, slice, data);
      sent.incrementAndGet();
      int bytes = data.readableBytes();
      boolean crossRack = !selfRack.equals(peerRack);
      if (BackgroundWork.isBackground(repairId)) {
        // A helper thread waits here, holding the consumer's credit: a consumer gone meanwhile is caught by the write.
        // At most half the stall timeout, so the consumer never gives the stream up for a cap and resends it all.
        port.background.acquire(bytes, crossRack, TimeUnit.MILLISECONDS.toNanos(stallMs) / 2);
        port.counters.backgroundSliceSent(bytes, crossRack);
      } else {
        port.counters.foregroundSliceSent(bytes, crossRack);
      }
      long delay = port.conf.shaper().reserve(selfNode, selfRack, peerNode, peerRack, bytes);
      port.counters.sliceSent(bytes, crossRack);
      port.counters.sliceSentBetween(bytes, selfRack, peerRack);
      Frame frame = new Frame(FrameType.SLICE, repairId, slice, data);
      data = null;
      writeAfter(frame, delay);
    } finally {
      if (data != null) {
        data.release();
      }
    }
  }

  @Override
  public void end() {
    requestDone();
    writeAfter(Frame.of(FrameType.END, repairId, 0), 0);
  }

  /** Frees the request's place among its peer's (once). */
  void requestDone() {
    Runnable r = onEnd.getAndSet(null);
    if (r != null) {
      r.run();
    }
  }

  /** The consumer closed the connection (event loop): a sender waiting for credit wakes, and nothing more is written. */
  void consumerGone() {
    gone = true;
    credits.release(Integer.MAX_VALUE / 2);
    discardPending();
  }

  /**
   * Writes a frame once the emulated links have carried it, in order: frames wait in this stream's queue
   * and one timer on the event loop releases them as they fall due.
   */
  private void writeAfter(Frame frame, long delayNanos) {
    long due = Math.max(System.nanoTime() + delayNanos, lastDue);
    lastDue = due;
    boolean idle;
    synchronized (queue) {
      idle = queue.isEmpty();
      queue.add(new Pending(frame, due));
    }
    if (gone) { // the consumer left while this frame was being queued: consumerGone has already drained
      discardPending();
      return;
    }
    if (idle) {
      wake();
    }
  }

  /** The consumer is gone: frames still waiting for the emulated links are released, never written. */
  private void discardPending() {
    synchronized (queue) {
      for (Pending p; (p = queue.poll()) != null; ) {
        p.frame().release();
      }
    }
  }

  /** Back to the event loop to write what is due. */
  private void wake() {
    try {
      channel.eventLoop().execute(this::release);
    } catch (RejectedExecutionException e) { // this node's transport is closing
      discardPending();
    }
  }

  // On the event loop: writes every frame that is due, then waits for the next one.
  private void release() {
    while (true) {
      Frame f;
      synchronized (queue) {
        Pending head = queue.peek();
        if (head == null) {
          return;
        }
        if (head.due() - System.nanoTime() > 0) {
          LinkTimer.at(head.due(), this::wake);
          return;
        }
        f = head.frame();
        queue.poll();
      }
      if (f.type() == FrameType.END) {
        ended = true;
      }
      channel.writeAndFlush(f);
    }
  }

  @Override
  public void fail(String culprit, String message) {
    port.endWithError(channel, Frame.text(FrameType.ERROR, repairId, (culprit == null ? "" : culprit) + "\t" + message));
  }
}
