package org.wideec.engine;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.wideec.transport.PeerFailure;
import org.wideec.transport.PeerStream;
import org.wideec.transport.SliceTransport;

/**
 * The upstream streams a helper started when told its step ahead ({@link org.wideec.protocol.DialAheadRequest}), kept
 * for the request its downstream sends a moment later. ECPipe's coordinator tells every helper its part at once and
 * each starts at once (ECPipe §5); asked from its end, a chain's far helper starts only after the request has passed
 * every hop (ECPipe §3.2), each hop's screen, thread hand-off and send in turn: 40-60 ms of a 1 MiB degraded read's
 * 0.21 s on the multi-process cluster. Told, a helper sends its upstreams the very requests its own step would send
 * them, and they stream into the started streams within the transport's window (credit-bounded: nothing past it
 * moves) until the step's request arrives here and takes them. Matched exactly: the same chain (its id) and the same
 * request bytes to the same port, so a step takes only what it would have asked for itself.
 *
 * <p>Only an optimization, and bounded: the word is answered at once and its streams are started on a few threads of
 * their own (none free: the word starts nothing, as a late word is worth nothing), at most {@link #MOST_KEPT} streams
 * are kept at once, and one no request takes within its lifetime (a quarter of the stall timeout, at most
 * {@link #MOST_LIFETIME_MS}) is closed, long before its upstream, waiting for credit, would give it up. A request that
 * arrives before the word opens its upstreams itself and leaves a mark for the same lifetime, so the late word starts
 * nothing twice.
 */
final class StartedAhead {
  /** Streams kept at once on one node, started and not yet taken or let go. */
  static final int MOST_KEPT = 64;
  /** The longest a started stream waits for its request: a chain's requests follow their words within a few hops. */
  static final long MOST_LIFETIME_MS = 2000;
  private static final ScheduledThreadPoolExecutor EXPIRY = expiry();
  /** Threads that start a node's streams at once; none free, the word starts nothing. */
  static final int STARTERS = 4;

  /** One request to one upstream of one chain. */
  private record Key(long repairId, String host, int port, ByteBuffer body) {
    static Key of(long repairId, SliceTransport.Ask a) {
      return new Key(repairId, a.peer().host(), a.peer().port(), ByteBuffer.wrap(a.body()));
    }
  }

  /** A stream started (or being started) ahead; or, with no stream, the mark a step that asked first leaves. */
  private record Entry(CompletableFuture<PeerStream> stream) {}

  private final SliceTransport transport;
  /**
   * This node's: a process that runs many nodes (a test's cluster) must not let one node's slow starts, each waiting
   * on its upstream's connect, discard another node's words. Idle, it holds no thread.
   */
  private final ExecutorService starters = new ThreadPoolExecutor(0, STARTERS, 30, TimeUnit.SECONDS,
      new SynchronousQueue<>(), daemons("wide-ec-start-ahead-"), new ThreadPoolExecutor.DiscardPolicy());
  private final ConcurrentHashMap<Key, Entry> entries = new ConcurrentHashMap<>();
  /** Started entries in the map (the marks are not counted). */
  private final AtomicInteger kept = new AtomicInteger();
  private final AtomicLong started = new AtomicLong();
  private final AtomicLong taken = new AtomicLong();
  /** Words whose start has run to its end, whatever it started. */
  private final AtomicLong settled = new AtomicLong();

  StartedAhead(SliceTransport transport) {
    this.transport = transport;
  }

  private long lifetimeMs() {
    return Math.max(1, Math.min(MOST_LIFETIME_MS, transport.conf().stallTimeoutMs() / 4));
  }

  /**
   * Asks the upstreams soon, on a thread of its own, for a step whose request is on its way (a told helper's part):
   * every ask not started or asked already, if the node keeps room for them. Returns at once.
   */
  void start(String me, String rack, long repairId, List<SliceTransport.Ask> asks) {
    starters.execute(() -> {
      try {
        startNow(me, rack, repairId, asks);
      } finally {
        settled.incrementAndGet();
      }
    });
  }

