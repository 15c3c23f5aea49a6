package org.wideec.coder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The pure-Java kernel is the Vector API's only where HotSpot's C2 compiles it: a JVM running C1 alone (as short-lived
 * command line JVMs and the development cluster's daemons do) takes the tables, which there run about a hundred times
 * faster than the Vector kernel. With the native library, heap buffers go to ISA-L through staging buffers whatever
 * the compiler.
 */
class KernelChoiceTest {
  @Test
  void theVectorApiIsCompiledOnlyWhereC2Runs() {
    assertTrue(Kernels.vectorCompiled("mixed mode, sharing", "true", "4"), "tiered up to C2");
    assertTrue(Kernels.vectorCompiled("mixed mode", "false", "1"), "C2 alone: TieredStopAtLevel does not apply");
    assertFalse(Kernels.vectorCompiled("mixed mode, sharing", "true", "1"), "C1 alone");
    assertFalse(Kernels.vectorCompiled("mixed mode", "true", "3"), "C1 with profiling, no C2");
    assertFalse(Kernels.vectorCompiled("interpreted mode, sharing", "true", "4"), "-Xint");
  }

  @Test
  void aJvmRunningC1AloneCodesHeapBuffersWithTheTablesOrThroughIsaL() throws Exception {
    NativeRequirement.nativeCoder();
    assertEquals("java isa-l+isa-l(staged)", kernelsIn("-XX:TieredStopAtLevel=1"));
    assertEquals("java-vector isa-l+isa-l(staged)", kernelsIn("-XX:TieredStopAtLevel=4").replaceAll("\\([0-9]+bit\\)", ""));
  }

  /** {@link Kernels#java()}'s and {@link Kernels#best()}'s names in a JVM started as this one, with {@code jit}. */
  private static String kernelsIn(String jit) throws Exception {
    Process p = new ProcessBuilder(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "--add-modules=jdk.incubator.vector", jit, "-Djava.library.path=" + System.getProperty("java.library.path"),
        "-cp", System.getProperty("java.class.path"), KernelNames.class.getName()))
        .redirectError(ProcessBuilder.Redirect.DISCARD).start();
    assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the child JVM ended");
    assertEquals(0, p.exitValue());
    return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
  }

  /** Prints the pure-Java kernel's and the best kernel's names (run as a child JVM). */
  static final class KernelNames {
    public static void main(String[] args) {
      System.out.println(Kernels.java().name() + " " + Kernels.best().name());
    }
  }
}
