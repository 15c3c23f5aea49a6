package org.wideec.coder.hadoop;

import java.util.concurrent.ConcurrentHashMap;
import org.apache.hadoop.io.erasurecode.ErasureCoderOptions;
import org.apache.hadoop.io.erasurecode.rawcoder.RawErasureCoderFactory;
import org.apache.hadoop.io.erasurecode.rawcoder.RawErasureDecoder;
import org.apache.hadoop.io.erasurecode.rawcoder.RawErasureEncoder;
import org.apache.hadoop.io.erasurecode.rawcoder.WideEcRawDecoder;
import org.apache.hadoop.io.erasurecode.rawcoder.WideEcRawEncoder;
import org.wideec.code.LinearCode;
import org.wideec.coder.ErasureCoder;
import org.wideec.coder.StripedCodec;

/**
 * Hadoop raw-coder factory for one of our codecs. {@code CodecRegistry} finds the subclasses through
 * {@code META-INF/services} and keys them by {@link #getCodecName()}; each codec needs its own class
 * because ServiceLoader instantiates with a no-argument constructor. Coders are shared per code so
 * their decode-plan caches are too.
 */
public abstract class WideEcCoderFactory implements RawErasureCoderFactory {
  public static final String JAVA_CODER_NAME = "wideec_java";
  private static final ConcurrentHashMap<String, ErasureCoder> CODERS = new ConcurrentHashMap<>();

  private final StripedCodec codec;

  protected WideEcCoderFactory(StripedCodec codec) {
    this.codec = codec;
  }

  static ErasureCoder coderFor(LinearCode code) {
    return CODERS.computeIfAbsent(code.spec(), s -> ErasureCoder.java(code));
  }

  @Override
  public RawErasureEncoder createEncoder(ErasureCoderOptions options) {
    return new WideEcRawEncoder(options, coder(options));
  }

  @Override
  public RawErasureDecoder createDecoder(ErasureCoderOptions options) {
    return new WideEcRawDecoder(options, coder(options));
  }

  private ErasureCoder coder(ErasureCoderOptions options) {
    return coderFor(codec.codeFor(options.getNumDataUnits(), options.getNumParityUnits()));
  }

  @Override
  public String getCoderName() {
    return JAVA_CODER_NAME;
  }

  @Override
  public String getCodecName() {
    return codec.codecName();
  }

  /** wide-rs: Hadoop-compatible Reed-Solomon. */
  public static final class WideRs extends WideEcCoderFactory {
    public WideRs() {
      super(StripedCodec.WIDE_RS);
    }
  }

  public static final class AzureLrcL2 extends WideEcCoderFactory {
    public AzureLrcL2() {
      super(StripedCodec.AZURE_LRC_L2);
    }
  }

  public static final class AzureLrcL3 extends WideEcCoderFactory {
    public AzureLrcL3() {
      super(StripedCodec.AZURE_LRC_L3);
    }
  }

  public static final class AzureLrcL4 extends WideEcCoderFactory {
    public AzureLrcL4() {
      super(StripedCodec.AZURE_LRC_L4);
    }
  }

  public static final class AzureLrc1L2 extends WideEcCoderFactory {
    public AzureLrc1L2() {
      super(StripedCodec.AZURE_LRC1_L2);
    }
  }

  public static final class AzureLrc1L3 extends WideEcCoderFactory {
    public AzureLrc1L3() {
      super(StripedCodec.AZURE_LRC1_L3);
    }
  }

  public static final class OptimalCauchyLrcL2 extends WideEcCoderFactory {
    public OptimalCauchyLrcL2() {
      super(StripedCodec.OPTIMAL_CAUCHY_LRC_L2);
    }
  }

  public static final class UniformCauchyLrcL2 extends WideEcCoderFactory {
    public UniformCauchyLrcL2() {
      super(StripedCodec.UNIFORM_CAUCHY_LRC_L2);
    }
  }

  public static final class UniformCauchyLrcL3 extends WideEcCoderFactory {
    public UniformCauchyLrcL3() {
      super(StripedCodec.UNIFORM_CAUCHY_LRC_L3);
    }
  }

  public static final class UniLrc extends WideEcCoderFactory {
    public UniLrc() {
      super(StripedCodec.UNILRC);
    }
  }
}
