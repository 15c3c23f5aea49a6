package org.wideec.datanode;

import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.wideec.repair.BackgroundCaps;
import org.wideec.protocol.CapsRequest;
import org.wideec.transport.Downstream;
import org.wideec.transport.SliceTransport;
import org.wideec.transport.TransportConf;

/**
 * Serves {@code wide-ec caps set} ({@link CapsRequest}): sets this DataNode's background caps from the next slice on,
 * as its JMX bean's setters do, and answers with the caps in force. Only a peer that proved the cluster secret may
 * (the router refuses others before this runs); with {@code wide-ec.transport.auth=none} nothing proves who asks, so
 * the order is refused and the caps stay settable only through the JMX bean. A cap below one slice per half stall
 * timeout is refused, naming it, and neither cap changes.
 */
final class CapsService {
  private static final Logger LOG = LoggerFactory.getLogger(CapsService.class);
  private final SliceTransport transport;
  private final Supplier<BackgroundTraffic> background;

  CapsService(SliceTransport transport, Supplier<BackgroundTraffic> background) {
    this.transport = transport;
    this.background = background;
  }

  void onRequest(long id, byte[] body, Downstream downstream) {
    String me = downstream.selfNode();
    if (transport.conf().secret() == null) {
      downstream.fail(null, me + " refused: with " + TransportConf.AUTH + "=none nothing proves who orders its caps;"
          + " set them through its JMX bean (BackgroundNodeCap, BackgroundRackCap)");
      return;
    }
    BackgroundTraffic b = background.get();
    if (b == null) {
      downstream.fail(null, me + " refused: its repair worker is not running");
      return;
    }
    try {
      CapsRequest req = CapsRequest.parse(body);
      BackgroundCaps now = b.setCaps(req.nodeBytesPerSecond(), req.rackBytesPerSecond());
      LOG.info("wide-ec: {} took background caps from {}: node {} bytes/s, rack uplink {} bytes/s", me,
          downstream.node(), now.nodeBytesPerSecond(), now.rackBytesPerSecond());
      byte[] answer = CapsRequest.answer(now.nodeBytesPerSecond(), now.rackBytesPerSecond());
      ByteBuf frame = downstream.alloc().heapBuffer(answer.length);
      frame.writeBytes(answer);
      downstream.send(0, frame);
      downstream.end();
    } catch (IOException | IllegalArgumentException e) {
      LOG.warn("wide-ec: {} refused a caps order from {}: {}", me, downstream.node(), e.getMessage());
      downstream.fail(null, me + " refused: " + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      downstream.fail(null, me + " was interrupted while answering a caps order");
    } catch (RuntimeException e) { // nothing escapes into the transport's worker
      LOG.error("wide-ec: caps order on {} failed unexpectedly", me, e);
      downstream.fail(null, me + ": caps order failed: " + e);
    }
  }
}
