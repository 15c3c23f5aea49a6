package org.wideec.protocol;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.wideec.repair.BlockRef;

class ArchivedReadRequestTest {
  private static final BlockRef BLOCK = new BlockRef("BP-1", 1073741825L, 1001, 65536, new byte[] {1, 2, 3});

  @Test
  void aRequestReadsBackAsWrittenAndIsToldApartFromSteps() throws Exception {
    ArchivedReadRequest r = new ArchivedReadRequest(16386, BLOCK, 1000, 5000, 4096);
    byte[] bytes = r.toBytes();
    assertTrue(ArchivedReadRequest.isOne(bytes));
    ArchivedReadRequest back = ArchivedReadRequest.parse(bytes);
    assertEquals(r.fileInode(), back.fileInode());
    assertEquals(BLOCK, back.block());
    assertEquals(1000, back.offset());
    assertEquals(5000, back.length());
    assertEquals(2, back.slices());
    assertEquals(904, back.sliceLength(1));
    assertFalse(ArchivedReadRequest.isOne(StepRequest.digestOf(BLOCK, 4096).toBytes()));
    assertFalse(ArchivedReadRequest.isOne(new byte[0]));
    // A helper that predates this request refuses it as a step of unknown kind.
    IOException old = assertThrows(IOException.class, () -> StepRequest.parse(bytes));
    assertTrue(old.getMessage().contains("unknown kind"), old.getMessage());
  }

  @Test
  void aRangeOutsideTheBlockIsRefused() {
    assertThrows(IllegalArgumentException.class, () -> new ArchivedReadRequest(1, BLOCK, 65536 - 10, 11, 4096));
    assertThrows(IllegalArgumentException.class, () -> new ArchivedReadRequest(1, BLOCK, -1, 10, 4096));
    assertThrows(IllegalArgumentException.class, () -> new ArchivedReadRequest(1, BLOCK, 0, 0, 4096));
    assertThrows(IllegalArgumentException.class, () -> new ArchivedReadRequest(0, BLOCK, 0, 10, 4096));
    // On the wire: the offset patched past the block's end is refused by the parser, naming the bound.
    byte[] bytes = new ArchivedReadRequest(16386, BLOCK, 0, 4096, 4096).toBytes();
    int offsetAt = bytes.length - 8 - 8 - 4;
    ByteBuffer.wrap(bytes).putLong(offsetAt, 65536 - 100);
    IOException e = assertThrows(IOException.class, () -> ArchivedReadRequest.parse(bytes));
    assertTrue(e.getMessage().contains("a range inside the block"), e.getMessage());
  }

  @Test
  void truncatedTrailingAndForeignBytesAreRefused() throws Exception {
    byte[] bytes = new ArchivedReadRequest(16386, BLOCK, 0, 4096, 4096).toBytes();
    IOException cut = assertThrows(IOException.class,
        () -> ArchivedReadRequest.parse(Arrays.copyOf(bytes, bytes.length - 1)));
    assertTrue(cut.getMessage().contains("truncated"), cut.getMessage());
    byte[] longer = Arrays.copyOf(bytes, bytes.length + 1);
    IOException trailing = assertThrows(IOException.class, () -> ArchivedReadRequest.parse(longer));
    assertTrue(trailing.getMessage().contains("trailing"), trailing.getMessage());
    byte[] version2 = bytes.clone();
    version2[1] = 2;
    IOException v = assertThrows(IOException.class, () -> ArchivedReadRequest.parse(version2));
    assertTrue(v.getMessage().contains("version 2"), v.getMessage());
    assertArrayEquals(bytes, ArchivedReadRequest.parse(bytes).toBytes());
  }

  @Test
  void anOversizedTokenOrRangeIsRefused() {
    BlockRef fat = BLOCK.withToken(new byte[WireCodec.MAX_TOKEN + 1]);
    assertThrows(IllegalArgumentException.class, () -> new ArchivedReadRequest(1, fat, 0, 10, 4096));
    BlockRef huge = new BlockRef("BP-1", 5, 1, 1L << 40, new byte[0]);
    assertThrows(IllegalArgumentException.class,
        () -> new ArchivedReadRequest(1, huge, 0, ArchivedReadRequest.MAX_LENGTH + 1, 4096));
  }
}
