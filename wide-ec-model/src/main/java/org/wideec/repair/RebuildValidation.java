package org.wideec.repair;

import java.util.Random;
import java.util.TreeSet;

/**
 * How a rebuilt unit is checked before it is stored (HDFS's DecodingValidator, HDFS-15759, for a pipelined
 * repair): a sample of its slices is decoded a second time, through the conventional star (one round of setup, in
 * parallel), from another input set (one of the first pass's helpers left out, where the code leaves a choice; else
 * the same inputs) and must equal the first pass byte for byte. The last slice is always in the sample (a short tail is where
 * off-by-one bugs live); the others are drawn at random.
 *
 * @param slices slices per unit to check; 0 or less, or at least the unit's slice count, checks every slice
 */
public record RebuildValidation(boolean enabled, int slices) {
  public static final RebuildValidation OFF = new RebuildValidation(false, 0);
  public static final int DEFAULT_SLICES = 2;

  /** The slices to check out of {@code total}, ascending. */
  public int[] sample(int total, Random random) {
    if (!enabled || total == 0) {
      return new int[0];
    }
    if (slices <= 0 || slices >= total) {
      return java.util.stream.IntStream.range(0, total).toArray();
    }
    TreeSet<Integer> chosen = new TreeSet<>();
    chosen.add(total - 1);
    while (chosen.size() < slices) {
      chosen.add(random.nextInt(total - 1));
    }
    return chosen.stream().mapToInt(Integer::intValue).toArray();
  }
}
