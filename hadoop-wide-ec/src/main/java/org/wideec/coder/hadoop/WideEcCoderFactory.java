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
import org.wideec.coder.IsalNative;
import org.wideec.coder.Kernels;
import org.wideec.coder.StripedCodec;

/**
 * Hadoop raw-coder factory for one of our codecs. {@code CodecRegistry} finds the subclasses through
 * {@code META-INF/services} and keys them by {@link #getCodecName()}; each codec needs its own class
 * because ServiceLoader instantiates with a no-argument constructor. Coders are shared per code so
 * their decode-plan caches are too.
 */
public abstract class WideEcCoderFactory implements RawErasureCoderFactory {
  public static final String JAVA_CODER_NAME = "wideec_java";
  public static final String NATIVE_CODER_NAME = "wideec_native";
  private static final ConcurrentHashMap<String, ErasureCoder> JAVA_CODERS = new ConcurrentHashMap<>();
  private static final ConcurrentHashMap<String, ErasureCoder> NATIVE_CODERS = new ConcurrentHashMap<>();

  private final String hadoopCodecName;
  private final StripedCodec codec;
  private final boolean nativeCoder;

  protected WideEcCoderFactory(StripedCodec codec) {
    this(codec, false);
  }

  protected WideEcCoderFactory(StripedCodec codec, boolean nativeCoder) {
    this(codec.codecName(), codec, nativeCoder);
  }

  /**
   * A factory Hadoop knows under {@code hadoopCodecName} that codes with {@code codec}'s code: how Hadoop's
   * own {@code rs} codec gets our coder (StockRsCoderFactory), with the same bytes as wide-rs.
   */
  protected WideEcCoderFactory(String hadoopCodecName, StripedCodec codec, boolean nativeCoder) {
    this.hadoopCodecName = hadoopCodecName;
    this.codec = codec;
    this.nativeCoder = nativeCoder;
  }

  @Override
  public RawErasureEncoder createEncoder(ErasureCoderOptions options) {
    return new WideEcRawEncoder(options, coder(options), nativeCoder);
  }

  @Override
  public RawErasureDecoder createDecoder(ErasureCoderOptions options) {
    return new WideEcRawDecoder(options, coder(options), nativeCoder);
  }

  /**
   * The shared coder for this codec and (k, m). The native factory refuses (so Hadoop's CodecUtil falls
   * back to the next coder, {@code wideec_java}) when ISA-L is not loaded or is switched off.
   */
  private ErasureCoder coder(ErasureCoderOptions options) {
    LinearCode code = codec.codeFor(options.getNumDataUnits(), options.getNumParityUnits());
    if (!nativeCoder) {
      return JAVA_CODERS.computeIfAbsent(code.spec(), s -> ErasureCoder.java(code));
    }
    if (!Kernels.nativeInUse()) {
      throw new IllegalStateException(NATIVE_CODER_NAME + " unavailable: "
          + (IsalNative.isAvailable() ? "disabled by -D" + Kernels.NATIVE_PROPERTY + "=false" : IsalNative.unavailableReason()));
    }
    return NATIVE_CODERS.computeIfAbsent(code.spec(), s -> ErasureCoder.best(code));
  }

  @Override
  public String getCoderName() {
    return nativeCoder ? NATIVE_CODER_NAME : JAVA_CODER_NAME;
  }

  @Override
  public String getCodecName() {
    return hadoopCodecName;
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

  // Native (ISA-L) coders, listed ahead of the Java ones in META-INF/services so Hadoop tries them first.

  public static final class WideRsNative extends WideEcCoderFactory {
    public WideRsNative() {
      super(StripedCodec.WIDE_RS, true);
    }
  }

  public static final class AzureLrcL2Native extends WideEcCoderFactory {
    public AzureLrcL2Native() {
      super(StripedCodec.AZURE_LRC_L2, true);
    }
  }

  public static final class AzureLrcL3Native extends WideEcCoderFactory {
    public AzureLrcL3Native() {
      super(StripedCodec.AZURE_LRC_L3, true);
    }
  }

  public static final class AzureLrcL4Native extends WideEcCoderFactory {
    public AzureLrcL4Native() {
      super(StripedCodec.AZURE_LRC_L4, true);
    }
  }

  public static final class AzureLrc1L2Native extends WideEcCoderFactory {
    public AzureLrc1L2Native() {
      super(StripedCodec.AZURE_LRC1_L2, true);
    }
  }

  public static final class AzureLrc1L3Native extends WideEcCoderFactory {
    public AzureLrc1L3Native() {
      super(StripedCodec.AZURE_LRC1_L3, true);
    }
  }

  public static final class OptimalCauchyLrcL2Native extends WideEcCoderFactory {
    public OptimalCauchyLrcL2Native() {
      super(StripedCodec.OPTIMAL_CAUCHY_LRC_L2, true);
    }
  }

  public static final class UniformCauchyLrcL2Native extends WideEcCoderFactory {
    public UniformCauchyLrcL2Native() {
      super(StripedCodec.UNIFORM_CAUCHY_LRC_L2, true);
    }
  }

  public static final class UniformCauchyLrcL3Native extends WideEcCoderFactory {
    public UniformCauchyLrcL3Native() {
      super(StripedCodec.UNIFORM_CAUCHY_LRC_L3, true);
    }
  }

  public static final class UniLrcNative extends WideEcCoderFactory {
    public UniLrcNative() {
      super(StripedCodec.UNILRC, true);
    }
  }
}
