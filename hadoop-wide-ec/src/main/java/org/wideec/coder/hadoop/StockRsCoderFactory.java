package org.wideec.coder.hadoop;

import org.apache.hadoop.io.erasurecode.ErasureCodeConstants;
import org.wideec.coder.StripedCodec;

/**
 * Our coders for Hadoop's own {@code rs} codec (the RS-3-2, RS-6-3 and RS-10-4 system policies), so existing
 * EC data gets ISA-L speed without libhadoop built with ISA-L. The code is wide-rs's {@code rs:k=K,m=M}, whose
 * parity equals Hadoop's RSRawEncoder byte for byte, so the bytes on disk keep their meaning whichever coder
 * wrote them. Registered as {@code wideec_native} and {@code wideec_java} next to {@code rs_native} and
 * {@code rs_java}; an operator opts in with e.g. {@code io.erasurecode.codec.rs.rawcoders=wideec_native,rs_java}.
 *
 * <p>Having the jar on the classpath does not change what stock {@code rs} uses. CodecUtil (3.4.3 and 3.5.0)
 * takes the coder order from {@code io.erasurecode.codec.rs.rawcoders}, which core-default.xml sets to
 * {@code rs_native,rs_java}; CodecRegistry's own order (where ServiceLoader's classpath order could put us
 * ahead of rs_java) is consulted only when that key is absent, i.e. for a Configuration built without
 * defaults. Even then the bytes are identical; what differs is only which code path computes them. So we
 * leave the choice to the operator rather than compete for the default.
 *
 * <p>{@code rs} is deliberately not a {@link StripedCodec}: placement, the repair worker, fsck and our
 * FileSystem take StripedCodec names for ours, and stock RS groups keep HDFS's behaviour in all of those.
 *
 * <p>Not {@code rs-legacy}: Hadoop's older RS coder has a different generator, which no code of ours reproduces.
 */
public abstract class StockRsCoderFactory extends WideEcCoderFactory {
  /** Hadoop's name for its RS codec, as stored in every RS policy. */
  public static final String CODEC_NAME = ErasureCodeConstants.RS_CODEC_NAME;

  private StockRsCoderFactory(boolean nativeCoder) {
    super(CODEC_NAME, StripedCodec.WIDE_RS, nativeCoder);
  }

  /** ISA-L; refuses (so Hadoop falls back to the next coder listed) when our native library is not loaded. */
  public static final class Native extends StockRsCoderFactory {
    public Native() {
      super(true);
    }
  }

  /** Our Java kernel (the JDK Vector API when the JVM has it). */
  public static final class Java extends StockRsCoderFactory {
    public Java() {
      super(false);
    }
  }
}
