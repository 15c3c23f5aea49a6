package org.wideec.coder;

import java.nio.ByteBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Chooses the fastest kernel available, once (STYLE.md: fast paths chosen at construction, invisible to
 * callers). When the native library loaded, everything goes to ISA-L, heap buffers through staging buffers
 * ({@link StagedKernel}); when it did not, to the Vector API kernel when {@code jdk.incubator.vector} is enabled and
 * HotSpot's C2 compiler runs, else to the table-driven Java kernel.
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

  /**
   * ISA-L when the native library loaded, for heap buffers too through staging buffers (RS(10,4) on 1 MiB heap
   * buffers, Zen 5: 7 to 9.6 GB/s, against 2 GB/s for the Vector kernel under C2 and 125 MB/s for the tables under
   * C1 alone); else {@link #java()}.
   */
  public static CodingKernel best() {
    return BEST;
  }

  /** Which coder runs, and why not the native one when it does not (what operators see in `wide-ec nodes`). */
  public static String describe() {
    if (nativeInUse()) {
      return "native (ISA-L)";
    }
    String java = JAVA != JavaKernel.INSTANCE ? "java (vector API)"
        : vectorCompiled() ? "java (tables)" : "java (tables: the vector API needs HotSpot's C2 compiler, off here)";
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
    if (enabled && ModuleLayer.boot().findModule("jdk.incubator.vector").isPresent() && vectorCompiled()) {
      try {
        return (CodingKernel) Class.forName("org.wideec.coder.VectorKernel").getDeclaredField("INSTANCE").get(null);
      } catch (ReflectiveOperationException | LinkageError e) {
        LOG.warn("Vector API kernel unavailable ({}); using the table-driven Java kernel", e.toString());
      }
    }
    return JavaKernel.INSTANCE;
  }

  /**
   * Whether this JVM compiles with HotSpot's C2, the one compiler that turns Vector API calls into vector
   * instructions. Under C1 alone ({@code -XX:TieredStopAtLevel=1}, as short-lived command line JVMs and the
   * development cluster's daemons run) or the interpreter, the Vector kernel allocates an object per vector and runs
   * about a hundred times slower than the tables (RS(10,4) on heap buffers, Zen 5: 1 MB/s against 125 MB/s; 1.5 GB/s
   * with C2). Unknown (another VM): assumed compiled.
   */
  static boolean vectorCompiled() {
    try {
      com.sun.management.HotSpotDiagnosticMXBean vm =
          java.lang.management.ManagementFactory.getPlatformMXBean(com.sun.management.HotSpotDiagnosticMXBean.class);
      return vectorCompiled(System.getProperty("java.vm.info", ""), vm.getVMOption("TieredCompilation").getValue(),
          vm.getVMOption("TieredStopAtLevel").getValue());
    } catch (RuntimeException | LinkageError e) {
      return true;
    }
  }

  /** From the VM's info ({@code java.vm.info}) and its two compiler options as HotSpot reports them. */
  static boolean vectorCompiled(String vmInfo, String tieredCompilation, String tieredStopAtLevel) {
    if (vmInfo.contains("interpreted mode")) {
      return false;
    }
    // Without tiered compilation HotSpot compiles with C2 alone; with it, level 4 is C2.
    return !Boolean.parseBoolean(tieredCompilation) || Integer.parseInt(tieredStopAtLevel.trim()) >= 4;
  }

  private static CodingKernel chooseBest() {
    if ("false".equalsIgnoreCase(System.getProperty(NATIVE_PROPERTY)) || !IsalNative.isAvailable()) {
      return JAVA;
    }
    return new Dispatching(IsalKernel.INSTANCE, new StagedKernel(IsalKernel.INSTANCE));
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
