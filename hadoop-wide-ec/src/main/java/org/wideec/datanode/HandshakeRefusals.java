package org.wideec.datanode;

import java.util.EnumMap;
import java.util.Map;
import org.apache.hadoop.metrics2.lib.MetricsRegistry;
import org.apache.hadoop.metrics2.lib.MutableCounterLong;
import org.wideec.transport.RefusalReason;

/**
 * The slice port's refused handshakes as metrics: those this DataNode refused, by reason, and its own that a peer
 * refused (a wrong secret here shows on both sides).
 */
final class HandshakeRefusals {
  private final Map<RefusalReason, MutableCounterLong> refused = new EnumMap<>(RefusalReason.class);
  private final MutableCounterLong own;

  HandshakeRefusals(MetricsRegistry registry) {
    for (RefusalReason r : RefusalReason.values()) {
      refused.put(r, registry.newCounter("HandshakesRefused" + RepairMetrics.camel(r.name()),
          "handshakes this DataNode's slice port refused: " + r, 0L));
    }
    own = registry.newCounter("OwnHandshakesRefused",
        "handshakes of this DataNode that a peer's slice port refused (a wrong secret here shows on both sides)", 0L);
  }

  void refused(RefusalReason why) {
    refused.get(why).incr();
  }

  void ownRefused() {
    own.incr();
  }

  long refusedCount(RefusalReason why) {
    return refused.get(why).value();
  }

  long ownRefusedCount() {
    return own.value();
  }
}
