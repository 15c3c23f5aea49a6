package org.wideec.scrub.hdfs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class ScrubStatusTest {
  private static ScrubStatus.Bad bad(String stripe, long pass) {
    return new ScrubStatus.Bad("/d", stripe, "unit_at_fault [3]", "dn:1", true, pass, 1000 + pass);
  }

  private static List<String> stripes(ScrubStatus s) {
    return s.bad().stream().map(ScrubStatus.Bad::stripe).toList();
  }

  @Test
  void aPassCutShortIsReadBackWhereItStoodWithItsEntries() throws Exception {
    ScrubStatus s = new ScrubStatus();
    s.begin("archived", 5);
    s.found(bad("/d stripe 0", 1));
    s.at("striped", 16390);
    ScrubStatus back = ScrubStatus.parse(s.toJson());
    assertTrue(back.midPass());
    assertEquals(List.of(1L, 5L, -1L, 16390L), List.of(back.pass(), back.passStarted(), back.lastPassEnded(),
        back.after()));
    assertEquals("striped", back.phase());
    assertEquals(s.bad(), back.bad());
  }

  @Test
  void aConsistentCheckClearsAnEntryAndAnEndedPassDropsEntriesItDidNotFindAgain() throws Exception {
    ScrubStatus s = new ScrubStatus();
    s.begin("archived", 1);
    s.found(bad("a", 1));
    s.found(bad("b", 1));
    s.found(bad("c", 1));
    s.end(2);
    s.begin("archived", 3);
    s.consistent("a");
    s.unchecked("b"); // a unit missing while it is rebuilt: the entry stays
    s.end(4);
    assertEquals(List.of("b"), stripes(s), "c was not found again (its file is gone), a checked consistent");
    assertFalse(s.midPass());
    assertEquals(4, s.lastPassEnded());
    assertEquals(List.of("b"), stripes(ScrubStatus.parse(s.toJson())));
  }

  @Test
  void theEntriesStayBoundedTheOldestGoingFirst() {
    ScrubStatus s = new ScrubStatus();
    s.begin("archived", 1);
    for (int i = 0; i <= ScrubStatus.MAX_BAD; i++) {
      s.found(bad("s" + i, 1));
    }
    assertEquals(ScrubStatus.MAX_BAD, s.bad().size());
    assertEquals("s1", s.bad().get(0).stripe());
  }
}
