package org.wideec.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.wideec.protocol.DialAheadRequest;
import org.wideec.protocol.StepRequest;
import org.wideec.transport.PeerFailure;
import org.wideec.transport.PeerStream;
import org.wideec.transport.SliceTransport;

/**
 * A requestor's parallel set-up of its plan's chains, as ECPipe's coordinator notifies every helper at once (ECPipe
 * §5): every inner helper (one below a stream's head that has upstreams of its own) is told its step
 * ({@link DialAheadRequest}) and asks its upstreams at once, keeping what they send for the request that follows
 * ({@link StartedAhead}). A chain is otherwise set up one hop after another (ECPipe §3.2, asked from its end): each
 * helper asks its upstream only when its own request arrived, so m helpers pay m connects, handshakes and hand-offs in
 * turn, and on a cluster under recovery each pays the queues of links busy with other chains' slices (0.4-1.5 s a hop
 * in the lost node's rack on the real-process cluster). Told ahead, every hop starts about two handshakes in. Only an
 * optimization: a helper that cannot be told, refuses, runs an earlier release or is told after its request arrived
 * sets its part up as before, and nothing of the repair waits for the word.
 */
final class DialAhead {
  private static final Logger LOG = LoggerFactory.getLogger(DialAhead.class);
  /**
   * Few threads, each waiting only for connects and one-frame answers; when all are busy a plan is set up the old way
   * rather than queued behind others (a late word is worth nothing).
   */
  private static final ExecutorService TELLERS = new ThreadPoolExecutor(0, 8, 30, TimeUnit.SECONDS,
      new SynchronousQueue<>(), daemons(), new ThreadPoolExecutor.DiscardPolicy());

  private final SliceTransport transport;

  DialAhead(SliceTransport transport) {
    this.transport = transport;
  }

  /**
   * The words for the inner helpers of streams headed by {@code heads} (each head's endpoint and request): each inner
   * step with upstreams, asked at its own endpoint under the credential its unit's token gives (a client's) or this
   * node's own (a DataNode's). A step its downstream folds in ({@link SliceStep#folds}: the same node) is never asked
   * for a stream, so it is not told either; its downstream dials its upstreams.
   */
  List<SliceTransport.Ask> asks(List<StepRequest.Upstream> heads) throws PeerFailure {
    List<SliceTransport.Ask> asks = new ArrayList<>();
    for (StepRequest.Upstream head : heads) {
      collect(head.endpoint().node(), head.request(), asks);
    }
    return asks;
  }

  private void collect(String node, StepRequest step, List<SliceTransport.Ask> asks) throws PeerFailure {
    for (StepRequest.Upstream u : step.upstreams()) {
      if (!u.request().upstreams().isEmpty() && !SliceStep.folds(step, u, node)) {
        asks.add(new SliceTransport.Ask(u.endpoint(), new DialAheadRequest(u.request()).toBytes(),
            transport.credentialFor(u.request().unit().token()), 1));
      }
      collect(u.endpoint().node(), u.request(), asks);
    }
  }

  /** Tells the inner helpers in the background; returns at once. */
  void tell(String myNode, String myRack, long repairId, List<StepRequest.Upstream> heads) {
    List<SliceTransport.Ask> asks;
    try {
      asks = asks(heads);
    } catch (PeerFailure e) {
      return; // a malformed token: the chain's own requests will say so
    }
    if (asks.isEmpty()) {
      return;
    }
    TELLERS.execute(() -> {
      List<PeerStream> told = List.of();
      try {
        told = transport.openAll(myNode, myRack, repairId, asks);
        for (PeerStream s : told) {
          s.awaitEnd();
        }
      } catch (PeerFailure e) {
        LOG.debug("{}: could not tell every inner helper to dial ahead: {}", myNode, e.getMessage());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } finally {
        told.forEach(PeerStream::close);
      }
    });
  }

  private static java.util.concurrent.ThreadFactory daemons() {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, "wide-ec-dial-ahead-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }
}
