package org.wideec.coder;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.OptionalLong;

/**
 * Size of the last-level cache of CPU 0, from Linux sysfs ({@code /sys/devices/system/cpu/cpu0/cache/index*}: the
 * data or unified cache of the highest level). Not from {@code getconf LEVEL3_CACHE_SIZE}: on the AMD EPYC the
 * project runs on, getconf says 320 MiB where sysfs and lscpu say 32 MiB. Empty when sysfs does not say.
 */
public final class LastLevelCache {
  static final Path SYSFS = Path.of("/sys/devices/system/cpu/cpu0/cache");

  private LastLevelCache() {}

  public static OptionalLong bytes() {
    return bytes(SYSFS);
  }

  static OptionalLong bytes(Path cacheDir) {
    int bestLevel = -1;
    long best = -1;
    for (int i = 0; i < 16; i++) {
      Path d = cacheDir.resolve("index" + i);
      if (!Files.isDirectory(d)) {
        continue;
      }
      try {
        String type = read(d.resolve("type"));
        if (type.equalsIgnoreCase("Instruction")) {
          continue;
        }
        int level = Integer.parseInt(read(d.resolve("level")));
        long size = parseSize(read(d.resolve("size")));
        if (level > bestLevel || (level == bestLevel && size > best)) {
          bestLevel = level;
          best = size;
        }
      } catch (IOException | IllegalArgumentException e) {
        // an unreadable or malformed entry says nothing about the cache; the others may
      }
    }
    return best > 0 ? OptionalLong.of(best) : OptionalLong.empty();
  }

  /** "32768K", "1M", "512" (bytes), as sysfs writes cache sizes. */
  static long parseSize(String s) {
    String v = s.trim().toUpperCase(Locale.ROOT);
    long unit = 1;
    if (v.endsWith("K")) {
      unit = 1L << 10;
    } else if (v.endsWith("M")) {
      unit = 1L << 20;
    } else if (v.endsWith("G")) {
      unit = 1L << 30;
    }
    if (unit > 1) {
      v = v.substring(0, v.length() - 1);
    }
    return Long.parseLong(v) * unit;
  }

  private static String read(Path p) throws IOException {
    return Files.readString(p, StandardCharsets.US_ASCII).trim();
  }
}
