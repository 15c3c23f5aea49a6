package org.wideec.client;

import java.util.concurrent.atomic.AtomicLong;

/**
 * What {@link WideEcFileSystem}'s reads did, so tests and operators can tell the code-aware path from
 * the stock one: healthy groups must never show up here.
 */
public final class ReadPathCounters {
  final AtomicLong degradedReads = new AtomicLong();
  final AtomicLong unitsFetched = new AtomicLong();
  final AtomicLong bytesFetched = new AtomicLong();
  final AtomicLong bytesDecoded = new AtomicLong();
  final AtomicLong stockFallbacks = new AtomicLong();
  final AtomicLong readsAroundUnreachable = new AtomicLong();
  final AtomicLong pipelinedReads = new AtomicLong();
  final AtomicLong pipelinedFallbacks = new AtomicLong();
  final AtomicLong hedgedReads = new AtomicLong();
  final AtomicLong hedgesFired = new AtomicLong();
  final AtomicLong hedgesWithheld = new AtomicLong();
  final AtomicLong directFirstReads = new AtomicLong();
  final AtomicLong degradedReadMicros = new AtomicLong();
  final AtomicLong chainsTimed = new AtomicLong();
  final AtomicLong chainSetupMicros = new AtomicLong();
  final AtomicLong chainFirstSliceMicros = new AtomicLong();
  final AtomicLong chainMicros = new AtomicLong();
  final AtomicLong chainHops = new AtomicLong();
  final AtomicLong bytesFromChains = new AtomicLong();
  final AtomicLong archivedReads = new AtomicLong();
  final AtomicLong bytesFromArchivedReads = new AtomicLong();
  final AtomicLong bytesFromSealedReads = new AtomicLong();

  /** Bytes of sealed (non-systematic) files decoded from their codewords. */
  public long bytesFromSealedReads() {
    return bytesFromSealedReads.get();
  }

  /** Ranges of degraded block groups read by our path (one per plan carried out). */
  public long degradedReads() {
    return degradedReads.get();
  }

  /** Internal-block ranges fetched from DataNodes by our path. */
  public long unitsFetched() {
    return unitsFetched.get();
  }

  public long bytesFetched() {
    return bytesFetched.get();
  }

  /** Bytes of lost data cells rebuilt by our path. */
  public long bytesDecoded() {
    return bytesDecoded.get();
  }

  /** Stock reads of a group the NameNode listed as whole that failed and were served by our path. */
  public long stockFallbacks() {
    return stockFallbacks.get();
  }

  /**
   * Reads of a group the NameNode lists whole but with a data unit on a DataNode this FileSystem could not reach lately
   * (one that died and is not yet declared dead): read by our path around that DataNode, as if the NameNode had
   * dropped it, instead of by HDFS's striped reader. Each is also counted in {@link #degradedReads()}.
   */
  public long readsAroundUnreachable() {
    return readsAroundUnreachable.get();
  }

  /**
   * Degraded reads whose lost rows were rebuilt by a chain of DataNodes and sent to this client once, from the
   * chain's end (ECPipe §3.2); each is also counted in {@link #degradedReads()}.
   */
  public long pipelinedReads() {
    return pipelinedReads.get();
  }

  /**
   * Degraded reads that asked for a chain (wide-ec.client.degraded-read=pipelined, one lost unit in the range) and
   * were read by direct decode instead: the chain failed, no slice port was found, a token was refused, or the
   * client's slice transport could not start.
   */
  public long pipelinedFallbacks() {
    return pipelinedFallbacks.get();
  }

  /**
   * Degraded reads whose chain had not delivered within wide-ec.client.degraded-read.hedge.ms and that direct decode,
   * started then beside it, served first (the chain was cancelled). Counted neither as pipelined reads nor as
   * fallbacks; each is also counted in {@link #degradedReads()}.
   */
  public long hedgedReads() {
    return hedgedReads.get();
  }

  /**
   * Chains raced by direct decode because they had not delivered within wide-ec.client.degraded-read.hedge.ms,
   * whichever then served the read ({@link #hedgedReads()} counts those direct decode won).
   */
  public long hedgesFired() {
    return hedgesFired.get();
  }

  /**
   * Chains that had not delivered their whole range within wide-ec.client.degraded-read.hedge.ms but were delivering
   * at a pace that finished them within another such delay, so direct decode was not started beside them then (it is
   * if they stop keeping that pace: {@link #hedgesFired()} counts those too).
   */
  public long hedgesWithheld() {
    return hedgesWithheld.get();
  }

  /**
   * Degraded reads of one lost unit that decoded directly at once, without a chain, because a chain of this
   * FileSystem was overtaken by direct decode less than wide-ec.client.degraded-read.direct-after-overtaken.ms ago
   * (its helpers were queued, in practice behind the repair of the same unit). Each is also counted in
   * {@link #degradedReads()}, and in neither {@link #hedgedReads()} nor {@link #pipelinedFallbacks()}.
   */
  public long directFirstReads() {
    return directFirstReads.get();
  }

  /** Wall time of every degraded read, whichever path served it, in microseconds (divide by degradedReads). */
  public long degradedReadMicros() {
    return degradedReadMicros.get();
  }

  /** Chains that delivered their range; the chain timings below are sums over these. */
  public long chainsTimed() {
    return chainsTimed.get();
  }

  /** Microseconds chains spent finding their helpers' slice ports and planning. */
  public long chainSetupMicros() {
    return chainSetupMicros.get();
  }

  /** Microseconds from a chain's start until its first slice reached this client (set-up and the chain's fill). */
  public long chainFirstSliceMicros() {
    return chainFirstSliceMicros.get();
  }

  /** Microseconds from a chain's start until its last slice reached this client. */
  public long chainMicros() {
    return chainMicros.get();
  }

  /** Helpers (hops) of the chains that delivered. */
  public long chainHops() {
    return chainHops.get();
  }

  /** Bytes received from repair chains (the lost rows, widened to whole checksum chunks). */
  public long bytesFromChains() {
    return bytesFromChains.get();
  }

  /**
   * Ranges of archived files' blocks that had no live replica, rebuilt by a DataNode through a chain of the stripe's
   * other members and received from it once (DESIGN.md §3.2).
   */
  public long archivedReads() {
    return archivedReads.get();
  }

  /** Bytes received from those rebuilds (exactly the ranges read). */
  public long bytesFromArchivedReads() {
    return bytesFromArchivedReads.get();
  }

  @Override
  public String toString() {
    return "degradedReads=" + degradedReads + " unitsFetched=" + unitsFetched + " bytesFetched=" + bytesFetched
        + " bytesDecoded=" + bytesDecoded + " stockFallbacks=" + stockFallbacks + " pipelinedReads=" + pipelinedReads
        + " pipelinedFallbacks=" + pipelinedFallbacks + " hedgedReads=" + hedgedReads + " hedgesFired=" + hedgesFired
        + " hedgesWithheld=" + hedgesWithheld + " directFirstReads=" + directFirstReads + " degradedReadMicros="
        + degradedReadMicros + " chainsTimed=" + chainsTimed + " chainSetupMicros=" + chainSetupMicros + " chainFirstSliceMicros=" + chainFirstSliceMicros
        + " chainMicros=" + chainMicros + " chainHops=" + chainHops + " bytesFromChains=" + bytesFromChains
        + " archivedReads=" + archivedReads + " bytesFromArchivedReads=" + bytesFromArchivedReads;
  }
}
