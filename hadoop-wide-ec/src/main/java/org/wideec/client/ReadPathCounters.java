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

  @Override
  public String toString() {
    return "degradedReads=" + degradedReads + " unitsFetched=" + unitsFetched + " bytesFetched=" + bytesFetched
        + " bytesDecoded=" + bytesDecoded + " stockFallbacks=" + stockFallbacks;
  }
}
