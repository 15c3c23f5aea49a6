package org.wideec.placement.hdfs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.wideec.code.Codes;
import org.wideec.code.LinearCode;

class MostUrgentStripesTest {
  /** Survives any 3 losses: a stripe missing 2 can lose one more, one missing 3 none. */
  private static final LinearCode RS = Codes.fromSpec("rs:k=6,m=3");

  @Test
  void onlyTheMostUrgentAreKeptAndTheyComeLeastMarginFirstEqualsInTheOrderMet() {
    MostUrgentStripes<String> s = new MostUrgentStripes<>(3);
    s.add("a, margin 2", RS, 1);
    s.add("b, margin 0", RS, 3);
    s.add("c, margin 2", RS, 1);
    s.add("d, margin 1", RS, 2);
    s.add("e, margin 0", RS, 3);
    assertEquals(List.of("b, margin 0", "e, margin 0", "d, margin 1"), s.takeMostUrgentFirst());
    assertEquals(List.of(), s.takeMostUrgentFirst(), "none kept after");
  }

  @Test
  void aNewPassStartsTheOrderAmongEqualsAfresh() {
    MostUrgentStripes<String> s = new MostUrgentStripes<>(2);
    s.add("first pass", RS, 1);
    s.clear();
    s.add("x", RS, 1);
    s.add("y", RS, 1);
    s.add("z", RS, 1);
    assertEquals(List.of("x", "y"), s.takeMostUrgentFirst());
  }
}
