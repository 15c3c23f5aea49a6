package org.apache.hadoop.io.erasurecode.rawcoder;

import java.io.IOException;
import java.nio.ByteBuffer;
import org.apache.hadoop.io.erasurecode.ErasureCoderOptions;
import org.wideec.coder.ErasureCoder;

/**
 * Hadoop encoder adapter. Lives in Hadoop's package only because the encoding-state hook types are
 * package-private (DESIGN.md §2); it translates and delegates to {@link ErasureCoder}.
 */
public class WideEcRawEncoder extends RawErasureEncoder {
  private final ErasureCoder coder;
  private final boolean preferDirect;
  private final CoderRelease released;

  public WideEcRawEncoder(ErasureCoderOptions options, ErasureCoder coder, boolean preferDirect) {
    super(options);
    this.coder = coder;
    this.preferDirect = preferDirect;
    this.released = new CoderRelease("encoder", coder, preferDirect);
  }

  @Override
  protected void doEncode(ByteBufferEncodingState state) throws IOException {
    released.checkOpen();
    coder.encode(WideEcBuffers.limited(state.inputs, state.encodeLength),
        WideEcBuffers.limited(state.outputs, state.encodeLength));
  }

  @Override
  protected void doEncode(ByteArrayEncodingState state) throws IOException {
    released.checkOpen();
    coder.encode(WideEcBuffers.wrap(state.inputs, state.inputOffsets, state.encodeLength),
        WideEcBuffers.wrap(state.outputs, state.outputOffsets, state.encodeLength));
  }

  @Override
  public void release() {
    released.release();
  }

  @Override
  public boolean preferDirectBuffer() {
    return preferDirect;
  }
}
