package org.wideec.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.EnumMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.wideec.protocol.MessageKind;
import org.wideec.transport.RequestHandler;

/** The slice port's router: every kind to its family's handler, anything else to the steps, which refuse it. */
class MessageRouterTest {
  private static Map<MessageKind.Family, RequestHandler> naming(StringBuilder seen) {
    Map<MessageKind.Family, RequestHandler> m = new EnumMap<>(MessageKind.Family.class);
    for (MessageKind.Family f : MessageKind.Family.values()) {
      m.put(f, RequestHandler.screened((id, body, d) -> { }, (body, peer) -> {
        seen.append(f).append(' ');
        return null;
      }));
    }
    return m;
  }

  @Test
  void everyKindReachesTheHandlerOfItsFamilyAndAnUnknownByteTheSteps() throws Exception {
    StringBuilder seen = new StringBuilder();
    MessageRouter router = MessageRouter.of(naming(seen));
    for (MessageKind k : MessageKind.values()) {
      router.screen(new byte[] {(byte) k.code(), 0}, true);
    }
    router.screen(new byte[] {0x7f}, true);
    router.screen(new byte[0], true);
    assertEquals("STEP STEP STEP REBUILD REBUILD REBUILD REBUILD DIAL_AHEAD ARCHIVED_READ ENCODE_TREE PIN RAPIDRAID_POSITION"
        + " UPDATE UPDATE SUMMARY SUMMARY CAPS STEP STEP ", seen.toString());
  }

  @Test
  void aRouterWithoutAHandlerForSomeFamilyIsRefusedNamingIt() {
    Map<MessageKind.Family, RequestHandler> m = naming(new StringBuilder());
    m.remove(MessageKind.Family.PIN);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> MessageRouter.of(m));
    assertEquals("no handler for the PIN messages of the slice port", e.getMessage());
  }
}
