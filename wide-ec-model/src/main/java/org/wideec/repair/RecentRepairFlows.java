package org.wideec.repair;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The rack links of repairs placed a moment ago and probably still running, so the next group's rebuilt units
 * spread around them: HDFS's RedundancyMonitor asks for the targets of a lost node's groups one group at a time,
 * and the placement policy is told nothing of the others. Bounded (the oldest group goes first), expiring (a
 * repair older than the window has most likely finished) and thread-safe; the clock is the caller's.
 */
public final class RecentRepairFlows {
  private record Entry(long atMs, RackLinkLoad load) {}

  private final RackLinkLoad.Links links;
  private final long windowMs;
  private final int maxGroups;
  private final LinkedHashMap<String, Entry> byGroup = new LinkedHashMap<>();

  public RecentRepairFlows(RackLinkLoad.Links links, long windowMs, int maxGroups) {
    if (windowMs < 0 || maxGroups < 1) {
      throw new IllegalArgumentException("a record of repairs needs a window >= 0 ms and room for a group, got "
          + windowMs + " ms, " + maxGroups + " groups");
    }
    this.links = links;
    this.windowMs = windowMs;
    this.maxGroups = maxGroups;
  }

  public RackLinkLoad.Links links() {
    return links;
  }

  /** Records a group's repair, replacing an earlier record of the same group. */
  public synchronized void record(String group, RackLinkLoad load, long nowMs) {
    if (load.links() != links) {
      throw new IllegalArgumentException("group " + group + ": a " + load.links() + " load in a " + links + " record");
    }
    byGroup.remove(group);
    byGroup.put(group, new Entry(nowMs, load.copy()));
    expire(nowMs);
  }

  /** The links of every repair recorded within the window, except those of {@code exceptGroup} (it is re-placed). */
  public synchronized RackLinkLoad load(long nowMs, String exceptGroup) {
    expire(nowMs);
    RackLinkLoad all = new RackLinkLoad(links);
    byGroup.forEach((g, e) -> {
      if (!g.equals(exceptGroup)) {
        all.add(e.load(), 1);
      }
    });
    return all;
  }

  public synchronized int size() {
    return byGroup.size();
  }

  private void expire(long nowMs) {
    Iterator<Map.Entry<String, Entry>> it = byGroup.entrySet().iterator();
    while (it.hasNext()) {
      Map.Entry<String, Entry> e = it.next();
      if (byGroup.size() > maxGroups || nowMs - e.getValue().atMs() > windowMs) {
        it.remove();
      }
    }
  }
}
