package org.wideec.cluster;

import java.util.LinkedHashMap;
import java.util.Map;
import org.wideec.client.ReadPathCounters;

/**
 * Which path served our FileSystem's degraded reads over a stretch of a run, and where a delivering chain's time went:
 * the counters' differences, so a ratio in the results can be told apart (a chain, direct decode that overtook one,
 * direct decode at once). A read of a group the NameNode lists whole goes through HDFS's own striped stream and none
 * of these count it unless that stream fails on it ({@code stockFallbacks}): a lost range read while the NameNode
 * still lists its dead holder and counted nowhere was decoded by HDFS's stream (our raw decoder, k units): a stream's
 * first read after the holder died; the FileSystem then reads around it ({@code aroundUnreachable}).
 */
final class ReadPaths {
  private final long[] before;

  ReadPaths(ReadPathCounters c) {
    before = values(c);
  }

  private static long[] values(ReadPathCounters c) {
    return new long[] {c.degradedReads(), c.pipelinedReads(), c.hedgedReads(), c.directFirstReads(),
        c.pipelinedFallbacks(), c.hedgesFired(), c.chainsTimed(), c.chainFirstSliceMicros(), c.chainMicros(),
        c.hedgesWithheld(), c.stockFallbacks(), c.readsAroundUnreachable()};
  }

  /** The counts since construction, with the delivering chains' mean times to their first and last slice. */
  Map<String, Object> since(ReadPathCounters c) {
    long[] now = values(c);
    long[] d = new long[now.length];
    for (int i = 0; i < d.length; i++) {
      d[i] = now[i] - before[i];
    }
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("degradedReads", d[0]);
    // Stock reads that failed on a group listed whole and were read again by our path (a DataNode died since).
    m.put("stockFallbacks", d[10]);
    // Groups listed whole but read around a DataNode a stream of this FileSystem could not reach (dead, still listed).
    m.put("aroundUnreachable", d[11]);
    m.put("byChain", d[1]);
    m.put("byDirectDecodeOvertakingAChain", d[2]);
    m.put("byDirectDecodeAtOnce", d[3]);
    m.put("chainFallbacks", d[4]);
    m.put("hedgesFired", d[5]);
    m.put("hedgesWithheld", d[9]);
    m.put("chainFirstSliceMillisMean", d[6] == 0 ? null : Phase.round(d[7] / 1000.0 / d[6]));
    m.put("chainMillisMean", d[6] == 0 ? null : Phase.round(d[8] / 1000.0 / d[6]));
    return m;
  }
}