  private void startNow(String me, String rack, long repairId, List<SliceTransport.Ask> asks) {
    if (kept.addAndGet(asks.size()) > MOST_KEPT) {
      kept.addAndGet(-asks.size());
      return;
    }
    List<SliceTransport.Ask> mine = new ArrayList<>(asks.size());
    List<Entry> mineKept = new ArrayList<>(asks.size());
    for (SliceTransport.Ask a : asks) {
      Key k = Key.of(repairId, a);
      Entry e = new Entry(new CompletableFuture<>());
      if (entries.putIfAbsent(k, e) == null) {
        mine.add(a);
        mineKept.add(e);
        expire(k, e);
      } else {
        kept.decrementAndGet();
      }
    }
    if (mine.isEmpty()) {
      return;
    }
    List<PeerStream> streams;
    try {
      streams = transport.openAll(me, rack, repairId, mine);
    } catch (Throwable t) { // a failure here only leaves the step to ask itself; nothing escapes into the thread
      mineKept.forEach(e -> e.stream().completeExceptionally(t));
      return;
    }
    started.addAndGet(streams.size());
    for (int i = 0; i < streams.size(); i++) {
      mineKept.get(i).stream().complete(streams.get(i));
    }
  }

  /**
   * The step's upstream streams, in the asks' order: each one started ahead taken, the rest opened now together.
   *
   * @throws PeerFailure as {@link SliceTransport#openAll}, or the failure to reach an upstream that the start met
   *     already; every stream taken or opened is then closed
   */
  List<PeerStream> open(String me, String rack, long repairId, List<SliceTransport.Ask> asks) throws PeerFailure,
      InterruptedException {
    PeerStream[] got = new PeerStream[asks.size()];
    List<SliceTransport.Ask> rest = new ArrayList<>(asks.size());
    boolean done = false;
    try {
      for (int i = 0; i < asks.size(); i++) {
        got[i] = take(Key.of(repairId, asks.get(i)), asks.get(i).peer().node());
        if (got[i] == null) {
          rest.add(asks.get(i));
        }
      }
      List<PeerStream> opened = rest.isEmpty() ? List.of() : transport.openAll(me, rack, repairId, rest);
      List<PeerStream> all = new ArrayList<>(asks.size());
      int next = 0;
      for (PeerStream s : got) {
        all.add(s != null ? s : opened.get(next++));
      }
      done = true;
      return all;
    } finally {
      if (!done) {
        for (PeerStream s : got) {
          if (s != null) {
            s.close();
          }
        }
      }
    }
  }

  /**
   * The stream started ahead for this request, waiting a while for one still starting; null (and a mark) when there
   * is none, or it was refused before it carried anything (asked again now).
   *
   * @throws PeerFailure when the start could not reach {@code node} itself: asking again would only wait as long again
   */
  private PeerStream take(Key k, String node) throws PeerFailure, InterruptedException {
    Entry mark = new Entry(null);
    Entry found = entries.put(k, mark);
    expire(k, mark);
    if (found == null || found.stream() == null) {
      return null;
    }
    kept.decrementAndGet();
    long waitMs = Math.min(transport.conf().connectTimeoutMs(), transport.conf().stallTimeoutMs() / 2);
    PeerStream s;
    try {
      s = found.stream().get(waitMs, TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof PeerFailure f && node.equals(f.culprit())) {
        throw f;
      }
      return null;
    } catch (TimeoutException e) {
      found.stream().thenAccept(PeerStream::close);
      return null;
    } catch (InterruptedException e) {
      found.stream().thenAccept(PeerStream::close);
      throw e;
    }
    if (s.failedBeforeAnyFrame()) {
      s.close();
      return null;
    }
    taken.incrementAndGet();
    return s;
  }

  /** Forgets the entry after its lifetime, closing a stream nobody took. */
  private void expire(Key k, Entry e) {
    EXPIRY.schedule(() -> {
      if (entries.remove(k, e) && e.stream() != null) {
        kept.decrementAndGet();
        e.stream().thenAccept(PeerStream::close);
      }
    }, lifetimeMs(), TimeUnit.MILLISECONDS);
  }

  /** Streams started ahead so far, how many a step's request took, and the words whose start ran: {started, taken, words}. */
  long[] counts() {
    return new long[] {started.get(), taken.get(), settled.get()};
  }

  private static ScheduledThreadPoolExecutor expiry() {
    ScheduledThreadPoolExecutor s = new ScheduledThreadPoolExecutor(1, daemons("wide-ec-started-ahead-expiry-"));
    s.setRemoveOnCancelPolicy(true);
    return s;
  }

  private static java.util.concurrent.ThreadFactory daemons(String prefix) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, prefix + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }
}
