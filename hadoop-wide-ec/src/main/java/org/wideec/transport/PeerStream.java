package org.wideec.transport;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The consumer's end of one stream: authenticates to the producer, sends the request and the initial window
 * of credits, then hands out slices in order, one credit back per slice taken. A slice beyond the granted
 * credit, a corrupt frame, an ERROR, a closed connection or a stall all surface as a {@link PeerFailure}
 * naming the node to blame.
 */
public final class PeerStream extends SimpleChannelInboundHandler<Frame> implements AutoCloseable {
  private static final Object END = new Object();
  private final Endpoint peer;
  private final Credential credential;
  private final FrameAuth auth;
  private final long repairId;
  private final byte[] request;
  private final int window;
  private final long stallMs;
  private final byte[] clientNonce = Handshake.nonce();
  private final LinkedBlockingQueue<Object> queue = new LinkedBlockingQueue<>();
  private final AtomicInteger buffered = new AtomicInteger();
  private final CompletableFuture<Void> ready = new CompletableFuture<>();
  private volatile Channel channel;
  private volatile boolean closing;
  private byte[] serverNonce; // event loop only

  PeerStream(Endpoint peer, Credential credential, FrameAuth auth, long repairId, byte[] request, int window, long stallMs) {
    this.peer = peer;
    this.credential = credential;
    this.auth = auth;
    this.repairId = repairId;
    this.request = request;
    this.window = window;
    this.stallMs = stallMs;
  }

  public Endpoint peer() {
    return peer;
  }

  void attach(Channel c) {
    this.channel = c;
  }

  /** Waits until the producer has authenticated and accepted the request. */
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

  @Override
  protected void channelRead0(ChannelHandlerContext ctx, Frame f) throws Exception {
    switch (f.type()) {
      case CHALLENGE -> {
        serverNonce = f.payloadBytes();
        ctx.writeAndFlush(Frame.bytes(FrameType.AUTH, repairId, Handshake.clientResponse(credential, serverNonce, clientNonce)));
      }
      case AUTH_OK -> {
        if (serverNonce == null) {
          throw new Handshake.AuthenticationException(peer + " skipped its challenge");
        }
        byte[][] keys = Handshake.verifyServer(credential, serverNonce, clientNonce, f.payloadBytes());
        if (keys != null) {
          auth.start(keys[0], keys[1]);
        }
        auth.handshakeDone();
        ctx.write(Frame.bytes(FrameType.REQUEST, repairId, request));
        ctx.writeAndFlush(Frame.of(FrameType.CREDIT, repairId, window));
        ready.complete(null);
      }
      case SLICE -> {
        if (closing) {
          return;
        }
        if (buffered.incrementAndGet() > window) {
          fail(new PeerFailure(peer.node(), peer + " sent more than the " + window + " slices it was granted"));
          ctx.close();
          return;
        }
        queue.add(f.retain());
        if (closing) { // close() ran between the check above and the add: nobody else will take it
          drain();
        }
      }
      case END -> queue.add(END);
      case ERROR -> {
        String text = f.payloadText();
        int tab = text.indexOf('\t');
        // Refused before the stream began: the peer itself is to blame, under the name we know it by.
        String culprit = !ready.isDone() ? peer.node() : tab > 0 ? text.substring(0, tab) : null;
        fail(new PeerFailure(culprit, tab >= 0 ? text.substring(tab + 1) : text));
      }
      default -> {
        fail(new PeerFailure(peer.node(), peer + " sent an unexpected " + f.type()));
        ctx.close();
      }
    }
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    if (closing) {
      return;
    }
    if (ctx.channel().eventLoop().isShuttingDown()) { // our own transport is closing: no helper is to blame
      fail(new PeerFailure(null, "connection to " + peer + " closed: this node's slice transport is closing"));
    } else {
      fail(new PeerFailure(peer.node(), "connection to " + peer + " closed before the stream ended"));
    }
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    String what = cause instanceof CorruptSliceException ? "corrupt data from " : "stream from ";
    fail(new PeerFailure(peer.node(), what + peer + ": " + cause.getMessage(), cause));
    ctx.close();
  }

  private void fail(PeerFailure f) {
    ready.completeExceptionally(f);
    queue.add(f);
  }

  /** The next slice, which must be {@code expected}; the caller releases it and then calls {@link #credit}. */
  public Frame next(int expected) throws PeerFailure, InterruptedException {
    Object o = queue.poll(stallMs, TimeUnit.MILLISECONDS);
    if (o == null) {
      TransportFaultInjector.get().onStall(peer.node(), repairId, expected);
      throw new PeerFailure(peer.node(), peer + " stalled: no slice " + expected + " within " + stallMs + " ms");
    }
    if (o instanceof PeerFailure p) {
      queue.add(p); // stays failed
      throw p;
    }
    if (o == END) {
      throw new PeerFailure(peer.node(), peer + " ended its stream before slice " + expected);
    }
    Frame f = (Frame) o;
    buffered.decrementAndGet();
    if (f.index() != expected) {
      f.release();
      throw new PeerFailure(peer.node(), peer + " sent slice " + f.index() + " where " + expected + " was due");
    }
    return f;
  }

  public void credit() {
    channel.writeAndFlush(Frame.of(FrameType.CREDIT, repairId, 1));
  }

  /** Checks that the producer ended its stream cleanly. */
  public void awaitEnd() throws PeerFailure, InterruptedException {
    Object o = queue.poll(stallMs, TimeUnit.MILLISECONDS);
    if (o == END) {
      return;
    }
    if (o instanceof Frame f) {
      f.release();
      throw new PeerFailure(peer.node(), peer + " sent more slices than the repair has");
    }
    if (o == null) {
      TransportFaultInjector.get().onStall(peer.node(), repairId, -1);
    }
    throw o instanceof PeerFailure p ? p : new PeerFailure(peer.node(), peer + " did not end its stream within " + stallMs + " ms");
  }

  @Override
  public void close() {
    closing = true;
    Channel c = channel;
    if (c != null) {
      c.close();
    }
    drain();
  }

  /** Releases every slice still queued (each is polled, so released, once whichever thread drains). */
  private void drain() {
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
