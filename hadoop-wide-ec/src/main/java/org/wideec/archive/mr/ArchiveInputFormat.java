package org.wideec.archive.mr;

import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapreduce.InputFormat;
import org.apache.hadoop.mapreduce.InputSplit;
import org.apache.hadoop.mapreduce.JobContext;
import org.apache.hadoop.mapreduce.RecordReader;
import org.apache.hadoop.mapreduce.TaskAttemptContext;
import org.wideec.archive.WorkGrouping;

/**
 * Reads the listing ({@link ArchiveJob#LISTING_KEY}) and makes one split per {@link WorkGrouping} group: items grouped
 * by the host where their encoding starts, as many splits as map tasks ({@code mapreduce.job.maps}) when there are
 * that many items. Each record is one archive unit: key its path, value its item.
 */
public final class ArchiveInputFormat extends InputFormat<Text, ArchiveItem> {
  @Override
  public List<InputSplit> getSplits(JobContext context) throws java.io.IOException {
    Configuration conf = context.getConfiguration();
    List<ArchiveItem> items = ArchiveListing.read(conf, new Path(conf.get(ArchiveJob.LISTING_KEY)));
    List<InputSplit> splits = new ArrayList<>();
    for (List<ArchiveItem> group : groups(items, conf.getInt("mapreduce.job.maps", 1))) {
      splits.add(new ArchiveSplit(group.get(0).host(), group));
    }
    return splits;
  }

  /** The items of each map task, in listing order; the first item's host is the group's (WorkGrouping keeps one). */
  public static List<List<ArchiveItem>> groups(List<ArchiveItem> items, int maps) {
    List<WorkGrouping.Item> work = new ArrayList<>();
    for (int i = 0; i < items.size(); i++) {
      work.add(new WorkGrouping.Item(i, items.get(i).host(), items.get(i).bytes()));
    }
    List<List<ArchiveItem>> out = new ArrayList<>();
    for (WorkGrouping.Group g : WorkGrouping.group(work, Math.max(1, maps))) {
      List<ArchiveItem> group = new ArrayList<>();
      // The group's host first: the split asks for it.
      g.items().stream().map(items::get).filter(i -> i.host().equals(g.host())).forEach(group::add);
      g.items().stream().map(items::get).filter(i -> !i.host().equals(g.host())).forEach(group::add);
      out.add(group);
    }
    return out;
  }

  @Override
  public RecordReader<Text, ArchiveItem> createRecordReader(InputSplit split, TaskAttemptContext context) {
    return new RecordReader<>() {
      private List<ArchiveItem> items;
      private int next = -1;

      @Override
      public void initialize(InputSplit s, TaskAttemptContext c) {
        items = ((ArchiveSplit) s).items();
      }

      @Override
      public boolean nextKeyValue() {
        return ++next < items.size();
      }

      @Override
      public Text getCurrentKey() {
        return new Text(items.get(next).path());
      }

      @Override
      public ArchiveItem getCurrentValue() {
        return items.get(next);
      }

      @Override
      public float getProgress() {
        return items.isEmpty() ? 1f : Math.min(1f, Math.max(0, next) / (float) items.size());
      }

      @Override
      public void close() {
      }
    };
  }
}
