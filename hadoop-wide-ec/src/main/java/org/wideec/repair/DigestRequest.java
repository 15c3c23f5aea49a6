package org.wideec.repair;

import org.wideec.transport.Endpoint;
import org.wideec.transport.Frame;
import org.wideec.transport.PeerStream;
import org.wideec.transport.SliceTransport;

/** Asks a node for the CRC32C of a replica it stores (read through its checksum-verified path). */
public final class DigestRequest {
  private DigestRequest() {}

  public static long crcOf(SliceTransport transport, Endpoint node, UnitLocation asker, BlockRef block, int sliceBytes)
      throws java.io.IOException, InterruptedException {
    StepRequest req = StepRequest.digestOf(block, sliceBytes);
    long id = java.util.concurrent.ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE;
    try (PeerStream s = transport.open(node, asker.node(), asker.rack(), id, req.toBytes())) {
      Frame f = s.next(0);
      long crc;
      try {
        crc = f.payload().getLong(f.payload().readerIndex());
      } finally {
        f.release();
        s.credit();
      }
      s.awaitEnd(); // a stream taken to its end leaves its connection for the next request
      return crc;
    }
  }
}
