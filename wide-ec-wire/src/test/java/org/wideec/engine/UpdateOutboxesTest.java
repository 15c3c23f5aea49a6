package org.wideec.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/**
 * A fetch is checked whole before it takes an outbox: a bound transfer only by its consumer's node with its key, and
 * what a refused fetch is told never carries a key.
 */
class UpdateOutboxesTest {
  private static final long KEY = 0x5eC7e7L;
  private static final long TRANSFER_KEY = 0x7a11e7L;

  @Test
  void aFetchOfTheWrongShapeLeavesTheOutboxToItsConsumerAndNeverShowsTheKey() throws Exception {
    UpdateOutboxes boxes = new UpdateOutboxes();
    UpdateOutboxes.Outbox box = boxes.register(KEY, 3, 2, 5, null, 0);
    UpdateOutboxes.Refused e = assertThrows(UpdateOutboxes.Refused.class,
        () -> boxes.claim(KEY, 3, 1, 5, "n1", 0, 1000));
    assertEquals("the role sends 2 rows in 5 slices, the fetch asks 1 rows in 5", e.getMessage());
    assertSame(box, boxes.claim(KEY, 3, 2, 5, "n1", 0, 1000));
    e = assertThrows(UpdateOutboxes.Refused.class, () -> boxes.claim(KEY, 3, 2, 5, "n1", 0, 1000));
    assertEquals("another role already fetched it", e.getMessage());
    e = assertThrows(UpdateOutboxes.Refused.class, () -> boxes.claim(KEY + 1, 3, 2, 5, "n1", 0, 1));
    assertFalse(e.getMessage().contains(Long.toHexString(KEY + 1)), e.getMessage());
  }

  @Test
  void aBoundTransferIsRefusedToAGuessedKeyAndToAnotherNodeAndTakenByItsConsumer() throws Exception {
    UpdateOutboxes boxes = new UpdateOutboxes();
    UpdateOutboxes.Outbox box = boxes.register(KEY, 3, 2, 5, "10.0.0.7:9866", TRANSFER_KEY);
    UpdateOutboxes.Refused e = assertThrows(UpdateOutboxes.Refused.class,
        () -> boxes.claim(KEY, 3, 2, 5, "10.0.0.7:9866", 0, 1000));
    assertEquals("the fetch does not prove the key its consumer was given", e.getMessage(), "an unbound fetch");
    e = assertThrows(UpdateOutboxes.Refused.class, () -> boxes.claim(KEY, 3, 2, 5, "10.0.0.9:9866", 0x1234L, 1000));
    assertEquals("the fetch does not prove the key its consumer was given", e.getMessage(), "a guessed key");
    e = assertThrows(UpdateOutboxes.Refused.class,
        () -> boxes.claim(KEY, 3, 2, 5, "10.0.0.9:9866", TRANSFER_KEY, 1000));
    assertEquals("fetched by 10.0.0.9:9866, but its role sends it to 10.0.0.7:9866", e.getMessage());
    assertFalse(e.getMessage().contains(Long.toHexString(TRANSFER_KEY)), e.getMessage());
    assertSame(box, boxes.claim(KEY, 3, 2, 5, "10.0.0.7:9866", TRANSFER_KEY, 1000), "left to its consumer");
  }
}
