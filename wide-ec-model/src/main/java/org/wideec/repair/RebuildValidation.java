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
 * <p>Of each sampled slice only a window of {@code windowBytes} is decoded again: a random one, and for the last
 * slice the window holding the range's last byte. A wrong decoding matrix, a wrong input set or a kernel that
 * garbles whole regions shows in any window; what the second decode costs is its bytes from every helper of the star,
 * each helper outside the requestor's rack sending them across racks itself, and whole 256 KiB slices made it 6 MiB
 * across racks per rebuilt 12+2+2 unit, all arriving at the rebuilt unit's rack while its own chain's first slices
 * queue on the same uplink. A byte silently changed in one helper's copy is the scrub's to find (it reads every
 * byte); a sample finds it only where it looks, windows or whole slices alike.
 *
 * @param slices slices per unit to check; 0 or less, or at least the unit's slice count, checks every slice
 * @param windowBytes bytes of each sampled slice decoded again, a multiple of 512 (HDFS's checksum chunk); 0, or a size
 *     that does not divide the slice, checks whole slices
 */
public record RebuildValidation(boolean enabled, int slices, int windowBytes) {
  public static final RebuildValidation OFF = new RebuildValidation(false, 0);
  public static final int DEFAULT_SLICES = 2;
  public static final int DEFAULT_WINDOW_BYTES = 16 * 1024;
  /** Windows start and end on the helpers' checksum chunks, so each reads whole chunks. */
  public static final int WINDOW_ALIGNMENT = 512;

  public RebuildValidation {
    if (windowBytes < 0 || windowBytes % WINDOW_ALIGNMENT != 0) {
      throw new IllegalArgumentException("a validation window of " + windowBytes + " bytes: must be 0 (whole slices)"
          + " or a positive multiple of " + WINDOW_ALIGNMENT);
    }
  }

  /** Validation of whole sampled slices. */
  public RebuildValidation(boolean enabled, int slices) {
    this(enabled, slices, 0);
  }

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

  /** The size of the windows a range cut in slices of {@code sliceBytes} is checked in: a whole slice, or less. */
  public int windowFor(int sliceBytes) {
    return windowBytes == 0 || windowBytes >= sliceBytes || sliceBytes % windowBytes != 0 ? sliceBytes : windowBytes;
  }

  /**
   * The window checked in each sampled slice of a range of {@code length} bytes, as the index of that window among the
   * range's windows of {@link #windowFor} bytes (ascending, as the sample is): one at random inside each slice, the
   * one holding the range's last byte inside the range's last slice.
   */
  public int[] windows(int[] sample, long length, int sliceBytes, Random random) {
    int window = windowFor(sliceBytes);
    int perSlice = sliceBytes / window;
    long lastWindow = (length - 1) / window;
    int[] out = new int[sample.length];
    for (int i = 0; i < sample.length; i++) {
      long first = (long) sample[i] * perSlice;
      long inSlice = Math.min(perSlice, lastWindow - first + 1);
      if (inSlice < 1) {
        throw new IllegalArgumentException("slice " + sample[i] + " of " + sliceBytes + " bytes is outside a range of "
            + length + " bytes");
      }
      out[i] = Math.toIntExact(first + (first + inSlice - 1 == lastWindow ? inSlice - 1 : random.nextInt((int) inSlice)));
    }
    return out;
  }
}
