package org.wideec.update;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What one scheme's updates of a trace cost in cross-rack traffic (RackCU §V-B's measure).
 *
 * @param updates trace updates replayed
 * @param stripeUpdates per-stripe updates they made (an update spanning two stripes counts twice)
 * @param changedChunks data chunks changed, summed over the updates
 * @param crossRackChunks chunks sent across racks to renew the parities
 * @param chunkBytes the chunk size
 */
public record UpdateTraffic(String scheme, long updates, long stripeUpdates, long changedChunks, long crossRackChunks,
    int chunkBytes) {
  public long crossRackBytes() {
    return crossRackChunks * chunkBytes;
  }

  /** Cross-rack chunks per changed data chunk. */
  public double crossRackChunksPerChangedChunk() {
    return changedChunks == 0 ? 0 : (double) crossRackChunks / changedChunks;
  }

  public Map<String, Object> toJson() {
    Map<String, Object> j = new LinkedHashMap<>();
    j.put("scheme", scheme);
    j.put("updates", updates);
    j.put("stripeUpdates", stripeUpdates);
    j.put("changedChunks", changedChunks);
    j.put("crossRackChunks", crossRackChunks);
    j.put("crossRackBytes", crossRackBytes());
    return j;
  }
}
