package org.wideec.coder.hadoop;

import org.apache.hadoop.io.erasurecode.ErasureCoderOptions;
import org.apache.hadoop.io.erasurecode.rawcoder.RawErasureCoderFactory;
import org.apache.hadoop.io.erasurecode.rawcoder.RawErasureDecoder;
import org.apache.hadoop.io.erasurecode.rawcoder.RawErasureEncoder;

/**
 * The codec of sealed placeholders. A file archived with a non-systematic code (RapidRAID) is
 * replaced by a zero-length striped file of the {@link #CODEC} policy; its bytes live as codewords that only
 * WideEcFileSystem and the {@code wide-ec} command decode. HDFS's striped reader builds its decoder when a stream is
 * opened (and its writer its encoder), so refusing both here makes a stock {@code open}, {@code cat} or {@code create}
 * of such a file fail before any byte is read or written, with this message in the client's log. A client without
 * this jar finds no coder for the codec at all, which fails the same open.
 */
public final class SealedCoderFactory implements RawErasureCoderFactory {
  /** The codec name of the sealed policy (lower case, as HDFS stores codec names). */
  public static final String CODEC = "wideec-sealed";
  public static final String CODER = "wideec_sealed";
  public static final String REFUSAL = "archived by wide-ec with a non-systematic code: its blocks are codewords, not"
      + " the file's bytes, so a stock HDFS client cannot read it; read it through WideEcFileSystem"
      + " (fs.hdfs.impl=org.wideec.client.WideEcFileSystem) or restore it with 'wide-ec unarchive PATH'";

  @Override
  public RawErasureEncoder createEncoder(ErasureCoderOptions options) {
    throw new UnsupportedOperationException(REFUSAL + " (it is read-only: no stock write either)");
  }

  @Override
  public RawErasureDecoder createDecoder(ErasureCoderOptions options) {
    throw new UnsupportedOperationException(REFUSAL);
  }

  @Override
  public String getCoderName() {
    return CODER;
  }

  @Override
  public String getCodecName() {
    return CODEC;
  }
}
