package org.wideec.cluster;

import java.io.IOException;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * The bench's file bytes: a function of (seed, offset), made in 1 MiB chunks, so any range of any file can be
 * checked without keeping a copy, and a file written once can be compared byte for byte after every fault.
 */
final class FileContent {
  static final int CHUNK = 1 << 20;

  private FileContent() {}

  /** Bytes [offset, offset + len) of the file with this seed. */
  static byte[] range(long seed, long offset, int len) {
    byte[] out = new byte[len];
    byte[] chunk = new byte[CHUNK];
    long c = offset / CHUNK;
    int done = 0;
    while (done < len) {
      fill(seed, c, chunk);
      int from = (int) ((offset + done) - c * CHUNK);
      int n = Math.min(CHUNK - from, len - done);
      System.arraycopy(chunk, from, out, done, n);
      done += n;
      c++;
    }
    return out;
  }

  private static void fill(long seed, long chunk, byte[] into) {
    SplittableRandom r = new SplittableRandom(seed * 1_000_003L + chunk);
    for (int i = 0; i < into.length; i += 8) {
      long v = r.nextLong();
      for (int b = 0; b < 8 && i + b < into.length; b++) {
        into[i + b] = (byte) (v >>> (8 * b));
      }
    }
  }

  static void write(FileSystem fs, Path file, long seed, long length) throws IOException {
    byte[] chunk = new byte[CHUNK];
    try (FSDataOutputStream out = fs.create(file, true)) {
      for (long c = 0; c * CHUNK < length; c++) {
        fill(seed, c, chunk);
        out.write(chunk, 0, (int) Math.min(CHUNK, length - c * CHUNK));
      }
    }
  }

  /**
   * Reads the whole file and compares it with what was written.
   *
   * @return null when every byte matches, else what differs (first offset, or the length)
   */
  static String mismatch(FileSystem fs, Path file, long seed, long length) throws IOException {
    byte[] expected = new byte[CHUNK];
    byte[] read = new byte[CHUNK];
    long pos = 0;
    try (FSDataInputStream in = fs.open(file)) {
      for (long c = 0; pos < length; c++) {
        int want = (int) Math.min(CHUNK, length - pos);
        int n = 0;
        for (int r; n < want && (r = in.read(read, n, want - n)) > 0; ) {
          n += r;
        }
        fill(seed, c, expected);
        if (n != want || !Arrays.equals(expected, 0, want, read, 0, want)) {
          return file + ": differs in bytes [" + pos + ", " + (pos + want) + ") (" + n + " of " + want + " read)";
        }
        pos += want;
      }
      if (in.read() != -1) {
        return file + ": longer than the " + length + " bytes written";
      }
    }
    return null;
  }
}
