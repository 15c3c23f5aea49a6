package org.wideec.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.wideec.repair.BlockRef;
import org.wideec.repair.RepairScheme;

/** The registry of message kinds: one byte per kind, an unknown byte refused by name, each kind to its record. */
class MessageKindTest {
  private static final BlockRef UNIT = new BlockRef("BP-1", 1073741825L, 1001, 4096, new byte[] {1});

  @Test
  void noTwoKindsShareAByteAndTheStepsKeepTheFirstThree() {
    Set<Integer> bytes = new HashSet<>();
    for (MessageKind k : MessageKind.values()) {
      assertEquals(true, bytes.add(k.code()), k + " reuses byte " + k.code());
    }
    assertEquals(List.of(0, 1, 2), List.of(MessageKind.STEP.code(), MessageKind.DIGEST.code(),
        MessageKind.ROWS_STEP.code()), "every release reads steps as kinds 0..2");
  }

  @Test
  void anUnknownKindIsRefusedWithAnErrorNamingItsByte() {
    IOException e = assertThrows(IOException.class, () -> MessageKind.decode(new byte[] {0x7f, 1, 2},
        RepairScheme.PIPELINED));
    assertEquals(true, e.getMessage().startsWith("request of unknown kind 0x7f (known: 0x00 step, "), e.getMessage());
    assertNull(MessageKind.peek(new byte[] {(byte) 0xff}));
    IOException empty = assertThrows(IOException.class, () -> MessageKind.of(new byte[0]));
    assertEquals("an empty request has no message kind", empty.getMessage());
  }

  @Test
  void eachKindDecodesToItsOwnRecord() throws Exception {
    assertInstanceOf(StepRequest.class, MessageKind.decode(StepRequest.digestOf(UNIT, 1024).toBytes(), null));
    assertInstanceOf(PinRequest.class, MessageKind.decode(new PinRequest(List.of(UNIT)).toBytes(), null));
    ArchivedReadRequest read = new ArchivedReadRequest(16390, UNIT, 0, 100, 1024);
    assertEquals(read, MessageKind.decode(read.toBytes(), null));
    assertEquals(MessageKind.ARCHIVED_READ, MessageKind.of(read.toBytes()));
  }
}
