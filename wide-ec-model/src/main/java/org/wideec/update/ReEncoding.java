package org.wideec.update;

/**
 * Re-encoding the stripe instead of a delta update: every parity is written afresh from the live data units (those
 * not cleared), read to the encoder rack. The reads are coordinated as RackCU's are (sole encoder rack L-bar chosen
 * by Algorithm 1 over the live units, partial parities where they cross fewer racks), so the price compares fairly
 * with a delta plan on the same placement. It wins when most changed units are cleared (deletes), since it reads
 * only the rest, or against a rack-blind delta scheme when many units change.
 */
public final class ReEncoding implements UpdateScheme {
  @Override
  public String name() {
    return "reencode";
  }

  @Override
  public UpdatePlan plan(UpdatePattern pattern, UpdateHistory history) {
    int[] live = pattern.liveDataUnits();
    return SelectiveParityUpdate.plan(name(), pattern, live, RackCu.soleCollector(pattern, live), true);
  }
}
