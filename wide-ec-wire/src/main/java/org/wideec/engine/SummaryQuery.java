package org.wideec.engine;

import java.io.IOException;
import org.wideec.protocol.RackSumRequest;
import org.wideec.protocol.SummaryRequest;
import org.wideec.repair.UnitLocation;
import org.wideec.topology.Endpoint;
import org.wideec.transport.Credential;
import org.wideec.transport.Frame;
import org.wideec.transport.PeerStream;
import org.wideec.transport.SliceTransport;

/**
 * Asks a holder for the linear summary of a replica it stores ({@link SummaryRequest}): one page comes back; or a
 * rack's collector for its rack's sum ({@link RackSumRequest}): one page per check row.
 */
public final class SummaryQuery {
  private SummaryQuery() {}

  /** @param credential what the asker proves to the node (a block token); null: the transport's own (a peer's) */
  public static byte[] summaryOf(SliceTransport transport, Endpoint node, UnitLocation asker, SummaryRequest req,
      Credential credential) throws IOException, InterruptedException {
    return ask(transport, node, asker, req.toBytes(), req.pageSize(), credential);
  }

  /**
   * @param credential what the asker proves to the collector (its unit's block token); null: the transport's own
   * @return the rack's rows, one page per check row
   */
  public static byte[][] rackSumOf(SliceTransport transport, Endpoint collector, UnitLocation asker,
      RackSumRequest req, Credential credential) throws IOException, InterruptedException {
    int page = req.fold().pageSize();
    byte[] all = ask(transport, collector, asker, req.toBytes(), req.answerBytes(), credential);
    byte[][] rows = new byte[req.rows()][];
    for (int i = 0; i < rows.length; i++) {
      rows[i] = java.util.Arrays.copyOfRange(all, i * page, (i + 1) * page);
    }
    return rows;
  }

  /** One request answered by one frame of exactly {@code bytes} bytes (anything else is refused by the stream). */
  private static byte[] ask(SliceTransport transport, Endpoint node, UnitLocation asker, byte[] body, int bytes,
      Credential credential) throws IOException, InterruptedException {
    long id = java.util.concurrent.ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE;
    try (PeerStream s = credential == null ? transport.open(node, asker.node(), asker.rack(), id, body)
        : transport.open(node, asker.node(), asker.rack(), id, body, credential)) {
      Frame f = s.next(0, bytes);
      byte[] answer = new byte[bytes];
      try {
        f.payload().getBytes(f.payload().readerIndex(), answer);
      } finally {
        f.release();
        s.credit();
      }
      s.awaitEnd(); // a stream taken to its end leaves its connection for the next request
      return answer;
    }
  }
}
