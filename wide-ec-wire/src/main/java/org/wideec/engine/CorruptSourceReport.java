package org.wideec.engine;

import java.io.IOException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.wideec.repair.CorruptSources;
import org.wideec.repair.StripeRepair;
import org.wideec.repair.UnitLocation;
import org.wideec.transport.PeerFailure;

/**
 * A repair's report of the source replicas its helpers found corrupt: when a failure names the blamed helper's own
 * unit's replica as corrupt ({@link CorruptSources#blockIn}), its listener is told before the next attempt, so a
 * repair never completes while its corrupt source still counts as live. A report that fails is logged; the repair
 * goes on.
 */
final class CorruptSourceReport {
  private static final Logger LOG = LoggerFactory.getLogger(CorruptSourceReport.class);
  private final CorruptSources listener;

  CorruptSourceReport(CorruptSources listener) {
    this.listener = listener;
  }

  /** Tells the listener of the replica {@code f} names corrupt, when it is the unit of the helper {@code f} blames. */
  void ofFailure(StripeRepair r, PeerFailure f) {
    Integer unit = CorruptSources.blockIn(f.getMessage(), r.blocks());
    UnitLocation where = unit == null ? null : r.survivors().get(unit);
    if (where == null || !where.node().equals(f.culprit())) {
      return;
    }
    try {
      listener.found(unit, where, r.blocks().get(unit), f.getMessage());
    } catch (IOException | RuntimeException e) {
      LOG.warn("{}: could not report the corrupt replica of unit {} on {}: {}", r.name(), unit, where.node(),
          e.toString());
    }
  }
}
