package org.wideec.archive;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * How the archival job's map tasks share the work: items (archive units, one manifest each, never split)
 * grouped by the host where their encoding starts, so the scheduler can run each task there; then the heaviest
 * groups halved, or the lightest merged, until there are as many groups as map tasks were asked for (fewer when
 * there are fewer items). A merged group keeps the host of its heavier part. Pure and deterministic: the same items
 * give the same groups.
 */
public final class WorkGrouping {
  /** One archive unit: its index in the listing, the host its encoding starts on ("" when unknown), its data bytes. */
  public record Item(int index, String host, long bytes) {}

  /** The items of one map task, in listing order, and the host to ask for ("" for none). */
  public record Group(String host, List<Integer> items, long bytes) {
    public Group {
      items = List.copyOf(items);
    }
  }

  private WorkGrouping() {
  }

  public static List<Group> group(List<Item> items, int maps) {
    if (maps < 1) {
      throw new IllegalArgumentException("the number of map tasks must be at least 1, got " + maps);
    }
    Map<String, List<Item>> byHost = new TreeMap<>();
    for (Item i : items) {
      byHost.computeIfAbsent(i.host(), h -> new ArrayList<>()).add(i);
    }
    List<List<Item>> groups = new ArrayList<>(byHost.values());
    Comparator<List<Item>> byWeight = Comparator.<List<Item>>comparingLong(WorkGrouping::bytes)
        .thenComparing(g -> g.get(0).host()).thenComparingInt(g -> g.get(0).index());
    while (groups.size() < maps) {
      List<Item> heaviest = groups.stream().filter(g -> g.size() > 1).max(byWeight).orElse(null);
      if (heaviest == null) {
        break;
      }
      groups.remove(heaviest);
      long half = bytes(heaviest) / 2;
      int cut = 1;
      long sum = heaviest.get(0).bytes();
      while (cut < heaviest.size() - 1 && sum + heaviest.get(cut).bytes() <= half) {
        sum += heaviest.get(cut++).bytes();
      }
      groups.add(new ArrayList<>(heaviest.subList(0, cut)));
      groups.add(new ArrayList<>(heaviest.subList(cut, heaviest.size())));
    }
    while (groups.size() > maps) {
      groups.sort(byWeight);
      List<Item> a = groups.remove(0);
      List<Item> b = groups.remove(0);
      List<Item> merged = new ArrayList<>(bytes(b) >= bytes(a) ? b : a);
      merged.addAll(bytes(b) >= bytes(a) ? a : b);
      groups.add(merged);
    }
    List<Group> out = new ArrayList<>();
    for (List<Item> g : groups) {
      List<Integer> indexes = g.stream().map(Item::index).sorted().toList();
      out.add(new Group(g.get(0).host(), indexes, bytes(g)));
    }
    out.sort(Comparator.comparing((Group g) -> g.items().get(0)));
    return out;
  }

  private static long bytes(List<Item> g) {
    return g.stream().mapToLong(Item::bytes).sum();
  }
}
