package org.wideec.transport;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Authenticated connections to peers' slice ports, kept after their stream ended cleanly so that the next request
 * to the same peer skips the connect and the handshake: a chain of m helpers otherwise pays m of them one after the
 * other before its first slice moves, which was most of a pipelined degraded read's overhead. At most {@link PeerLimits#poolMaxIdlePerPeer} per peer, each for at most
 * {@link PeerLimits#poolIdleMs}; the most recently used is reused first, so the rest age out. Thread-safe.
 */
final class ConnectionPool {
  /** Whom a connection reaches and what it proved: only a connection proving the same kind of credential is reused. */
  record Key(String host, int port, Credential.Mode mode) {}

  private final int maxIdlePerPeer;
  private final long idleNanos;
  private final Map<Key, ArrayDeque<PeerConnection>> idle = new HashMap<>();
  private boolean closed;

  ConnectionPool(PeerLimits limits) {
    this.maxIdlePerPeer = limits.poolMaxIdlePerPeer();
    this.idleNanos = limits.poolIdleMs() * 1_000_000L;
  }

  /** A kept connection to the peer that is still open and not too old, or null. */
  PeerConnection borrow(Key key) {
    List<PeerConnection> stale = new ArrayList<>();
    PeerConnection found = null;
    synchronized (this) {
      ArrayDeque<PeerConnection> q = idle.get(key);
      long now = System.nanoTime();
      while (q != null && !q.isEmpty()) {
        PeerConnection c = q.pollLast();
        if (c.reusable() && now - c.idleSince < idleNanos) {
          found = c;
          break;
        }
        stale.add(c);
      }
      if (q != null && q.isEmpty()) {
        idle.remove(key);
      }
    }
    stale.forEach(PeerConnection::close);
    return found;
  }

  /** Keeps a connection whose stream ended cleanly, or closes it when the pool is full, off or closed. */
  void release(PeerConnection c) {
    synchronized (this) {
      if (!closed && maxIdlePerPeer > 0 && c.reusable()) {
        ArrayDeque<PeerConnection> q = idle.computeIfAbsent(c.key, k -> new ArrayDeque<>());
        if (q.size() < maxIdlePerPeer) {
          c.idleSince = System.nanoTime();
          q.addLast(c);
          return;
        }
      }
    }
    c.close();
  }

  /** Forgets a connection that closed while kept (the peer restarted, or timed it out). */
  synchronized void remove(PeerConnection c) {
    ArrayDeque<PeerConnection> q = idle.get(c.key);
    if (q != null && q.remove(c) && q.isEmpty()) {
      idle.remove(c.key);
    }
  }

  /** Closes the connections kept longer than the pool's idle time, so peers are not left holding them. */
  void sweep() {
    List<PeerConnection> expired = new ArrayList<>();
    synchronized (this) {
      long now = System.nanoTime();
      for (Iterator<ArrayDeque<PeerConnection>> it = idle.values().iterator(); it.hasNext(); ) {
        ArrayDeque<PeerConnection> q = it.next();
        q.removeIf(c -> {
          boolean old = now - c.idleSince >= idleNanos || !c.reusable();
          if (old) {
            expired.add(c);
          }
          return old;
        });
        if (q.isEmpty()) {
          it.remove();
        }
      }
    }
    expired.forEach(PeerConnection::close);
  }

  /** Kept connections now (for tests and metrics). */
  synchronized int size() {
    return idle.values().stream().mapToInt(ArrayDeque::size).sum();
  }

  /** Closes every kept connection; later releases close theirs. */
  void close() {
    List<PeerConnection> all = new ArrayList<>();
    synchronized (this) {
      closed = true;
      idle.values().forEach(all::addAll);
      idle.clear();
    }
    all.forEach(PeerConnection::close);
  }
}
