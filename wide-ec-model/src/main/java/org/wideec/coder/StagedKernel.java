package org.wideec.coder;

import java.nio.ByteBuffer;

/**
 * Heap buffers coded by a kernel of direct buffers (ISA-L) through direct staging buffers of the calling thread's
 * own, a segment at a time: the copies in and out run at memory speed, and ISA-L codes several times faster than
 * the Vector kernel under C2 and far faster than the tables where C2 does not run (a JVM running C1 alone, as
 * short-lived command line JVMs do; {@link Kernels#best()} has the figures).
 */
final class StagedKernel implements CodingKernel {
  /** Bytes staged at once, inputs and outputs together, so even a 255-unit stripe stays about a cache's size. */
  static final int STAGE_BYTES = 4 << 20;
  static final int MAX_SEGMENT = 64 << 10;
  static final int MIN_SEGMENT = 4 << 10;

  private static final ThreadLocal<ByteBuffer[]> STAGE = ThreadLocal.withInitial(() -> new ByteBuffer[1]);

  private final CodingKernel direct;

  StagedKernel(CodingKernel direct) {
    this.direct = direct;
  }

  @Override
  public String name() {
    return direct.name() + "(staged)";
  }

  @Override
  public void multiply(CodingMatrix m, ByteBuffer[] inputs, ByteBuffer[] outputs, int len) {
    // The staged buffers always fit the direct kernel: the caller's are checked here, as that kernel checks its own.
    BufferChecks.kernelArguments(null, m, inputs, m.cols(), outputs, len, false);
    int buffers = inputs.length + outputs.length;
    int segment = segment(buffers);
    ByteBuffer stage = stage(buffers * segment);
    ByteBuffer[] in = new ByteBuffer[inputs.length];
    ByteBuffer[] out = new ByteBuffer[outputs.length];
    for (int i = 0; i < in.length; i++) {
      in[i] = stage.slice(i * segment, segment);
    }
    for (int r = 0; r < out.length; r++) {
      out[r] = stage.slice((in.length + r) * segment, segment);
    }
    for (int done = 0; done < len; ) {
      int n = Math.min(segment, len - done);
      for (int i = 0; i < in.length; i++) {
        in[i].clear().put(0, inputs[i], inputs[i].position() + done, n).limit(n);
      }
      for (ByteBuffer o : out) {
        o.clear().limit(n);
      }
      direct.multiply(m, in, out, n);
      for (int r = 0; r < out.length; r++) {
        outputs[r].put(outputs[r].position() + done, out[r], 0, n);
      }
      done += n;
    }
  }

  /** Per-buffer segment for {@code buffers} staged buffers: the stage's share, 64-byte aligned, 4 to 64 KiB. */
  static int segment(int buffers) {
    int share = STAGE_BYTES / Math.max(1, buffers);
    return Math.max(MIN_SEGMENT, Math.min(MAX_SEGMENT, share & ~63));
  }

  private static ByteBuffer stage(int bytes) {
    ByteBuffer[] holder = STAGE.get();
    if (holder[0] == null || holder[0].capacity() < bytes) {
      holder[0] = ByteBuffer.allocateDirect(bytes + 64).alignedSlice(64);
    }
    return holder[0];
  }
}
