package org.wideec.transport;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.wideec.topology.Endpoint;

/**
 * The consumer's end of one stream, carried by a {@link PeerConnection}: sends the request and the initial window
 * of credits, then hands out slices in order, one credit back per slice taken. A slice beyond the granted credit,
 * a corrupt frame, an ERROR, a closed connection or a stall all surface as a {@link PeerFailure} naming the node
 * to blame. A stream consumed to its END gives its connection back for reuse when closed; any other close
 * retires the connection (the producer may still be sending). A reused connection that the peer had closed
 * before this stream got its first frame is replaced once by a fresh one, transparently: the request is
 * idempotent (producers only read).
 */
public final class PeerStream implements AutoCloseable {
  private static final Object END = new Object();
  /** The kept connection died before the stream began: ask again on a new one. */
  private static final Object RECONNECT = new Object();

  /** Opens a fresh (never pooled) connection to the same peer with the same credential. */
  @FunctionalInterface
  interface Reconnect {
    PeerConnection connect() throws PeerFailure;
  }

  private final Endpoint peer;
  private final long repairId;
  private final byte[] request;
  private final int window;
  private final long stallMs;
  private final Reconnect reconnect;
  private final LinkedBlockingQueue<Object> queue = new LinkedBlockingQueue<>();
  private final AtomicInteger buffered = new AtomicInteger();
  /** The most slices this stream held at once, received and not yet taken: its window in use. */
  private final AtomicInteger mostBuffered = new AtomicInteger();
  private final CompletableFuture<Void> ready = new CompletableFuture<>();
  private volatile PeerConnection connection;
  private volatile boolean reused;
  private volatile boolean received; // a frame of this stream arrived
  private volatile boolean closing;
  private volatile boolean lost; // a failure is queued; later ones add nothing
  private boolean ended; // the consumer took END (consumer thread)
  /** What {@link #await} took off the queue, handed out by the next poll (each taken once, whichever thread). */
  private final java.util.concurrent.atomic.AtomicReference<Object> pending =
      new java.util.concurrent.atomic.AtomicReference<>();

  PeerStream(Endpoint peer, long repairId, byte[] request, int window, long stallMs, Reconnect reconnect) {
    this.peer = peer;
    this.repairId = repairId;
    this.request = request;
    this.window = window;
    this.stallMs = stallMs;
    this.reconnect = reconnect;
  }

  public Endpoint peer() {
    return peer;
  }

  /** Starts this stream on a connection, which was kept from an earlier stream when {@code wasReused}. */
  void startOn(PeerConnection c, boolean wasReused) {
    connection = c;
    reused = wasReused;
    c.begin(this);
  }

  /** On the event loop, once the connection is authenticated: the request and the window of credits. */
  void sendRequest(Channel ch) {
    ch.write(Frame.bytes(FrameType.REQUEST, repairId, request));
    ch.writeAndFlush(Frame.of(FrameType.CREDIT, repairId, window));
    ready.complete(null);
  }

  /** Waits until the producer has authenticated and the request is sent. */
  void awaitReady(long timeoutMs) throws PeerFailure {
    try {
      ready.get(timeoutMs, TimeUnit.MILLISECONDS);
    } catch (java.util.concurrent.ExecutionException e) {
      throw e.getCause() instanceof PeerFailure p ? p : new PeerFailure(peer.node(), e.getCause().getMessage(), e.getCause());
    } catch (java.util.concurrent.TimeoutException e) {
      throw new PeerFailure(peer.node(), "no handshake from " + peer + " within " + timeoutMs + " ms");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new PeerFailure(null, "interrupted while connecting to " + peer);
    }
  }

  /**
   * Whether the stream failed before any frame of it arrived: its peer refused the request (busy, say) or could not be
   * reached. Nothing of it was consumed, so asking again may still succeed.
   */
  public boolean failedBeforeAnyFrame() {
    return lost && !received;
  }

  /** Whether a frame of this stream arrived. */
  boolean receivedAny() {
    return received;
  }

  /** A SLICE or END of this stream (event loop). */
  void onFrame(ChannelHandlerContext ctx, Frame f) {
    received = true;
    if (f.type() == FrameType.END) {
      queue.add(END);
      return;
    }
    if (closing) {
      return;
    }
    int held = buffered.incrementAndGet();
    mostBuffered.accumulateAndGet(held, Math::max);
    if (held > window) {
      connection.fail(new PeerFailure(peer.node(), peer + " sent more than the " + window + " slices it was granted"), false);
      ctx.close();
      return;
    }
    queue.add(f.retain());
    if (closing) { // close() ran between the check above and the add: nobody else will take it
      drain();
    }
  }

  /**
   * The connection failed while carrying this stream (event loop, or the caller of begin); {@code closed} when it
   * just closed, which on a kept connection that carried nothing of this stream yet means the peer had dropped it.
   */
  void connectionLost(PeerConnection from, PeerFailure f, boolean closed) {
    if (lost || from != connection) { // a replaced connection's last words
      return;
    }
    if (closed && reused && !received && f.culprit() != null) {
      reused = false; // replaced at most once
      queue.add(RECONNECT);
      return;
    }
    lost = true;
    ready.completeExceptionally(f);
    queue.add(f);
  }

