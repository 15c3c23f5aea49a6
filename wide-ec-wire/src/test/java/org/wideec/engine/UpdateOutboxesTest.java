package org.wideec.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** A fetch is checked whole before it takes an outbox, and what it is told never carries the update's key. */
class UpdateOutboxesTest {
  private static final long KEY = 0x5eC7e7L;

  @Test
  void aFetchOfTheWrongShapeLeavesTheOutboxToItsConsumerAndNeverShowsTheKey() throws Exception {
    UpdateOutboxes boxes = new UpdateOutboxes();
    UpdateOutboxes.Outbox box = boxes.register(KEY, 3, 2, 5);
    UpdateOutboxes.Refused e = assertThrows(UpdateOutboxes.Refused.class, () -> boxes.claim(KEY, 3, 1, 5, 1000));
    assertEquals("the role sends 2 rows in 5 slices, the fetch asks 1 rows in 5", e.getMessage());
    assertSame(box, boxes.claim(KEY, 3, 2, 5, 1000));
    e = assertThrows(UpdateOutboxes.Refused.class, () -> boxes.claim(KEY, 3, 2, 5, 1000));
    assertEquals("another role already fetched it", e.getMessage());
    e = assertThrows(UpdateOutboxes.Refused.class, () -> boxes.claim(KEY + 1, 3, 2, 5, 1));
    assertFalse(e.getMessage().contains(Long.toHexString(KEY + 1)), e.getMessage());
  }
}
