package org.wideec.archive.hdfs;

import java.io.IOException;
import java.util.List;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.SourcePiece;
import org.wideec.archive.StripeMember;

/**
 * Computes and stores the n codewords of one sealed stripe: given a stripe in ENCODING whose
 * codeword directory is recorded and empty, it reads the source pieces, writes every codeword through
 * {@link CodewordFiles} and returns what the manifest records next. It changes no manifest and no source block: the
 * {@link SealedArchiver} owns the state machine. The client-side classic encoder is one; the RapidRAID pipeline run
 * by the DataNodes is another.
 */
public interface CodewordEncoder {
  String name();

  Encoded encode(ArchivedStripe stripe) throws IOException;

  /**
   * @param codewords the n members, each written (inode, block, generation stamp, CRC32C)
   * @param sources the source pieces with the CRC32C of the bytes read
   * @param dirInode the codeword directory's inode
   * @param offPlan one line per codeword HDFS placed elsewhere than planned
   */
  record Encoded(List<StripeMember> codewords, List<SourcePiece> sources, long dirInode, long bytesRead,
      long bytesWritten, List<String> offPlan) {
    public Encoded {
      codewords = List.copyOf(codewords);
      sources = List.copyOf(sources);
      offPlan = List.copyOf(offPlan);
    }
  }
}