  /** The next slice, which must be {@code expected}; the caller releases it and then calls {@link #credit}. */
  public Frame next(int expected) throws PeerFailure, InterruptedException {
    Object o = poll(expected);
    if (o == END) {
      throw new PeerFailure(peer.node(), peer + " ended its stream before slice " + expected);
    }
    return taken((Frame) o, expected);
  }

  /**
   * The next slice, which must be {@code expected}, or null when the producer ended its stream cleanly (a stream of
   * no fixed length: progress reports until the work is done). The caller releases a slice and then credits.
   */
  public Frame nextOrEnd(int expected) throws PeerFailure, InterruptedException {
    Object o = poll(expected);
    if (o == END) {
      ended = true;
      return null;
    }
    return taken((Frame) o, expected);
  }

  /** A slice taken off the queue, out of the window; one out of order is released and blames the producer. */
  private Frame taken(Frame f, int expected) throws PeerFailure {
    buffered.decrementAndGet();
    if (f.index() != expected) {
      f.release();
      throw new PeerFailure(peer.node(), peer + " sent slice " + f.index() + " where " + expected + " was due");
    }
    return f;
  }

  /**
   * The next slice, which must be {@code expected} and hold exactly {@code bytes} bytes (a producer that sends
   * another size is blamed); the caller releases it and then calls {@link #credit}.
   */
  public Frame next(int expected, int bytes) throws PeerFailure, InterruptedException {
    Frame f = next(expected);
    if (f.payload().readableBytes() != bytes) {
      f.release();
      throw new PeerFailure(peer.node(), peer + " sent " + f.payload().readableBytes() + " bytes for slice " + expected
          + ", expected " + bytes);
    }
    return f;
  }

  /**
   * Whether the next slice, END or failure arrived within {@code ms}, taking nothing: a consumer that must show life
   * to its own asker while a slow producer starts waits in such steps, then takes it with {@link #next}.
   */
  public boolean await(long ms) throws InterruptedException {
    if (pending.get() != null) {
      return true;
    }
    Object o = queue.poll(ms, TimeUnit.MILLISECONDS);
    if (o == null) {
      return false;
    }
    pending.set(o);
    if (closing) {
      drain(); // close() drained before this arrived
    }
    return true;
  }

  /** A slice or END; a failure is thrown (and stays); a dead kept connection is replaced once. */
  private Object poll(int expected) throws PeerFailure, InterruptedException {
    while (true) {
      Object held = pending.getAndSet(null);
      Object o = held != null ? held : queue.poll(stallMs, TimeUnit.MILLISECONDS);
      if (o == null) {
        TransportFaultInjector.get().onStall(peer.node(), repairId, expected);
        throw new PeerFailure(peer.node(), expected < 0
            ? peer + " did not end its stream within " + stallMs + " ms"
            : peer + " stalled: no slice " + expected + " within " + stallMs + " ms");
      }
      if (o instanceof PeerFailure p) {
        queue.add(p); // stays failed
        throw p;
      }
      if (o != RECONNECT) {
        return o;
      }
      connection.close();
      PeerConnection fresh = reconnect.connect();
      connection = fresh;
      if (closing) {
        fresh.close();
        throw new PeerFailure(null, "stream from " + peer + " closed");
      }
      fresh.begin(this);
      awaitReady(stallMs);
    }
  }

  /** The window this stream granted its producer, in slices. */
  public int window() {
    return window;
  }

  /**
   * The most slices this stream held at once, received from the producer and not yet taken: how much of its window
   * the producer kept in flight (never more than {@link #window}, which the producer would break).
   */
  public int mostSlicesHeld() {
    return mostBuffered.get();
  }

  public void credit() {
    connection.channel().writeAndFlush(Frame.of(FrameType.CREDIT, repairId, 1));
  }

  /** Checks that the producer ended its stream cleanly. */
  public void awaitEnd() throws PeerFailure, InterruptedException {
    Object o = poll(-1);
    if (o instanceof Frame f) {
      f.release();
      buffered.decrementAndGet();
      throw new PeerFailure(peer.node(), peer + " sent more slices than the repair has");
    }
    ended = true;
  }

  /**
   * Ends the consumer's part: a stream taken to its END returns its connection for reuse; otherwise the connection
   * is closed, and every slice still queued is released.
   */
  @Override
  public void close() {
    if (closing) {
      return;
    }
    closing = true;
    boolean clean = ended && queue.isEmpty() && pending.get() == null;
    drain();
    PeerConnection c = connection;
    if (c == null) {
      return;
    }
    if (clean && c.reusable()) {
      c.finished(this);
    } else {
      c.close();
    }
  }

  /** Releases every slice still queued (each is polled, so released, once whichever thread drains). */
  private void drain() {
    if (pending.getAndSet(null) instanceof Frame f) {
      f.release();
    }
    for (Object o; (o = queue.poll()) != null; ) {
      if (o instanceof Frame f) {
        f.release();
      }
    }
  }

  /**
   * The REQUEST payload: who asks and whom it asks, both as the requestor knows them (from the NameNode's view
   * of the topology, which DataNodes themselves lack), then the body.
   */
  static byte[] requestPayload(String node, String rack, Endpoint peer, byte[] body) {
    java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream();
    try (java.io.DataOutputStream out = new java.io.DataOutputStream(b)) {
      out.writeUTF(node);
      out.writeUTF(rack);
      out.writeUTF(peer.node());
      out.writeUTF(peer.rack());
      out.write(body);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return b.toByteArray();
  }
}
