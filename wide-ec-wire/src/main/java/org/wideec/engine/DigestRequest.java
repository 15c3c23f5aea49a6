package org.wideec.engine;

import org.wideec.topology.Endpoint;
import org.wideec.transport.Frame;
import org.wideec.transport.PeerStream;
import org.wideec.transport.SliceTransport;
import org.wideec.protocol.StepRequest;
import org.wideec.repair.BlockRef;
import org.wideec.repair.UnitLocation;

/**
 * Asks a node for the CRC32C of a replica it stores: read through its checksum-verified path, or, where the request
 * allows, composed from the replica's stored chunk checksums.
 */
public final class DigestRequest {
  private DigestRequest() {}

  public static long crcOf(SliceTransport transport, Endpoint node, UnitLocation asker, BlockRef block, int sliceBytes)
      throws java.io.IOException, InterruptedException {
    return crcOf(transport, node, asker, block, sliceBytes, null);
  }

  /** @param credential what the asker proves to the node (a block token); null: the transport's own (a peer's) */
  public static long crcOf(SliceTransport transport, Endpoint node, UnitLocation asker, BlockRef block, int sliceBytes,
      org.wideec.transport.Credential credential) throws java.io.IOException, InterruptedException {
    return crcOf(transport, node, asker, StepRequest.digestOf(block, sliceBytes), credential);
  }

  /**
   * Sends a digest request ({@link StepRequest#digestOf} or {@link StepRequest#storedDigestOf}) and returns the CRC32C
   * the node answers.
   */
  public static long crcOf(SliceTransport transport, Endpoint node, UnitLocation asker, StepRequest req,
      org.wideec.transport.Credential credential) throws java.io.IOException, InterruptedException {
    if (!req.digest()) {
      throw new IllegalArgumentException("not a digest request: " + req);
    }
    long id = java.util.concurrent.ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE;
    byte[] body = req.toBytes();
    try (PeerStream s = credential == null ? transport.open(node, asker.node(), asker.rack(), id, body)
        : transport.open(node, asker.node(), asker.rack(), id, body, credential)) {
      Frame f = s.next(0, Long.BYTES); // a digest is one 8-byte frame: anything else is refused by the stream
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
