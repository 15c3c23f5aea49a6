package org.wideec.coder;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The JNI library over ISA-L ({@code native/}). Loaded once: from {@code java.library.path}, else from the
 * copy inside the jar. When it cannot be loaded (no ISA-L, another platform) one line is logged and
 * {@link #isAvailable()} is false; callers then use the Java kernels. The native methods trust their
 * arguments; only {@link IsalKernel} calls them, after checking every buffer.
 */
public final class IsalNative {
  private static final Logger LOG = LoggerFactory.getLogger(IsalNative.class);
  static final String LIBRARY = "wideec";
  private static final String RESOURCE = "/native/linux-x86_64/libwideec.so";
  private static final String UNAVAILABLE;

  static {
    UNAVAILABLE = load();
    if (UNAVAILABLE == null) {
      LOG.info("native ISA-L coder loaded");
    } else {
      LOG.warn("native ISA-L coder unavailable ({}); using the Java coder", UNAVAILABLE);
    }
  }

  private IsalNative() {}

  public static boolean isAvailable() {
    return UNAVAILABLE == null;
  }

  /** Why the native coder is not available, or null. */
  public static String unavailableReason() {
    return UNAVAILABLE;
  }

  /** The native calls' shape this class needs (wideec_isal.c's abiVersion). */
  static final int ABI_VERSION = 4;

  /**
   * Bytes of the tables {@link #initTables} fills per coefficient: ISA-L's own (32, in whatever layout the installed
   * ISA-L uses), a GFNI matrix (8) and the coefficient (1).
   */
  static final int TABLE_BYTES_PER_COEFFICIENT = 41;

  /** A direct buffer for the tables of a rows x k matrix, 64-byte aligned. */
  static ByteBuffer tableBuffer(int k, int rows) {
    return ByteBuffer.allocateDirect(TABLE_BYTES_PER_COEFFICIENT * k * rows + 64).alignedSlice(64);
  }

  private static String load() {
    // Switched off means not loaded at all: an operator ruling the native coder out (or a test of the Java
    // fallback) must not depend on a library that is still in the process.
    if ("false".equalsIgnoreCase(System.getProperty(Kernels.NATIVE_PROPERTY))) {
      return "not loaded: -D" + Kernels.NATIVE_PROPERTY + "=false";
    }
    String loaded = loadLibrary();
    if (loaded != null) {
      return loaded;
    }
    try {
      int abi = abiVersion();
      return abi == ABI_VERSION ? null : "lib" + LIBRARY + ".so is built for native calls of version " + abi + ", this jar"
          + " makes version " + ABI_VERSION + " calls: install the library from the same release (an older one on"
          + " java.library.path?)";
    } catch (UnsatisfiedLinkError e) {
      return "lib" + LIBRARY + ".so predates this jar (no abiVersion): install the library from the same release";
    }
  }

  private static String loadLibrary() {
    if (!System.getProperty("os.name", "").toLowerCase(java.util.Locale.ROOT).contains("linux")
        || !System.getProperty("os.arch", "").matches("amd64|x86_64")) {
      return "built for linux x86_64 only, this is " + System.getProperty("os.name") + "/" + System.getProperty("os.arch");
    }
    try {
      System.loadLibrary(LIBRARY);
      return null;
    } catch (UnsatisfiedLinkError e) {
      // fall through to the copy in the jar
    }
    try (InputStream in = IsalNative.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        return "lib" + LIBRARY + ".so not on java.library.path and not in the jar (built without libisal-dev?)";
      }
      File tmp = File.createTempFile("libwideec", ".so");
      tmp.deleteOnExit();
      Files.copy(in, tmp.toPath(), StandardCopyOption.REPLACE_EXISTING);
      System.load(tmp.getAbsolutePath());
      return null;
    } catch (IOException | UnsatisfiedLinkError e) {
      return e.getMessage();
    }
  }

  static native int abiVersion();

  /** Fills a {@link #tableBuffer} for the rows x k matrix (row-major). */
  static native void initTables(int k, int rows, byte[] matrix, ByteBuffer tables);

  /** kernel 0: ISA-L; 1: GFNI where the processor has it ({@link #gfni()}), else ISA-L (the same bytes). */
  static native void multiply(ByteBuffer tables, int k, int rows, ByteBuffer[] inputs, int[] inPos,
      ByteBuffer[] outputs, int[] outPos, int len, ByteBuffer scratch, int group, int slice, int prefetch, int kernel);

  /** Whether this processor runs multiply's GFNI kernel (AVX-512 with GFNI). */
  static native boolean gfni();

  /** Whether the library is loaded and runs its GFNI kernel on this processor; asked once. */
  static boolean gfniKernel() {
    return GfniHolder.GFNI;
  }

  private static final class GfniHolder {
    static final boolean GFNI = isAvailable() && gfni();
  }

  static native void xor(ByteBuffer[] inputs, int[] inPos, int count, ByteBuffer output, int outPos, int len);

  static native void update(ByteBuffer tables, int k, int rows, int vec, ByteBuffer input, int inPos,
      ByteBuffer[] outputs, int[] outPos, int len);
}
