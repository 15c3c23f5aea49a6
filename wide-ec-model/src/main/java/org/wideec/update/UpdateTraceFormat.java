package org.wideec.update;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.util.ArrayList;
import java.util.List;

/**
 * The text format of update traces (docs/updates.md): a {@code #} header line naming the format, then one
 * {@code time_us offset_bytes length_bytes} line per update; blank lines and {@code #} comments are skipped on read.
 */
public final class UpdateTraceFormat {
  private UpdateTraceFormat() {}

  /** Writes a trace: a {@code #} header naming the volume, then one {@code time offset length} line per update. */
  public static void write(String header, List<TraceUpdate> trace, Writer out) throws IOException {
    out.write("# wide-ec update trace v1: time_us offset_bytes length_bytes; " + header + "\n");
    for (TraceUpdate u : trace) {
      out.write(u.toLine());
      out.write('\n');
    }
    out.flush();
  }

  /** Reads a trace written by {@link #write}; blank lines and {@code #} comments are skipped. */
  public static List<TraceUpdate> read(Reader in) throws IOException {
    List<TraceUpdate> out = new ArrayList<>();
    BufferedReader r = new BufferedReader(in);
    String line;
    int n = 0;
    while ((line = r.readLine()) != null) {
      n++;
      if (!line.isBlank() && !line.startsWith("#")) {
        out.add(TraceUpdate.parse(line, n));
      }
    }
    return out;
  }
}
