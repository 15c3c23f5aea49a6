package org.wideec.archive.mr;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.io.Writable;
import org.apache.hadoop.io.WritableUtils;

/**
 * One line of the archival job's listing: one archive unit (a file, or a directory archived as one manifest, which
 * one mapper archives whole), the host where its encoding starts (the locality hint its map task asks for), its data
 * bytes and stripes, and the cross-rack bytes its plan costs per stripe for the job's encoder (empty when the unit was
 * already being archived when listed: its manifest, not a new plan, is what runs, and the manifest keeps no costs).
 */
public final class ArchiveItem implements Writable {
  private String path = "";
  private String host = "";
  private long bytes;
  private int stripes;
  private long[] crossRackBytes = new long[0];

  public ArchiveItem() {
  }

  public ArchiveItem(String path, String host, long bytes, int stripes, long[] crossRackBytes) {
    this.path = path;
    this.host = host;
    this.bytes = bytes;
    this.stripes = stripes;
    this.crossRackBytes = crossRackBytes.clone();
  }

  public String path() {
    return path;
  }

  public String host() {
    return host;
  }

  public long bytes() {
    return bytes;
  }

  public int stripes() {
    return stripes;
  }

  /** True when the plan's costs are known (a unit not yet being archived when listed). */
  public boolean costed() {
    return crossRackBytes.length == stripes;
  }

  /** The planned cross-rack bytes of encoding stripe {@code id}, 0 when not {@link #costed}. */
  public long crossRackBytes(long id) {
    return id >= 0 && id < crossRackBytes.length ? crossRackBytes[(int) id] : 0;
  }

  public long crossRackBytes() {
    long sum = 0;
    for (long b : crossRackBytes) {
      sum += b;
    }
    return sum;
  }

  @Override
  public void write(DataOutput out) throws IOException {
    Text.writeString(out, path);
    Text.writeString(out, host);
    WritableUtils.writeVLong(out, bytes);
    WritableUtils.writeVInt(out, stripes);
    WritableUtils.writeVInt(out, crossRackBytes.length);
    for (long b : crossRackBytes) {
      WritableUtils.writeVLong(out, b);
    }
  }

  @Override
  public void readFields(DataInput in) throws IOException {
    path = Text.readString(in);
    host = Text.readString(in);
    bytes = WritableUtils.readVLong(in);
    stripes = WritableUtils.readVInt(in);
    int n = WritableUtils.readVInt(in);
    if (n < 0 || n > stripes) {
      throw new IOException("listing item " + path + ": " + n + " stripe costs for " + stripes + " stripes");
    }
    crossRackBytes = new long[n];
    for (int i = 0; i < n; i++) {
      crossRackBytes[i] = WritableUtils.readVLong(in);
    }
  }

  @Override
  public String toString() {
    return path + " (" + stripes + " stripes, " + bytes + " bytes, starts on " + (host.isEmpty() ? "any host" : host)
        + ")";
  }
}
