package org.wideec.cli;

import java.io.BufferedReader;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * The paths of {@code --paths-from FILE}, for runs too long for a command line (DistCp's {@code -f}): one absolute
 * path per line, blank lines and lines starting with {@code #} ignored. FILE is a URI like DistCp's: no scheme means
 * the default file system (HDFS), {@code file:///...} a local file. Errors name FILE and the line.
 */
final class PathList {
  /** Longest line read: a path list is not a place for megabyte lines (a wrong file, most likely). */
  static final int MAX_LINE = 8192;

  private PathList() {}

  static List<Path> read(Configuration conf, String file) throws IOException {
    Path p = new Path(file);
    FileSystem fs = p.getFileSystem(conf);
    if (!fs.exists(p)) {
      throw new FileNotFoundException("--paths-from " + file + ": no such file on " + fs.getUri()
          + " (a path without a scheme is on the default file system; file:///... names a local file)");
    }
    if (fs.getFileStatus(p).isDirectory()) {
      throw new IllegalArgumentException("--paths-from " + file + " is a directory, not a list of paths");
    }
    try (BufferedReader r = new BufferedReader(new InputStreamReader(fs.open(p), StandardCharsets.UTF_8))) {
      return parse(file, r);
    }
  }

  /**
   * @throws IllegalArgumentException naming {@code source} and the line number of a line that is not an absolute
   *     path or repeats an earlier one, or saying that no path is listed
   */
  static List<Path> parse(String source, BufferedReader r) throws IOException {
    List<Path> out = new ArrayList<>();
    Map<String, Integer> seen = new HashMap<>();
    int number = 0;
    for (String line = line(r, source, number + 1); line != null; line = line(r, source, number + 1)) {
      number++;
      String t = line.strip();
      if (t.isEmpty() || t.startsWith("#")) {
        continue;
      }
      String where = "--paths-from " + source + " line " + number;
      Path p;
      try {
        p = new Path(t);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(where + ": '" + t + "' is not a path (" + e.getMessage() + ")", e);
      }
      if (!p.isUriPathAbsolute()) {
        throw new IllegalArgumentException(where + ": '" + t + "' is not an absolute path (start it with /)");
      }
      // Two units of one path would race for its manifest's lock in one job.
      Integer earlier = seen.putIfAbsent(Path.getPathWithoutSchemeAndAuthority(p).toString(), number);
      if (earlier != null) {
        throw new IllegalArgumentException(where + ": '" + t + "' repeats line " + earlier);
      }
      out.add(p);
    }
    if (out.isEmpty()) {
      throw new IllegalArgumentException("--paths-from " + source + " lists no paths (" + number + " line"
          + (number == 1 ? "" : "s") + ", all blank or # comments)");
    }
    return out;
  }

  /**
   * The next line (ended by \n, \r\n or \r), or null at the end; never more than {@link #MAX_LINE} characters held,
   * so a binary file without newlines is refused without being read whole.
   */
  private static String line(BufferedReader r, String source, int number) throws IOException {
    StringBuilder b = new StringBuilder();
    int c = r.read();
    if (c < 0) {
      return null;
    }
    while (c >= 0 && c != '\n' && c != '\r') {
      if (b.length() == MAX_LINE) {
        throw new IllegalArgumentException("--paths-from " + source + " line " + number + " is longer than "
            + MAX_LINE + " characters: is this a list of paths?");
      }
      b.append((char) c);
      c = r.read();
    }
    if (c == '\r') {
      r.mark(1);
      if (r.read() != '\n') {
        r.reset();
      }
    }
    return b.toString();
  }
}
