package org.wideec.engine;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
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
 * <p>Only an optimization. A stream no request takes within its lifetime (a quarter of the stall timeout, so its
 * upstream, waiting for credit, never gives it up first) is closed; a request that arrives before the word opens its
 * upstreams itself and leaves a mark for the mark's lifetime, so the late word starts nothing twice.
 */
final class StartedAhead {
  private static final ScheduledThreadPoolExecutor EXPIRY = expiry();

  /** One request to one upstream of one chain. */
  private record Key(long repairId, String host, int port, ByteBuffer body) {
    static Key of(long repairId, SliceTransport.Ask a) {
      return new Key(repairId, a.peer().host(), a.peer().port(), ByteBuffer.wrap(a.body()));
    }
  }

  /** A stream started (or being started) ahead; or, with no stream, the mark a step that asked first leaves. */
  private static final class Entry {
    final CompletableFuture<PeerStream> stream;

    Entry(CompletableFuture<PeerStream> stream) {
      this.stream = stream;
    }
  }

  private final SliceTransport transport;
  private final ConcurrentHashMap<Key, Entry> entries = new ConcurrentHashMap<>();
  private final AtomicLong started = new AtomicLong();
  private final AtomicLong taken = new AtomicLong();

  StartedAhead(SliceTransport transport) {
    this.transport = transport;
  }

  private long lifetimeMs() {
    return Math.max(1, transport.conf().stallTimeoutMs() / 4);
  }

  /**
   * Asks the upstreams now, for a step whose request is on its way (a told helper's part): every ask not started or
   * asked already. Returns once the requests are sent; a failure to reach one only leaves the step to ask itself.
   */
  void start(String me, String rack, long repairId, List<SliceTransport.Ask> asks) throws InterruptedException {
    List<SliceTransport.Ask> mine = new ArrayList<>(asks.size());
    List<Entry> kept = new ArrayList<>(asks.size());
    for (SliceTransport.Ask a : asks) {
      Key k = Key.of(repairId, a);
      Entry e = new Entry(new CompletableFuture<>());
      if (entries.putIfAbsent(k, e) == null) {
        mine.add(a);
        kept.add(e);
        expire(k, e);
      }
    }
    if (mine.isEmpty()) {
      return;
    }
    List<PeerStream> streams;
    try {
      streams = transport.openAll(me, rack, repairId, mine);
    } catch (PeerFailure f) {
      kept.forEach(e -> e.stream.completeExceptionally(f));
      return;
    }
    started.addAndGet(streams.size());
    for (int i = 0; i < streams.size(); i++) {
      if (!kept.get(i).stream.complete(streams.get(i))) {
        streams.get(i).close();
      }
    }
  }

  /**
   * The step's upstream streams, in the asks' order: each one started ahead taken, the rest opened now together.
   *
   * @throws PeerFailure as {@link SliceTransport#openAll}; every stream taken or opened is then closed
   */
  List<PeerStream> open(String me, String rack, long repairId, List<SliceTransport.Ask> asks) throws PeerFailure,
      InterruptedException {
    PeerStream[] got = new PeerStream[asks.size()];
    List<SliceTransport.Ask> rest = new ArrayList<>(asks.size());
    boolean done = false;
    try {
      for (int i = 0; i < asks.size(); i++) {
        got[i] = take(Key.of(repairId, asks.get(i)));
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

  /** The stream started ahead for this request, waiting for one still starting; null (and a mark) when there is none. */
  private PeerStream take(Key k) throws InterruptedException {
    Entry mark = new Entry(null);
    Entry found = entries.put(k, mark);
    expire(k, mark);
    if (found == null || found.stream == null) {
      return null;
    }
    long waitMs = transport.conf().connectTimeoutMs() + transport.conf().stallTimeoutMs();
    try {
      PeerStream s = found.stream.get(waitMs, TimeUnit.MILLISECONDS);
      taken.incrementAndGet();
      return s;
    } catch (ExecutionException e) {
      return null; // it could not be started: asked again now, whose failure names the node to blame
    } catch (TimeoutException e) {
      found.stream.thenAccept(PeerStream::close);
      return null;
    }
  }

  /** Forgets the entry after its lifetime, closing a stream nobody took. */
  private void expire(Key k, Entry e) {
    EXPIRY.schedule(() -> {
      if (entries.remove(k, e) && e.stream != null) {
        e.stream.thenAccept(PeerStream::close);
      }
    }, lifetimeMs(), TimeUnit.MILLISECONDS);
  }

  /** Streams started ahead so far, and how many a step's request took: {started, taken}. */
  long[] counts() {
    return new long[] {started.get(), taken.get()};
  }

  private static ScheduledThreadPoolExecutor expiry() {
    AtomicInteger n = new AtomicInteger();
    ScheduledThreadPoolExecutor s = new ScheduledThreadPoolExecutor(1, r -> {
      Thread t = new Thread(r, "wide-ec-started-ahead-expiry-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
    s.setRemoveOnCancelPolicy(true);
    return s;
  }
}
