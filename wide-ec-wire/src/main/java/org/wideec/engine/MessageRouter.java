package org.wideec.engine;

import java.io.IOException;
import java.util.EnumMap;
import java.util.Map;
import org.wideec.protocol.MessageKind;
import org.wideec.transport.Downstream;
import org.wideec.transport.RequestHandler;

/**
 * One slice port, every kind of request: each goes to the handler of its family in {@link MessageKind}'s registry,
 * and a body of no known kind to the step handler, whose parser refuses it naming the byte (a step of an unknown
 * kind is how every release has refused what it does not know).
 */
public final class MessageRouter implements RequestHandler {
  private final Map<MessageKind.Family, RequestHandler> handlers;
  private final RequestHandler steps;

  private MessageRouter(Map<MessageKind.Family, RequestHandler> handlers) {
    this.handlers = new EnumMap<>(handlers);
    this.steps = handlers.get(MessageKind.Family.STEP);
    for (MessageKind.Family f : MessageKind.Family.values()) {
      if (!this.handlers.containsKey(f)) {
        throw new IllegalArgumentException("no handler for the " + f + " messages of the slice port");
      }
    }
  }

  /** @throws IllegalArgumentException naming a family of messages no handler serves */
  public static MessageRouter of(Map<MessageKind.Family, RequestHandler> handlers) {
    return new MessageRouter(handlers);
  }

  private RequestHandler handlerOf(byte[] body) {
    MessageKind kind = MessageKind.peek(body);
    return kind == null ? steps : handlers.get(kind.family());
  }

  @Override
  public void onRequest(long repairId, byte[] body, Downstream downstream) {
    handlerOf(body).onRequest(repairId, body, downstream);
  }

  @Override
  public void screen(byte[] body) throws IOException {
    handlerOf(body).screen(body);
  }

  @Override
  public String screen(byte[] body, boolean clusterPeer) throws IOException {
    return handlerOf(body).screen(body, clusterPeer);
  }
}
