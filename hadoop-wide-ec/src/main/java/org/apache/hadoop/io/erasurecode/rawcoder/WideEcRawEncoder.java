package org.apache.hadoop.io.erasurecode.rawcoder;

import java.io.IOException;
import org.apache.hadoop.io.erasurecode.ErasureCoderOptions;
import org.wideec.coder.ErasureCoder;

/**
 * Hadoop encoder adapter. Lives in Hadoop's package only because the encoding-state hook types are
 * package-private (DESIGN.md §2); it translates and delegates to {@link ErasureCoder}.
 */
public class WideEcRawEncoder extends RawErasureEncoder {
  private final ReleasableCoder coder;

  public WideEcRawEncoder(ErasureCoderOptions options, ErasureCoder coder, boolean preferDirect) {
    super(options);
    this.coder = new ReleasableCoder("encoder", coder, preferDirect);
  }

  @Override
  protected void doEncode(ByteBufferEncodingState state) throws IOException {
    coder.open().encode(WideEcBuffers.limited(state.inputs, state.encodeLength),
        WideEcBuffers.limited(state.outputs, state.encodeLength));
  }

  @Override
  protected void doEncode(ByteArrayEncodingState state) throws IOException {
    coder.open().encode(WideEcBuffers.wrap(state.inputs, state.inputOffsets, state.encodeLength),
        WideEcBuffers.wrap(state.outputs, state.outputOffsets, state.encodeLength));
  }

  @Override
  public void release() {
    coder.release();
  }

  @Override
  public boolean preferDirectBuffer() {
    return coder.preferDirect();
  }
}
