package org.wideec.engine;

import java.io.IOException;
import org.wideec.protocol.SummaryRequest;
import org.wideec.repair.UnitLocation;
import org.wideec.topology.Endpoint;
import org.wideec.transport.Credential;
import org.wideec.transport.Frame;
import org.wideec.transport.PeerStream;
import org.wideec.transport.SliceTransport;

/** Asks a holder for the linear summary of a replica it stores ({@link SummaryRequest}): one page comes back. */
public final class SummaryQuery {
  private SummaryQuery() {}

  /** @param credential what the asker proves to the node (a block token); null: the transport's own (a peer's) */
  public static byte[] summaryOf(SliceTransport transport, Endpoint node, UnitLocation asker, SummaryRequest req,
      Credential credential) throws IOException, InterruptedException {
    long id = java.util.concurrent.ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE;
    byte[] body = req.toBytes();
    try (PeerStream s = credential == null ? transport.open(node, asker.node(), asker.rack(), id, body)
        : transport.open(node, asker.node(), asker.rack(), id, body, credential)) {
      Frame f = s.next(0, req.pageSize()); // one page: anything else is refused by the stream
      byte[] page = new byte[req.pageSize()];
      try {
        f.payload().getBytes(f.payload().readerIndex(), page);
      } finally {
        f.release();
        s.credit();
      }
      s.awaitEnd(); // a stream taken to its end leaves its connection for the next request
      return page;
    }
  }
}
