package org.wideec.archive;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.wideec.archive.WorkGrouping.Group;
import org.wideec.archive.WorkGrouping.Item;

class WorkGroupingTest {
  @Test
  void oneGroupPerHostWhenAsMany() {
    List<Group> g = WorkGrouping.group(List.of(new Item(0, "h1", 10), new Item(1, "h2", 5), new Item(2, "h1", 7)), 2);
    assertEquals(List.of(new Group("h1", List.of(0, 2), 17), new Group("h2", List.of(1), 5)), g);
  }

  @Test
  void theHeaviestHostIsHalvedForMoreMapsAndNeverAnItem() {
    List<Group> g = WorkGrouping.group(List.of(new Item(0, "h1", 10), new Item(1, "h1", 10), new Item(2, "h1", 10),
        new Item(3, "h1", 10), new Item(4, "h2", 5)), 3);
    assertEquals(List.of(new Group("h1", List.of(0, 1), 20), new Group("h1", List.of(2, 3), 20),
        new Group("h2", List.of(4), 5)), g);
    // More maps than items: one item per map, no more.
    assertEquals(5, WorkGrouping.group(List.of(new Item(0, "h1", 10), new Item(1, "h1", 10), new Item(2, "h1", 10),
        new Item(3, "h1", 10), new Item(4, "h2", 5)), 50).size());
  }

  @Test
  void theLightestAreMergedForFewerMapsKeepingTheHeavierHost() {
    List<Group> g = WorkGrouping.group(List.of(new Item(0, "a", 1), new Item(1, "b", 2), new Item(2, "c", 100)), 2);
    assertEquals(List.of(new Group("b", List.of(0, 1), 3), new Group("c", List.of(2), 100)), g);
    assertEquals(List.of(new Group("c", List.of(0, 1, 2), 103)),
        WorkGrouping.group(List.of(new Item(0, "a", 1), new Item(1, "b", 2), new Item(2, "c", 100)), 1));
  }

  @Test
  void everyItemLandsInExactlyOneGroupAndTheCountIsAsAsked() {
    Random r = new Random(14);
    for (int trial = 0; trial < 200; trial++) {
      List<Item> items = new ArrayList<>();
      int n = 1 + r.nextInt(40);
      for (int i = 0; i < n; i++) {
        items.add(new Item(i, r.nextInt(4) == 0 ? "" : "h" + r.nextInt(6), r.nextInt(1000)));
      }
      int maps = 1 + r.nextInt(20);
      List<Group> g = WorkGrouping.group(items, maps);
      assertEquals(Math.min(maps, n), g.size(), "trial " + trial);
      List<Integer> all = new ArrayList<>();
      g.forEach(x -> all.addAll(x.items()));
      all.sort(null);
      assertEquals(java.util.stream.IntStream.range(0, n).boxed().toList(), all, "trial " + trial);
      assertEquals(g, WorkGrouping.group(items, maps), "deterministic");
    }
  }

  @Test
  void zeroMapsIsRefused() {
    assertThrows(IllegalArgumentException.class, () -> WorkGrouping.group(List.of(), 0));
  }
}
