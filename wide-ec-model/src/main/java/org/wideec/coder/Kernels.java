package org.wideec.coder;

import java.nio.ByteBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Chooses the fastest kernel available, once (STYLE.md: fast paths chosen at construction, invisible to
 * callers). Direct buffers go to ISA-L when the native library loaded; heap buffers, and everything when
 * it did not, go to the Vector API kernel when {@code jdk.incubator.vector} is enabled, else to the
 * table-driven Java kernel.
 *
 * <p>System properties: {@code wide-ec.coder.native=false} forces Java for direct buffers too;
 * {@code wide-ec.coder.vector=false} forces the table-driven Java kernel.
 */
public final class Kernels {
  private static final Logger LOG = LoggerFactory.getLogger(Kernels.class);
  public static final String NATIVE_PROPERTY = "wide-ec.coder.native";
  public static final String VECTOR_PROPERTY = "wide-ec.coder.vector";

  private static final CodingKernel JAVA = chooseJava();
  private static final CodingKernel BEST = chooseBest();

  private Kernels() {}

  /** The fastest pure-Java kernel. */
  public static CodingKernel java() {
    return JAVA;
  }

  /** Native for direct buffers when available, else {@link #java()}. */
  public static CodingKernel best() {
    return BEST;
  }

  /** Which coder runs, and why not the native one when it does not (what operators see in `wide-ec nodes`). */
  public static String describe() {
    if (nativeInUse()) {
      return "native (ISA-L)";
    }
    String java = JAVA == JavaKernel.INSTANCE ? "java (tables)" : "java (vector API)";
    if ("false".equalsIgnoreCase(System.getProperty(NATIVE_PROPERTY))) {
      return java + ": native disabled by -D" + NATIVE_PROPERTY + "=false";
    }
    return java + ": native unavailable: " + IsalNative.unavailableReason();
  }

  /** True when direct buffers are coded by ISA-L. */
  public static boolean nativeInUse() {
    return BEST != JAVA;
  }

  private static CodingKernel chooseJava() {
    boolean enabled = !"false".equalsIgnoreCase(System.getProperty(VECTOR_PROPERTY));
    if (enabled && ModuleLayer.boot().findModule("jdk.incubator.vector").isPresent()) {
      try {
        return (CodingKernel) Class.forName("org.wideec.coder.VectorKernel").getDeclaredField("INSTANCE").get(null);
      } catch (ReflectiveOperationException | LinkageError e) {
        LOG.warn("Vector API kernel unavailable ({}); using the table-driven Java kernel", e.toString());
      }
    }
    return JavaKernel.INSTANCE;
  }

  private static CodingKernel chooseBest() {
    if ("false".equalsIgnoreCase(System.getProperty(NATIVE_PROPERTY)) || !IsalNative.isAvailable()) {
      return JAVA;
    }
    return new Dispatching(IsalKernel.INSTANCE, JAVA);
  }

  /** Direct buffers to one kernel, heap buffers to another. */
  static final class Dispatching implements CodingKernel {
    private final CodingKernel direct;
    private final CodingKernel heap;

    Dispatching(CodingKernel direct, CodingKernel heap) {
      this.direct = direct;
      this.heap = heap;
    }

    @Override
    public String name() {
      return direct.name() + "+" + heap.name();
    }

    @Override
    public void multiply(CodingMatrix m, ByteBuffer[] inputs, ByteBuffer[] outputs, int len) {
      boolean isDirect = outputs.length > 0 ? outputs[0].isDirect() : inputs.length > 0 && inputs[0].isDirect();
      (isDirect ? direct : heap).multiply(m, inputs, outputs, len);
    }
  }
}
