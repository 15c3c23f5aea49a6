package org.wideec.placement;

import java.util.Arrays;
import java.util.BitSet;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.IntStream;
import org.wideec.code.LinearCode;
import org.wideec.code.RemainingTolerance;
import org.wideec.code.StockStripedReader;

/**
 * The health of one stripe as placed, judged by the code and by HDFS's stock reader rather than by HDFS's count of
 * parities (DESIGN.md §2): what is lost, whether the survivors still decode, whether a stock client reads it now and
 * after the worst loss of one more rack, and how many more units it can lose. Pure: fsck and the NameNode plugin
 * hand in the lost units and the rack of every live unit.
 *
 * @param lost units lost now, ascending
 * @param decodable the survivors rebuild every unit (false: data is lost)
 * @param stockReadable a stock client reads the stripe now
 * @param stockReadableAfterRackLoss a stock client still reads it after losing any one rack that holds its units
 * @param worstRack the rack whose loss hurts most (unreadable to stock clients, else least remaining tolerance), or
 *     null when no live unit is placed
 * @param remaining how many more arbitrary units the stripe survives
 */
public record GroupHealth(int[] lost, boolean decodable, boolean stockReadable, boolean stockReadableAfterRackLoss,
    String worstRack, RemainingTolerance remaining) {

  /** True when the stripe is lost, or one more loss of the wrong unit would lose it. */
  public boolean atRisk() {
    return remaining.value() <= 0;
  }

  /** True when a stock client needs help now or after one rack loss (fsck exits non-zero). */
  public boolean needsAttention() {
    return !decodable || !stockReadable || !stockReadableAfterRackLoss;
  }

  /**
   * @param absent units that never existed (data units past the end of a short block group): not lost
   * @param rackOfLive the rack of every live unit
   */
  public static GroupHealth of(LinearCode code, BitSet absent, Map<Integer, String> rackOfLive) {
    int[] lost = IntStream.range(0, code.n()).filter(u -> !absent.get(u) && !rackOfLive.containsKey(u)).toArray();
    RemainingTolerance remaining = RemainingTolerance.of(code, lost);
    boolean decodable = !remaining.dataLost();
    int realData = absent.isEmpty() ? code.k() : Math.min(code.k(), absent.nextSetBit(0));
    boolean stock = decodable && (!code.isSystematic() || StockStripedReader.canReadEveryStripe(code, realData, lost));
    Map<String, BitSet> byRack = new TreeMap<>();
    rackOfLive.forEach((u, rack) -> byRack.computeIfAbsent(rack, r -> new BitSet()).set(u));
    boolean afterRack = stock;
    String worst = null;
    int worstMargin = Integer.MAX_VALUE;
    for (Map.Entry<String, BitSet> e : byRack.entrySet()) {
      int[] withRack = IntStream.concat(Arrays.stream(lost), e.getValue().stream()).sorted().toArray();
      RemainingTolerance after = RemainingTolerance.of(code, withRack);
      boolean readable = !after.dataLost()
          && (!code.isSystematic() || StockStripedReader.canReadEveryStripe(code, realData, withRack));
      int margin = readable ? after.value() : Integer.MIN_VALUE;
      if (margin < worstMargin) {
        worstMargin = margin;
        worst = e.getKey();
      }
      afterRack &= readable;
    }
    return new GroupHealth(lost, decodable, stock, afterRack, worst, remaining);
  }
}
