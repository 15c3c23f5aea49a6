package org.wideec.archive.mr;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.io.Writable;
import org.apache.hadoop.io.WritableUtils;
import org.apache.hadoop.mapreduce.InputSplit;

/** One map task's items of the listing, carried whole, and the host where their encoding starts. */
public final class ArchiveSplit extends InputSplit implements Writable {
  private String host = "";
  private List<ArchiveItem> items = new ArrayList<>();

  public ArchiveSplit() {
  }

  ArchiveSplit(String host, List<ArchiveItem> items) {
    this.host = host;
    this.items = new ArrayList<>(items);
  }

  List<ArchiveItem> items() {
    return items;
  }

  @Override
  public long getLength() {
    return items.stream().mapToLong(ArchiveItem::bytes).sum();
  }

  @Override
  public String[] getLocations() {
    return host.isEmpty() ? new String[0] : new String[] {host};
  }

  @Override
  public void write(DataOutput out) throws IOException {
    Text.writeString(out, host);
    WritableUtils.writeVInt(out, items.size());
    for (ArchiveItem i : items) {
      i.write(out);
    }
  }

  @Override
  public void readFields(DataInput in) throws IOException {
    host = Text.readString(in);
    int n = WritableUtils.readVInt(in);
    items = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      ArchiveItem item = new ArchiveItem();
      item.readFields(in);
      items.add(item);
    }
  }
}
