package org.apache.hadoop.io.erasurecode.rawcoder;

import org.apache.hadoop.io.erasurecode.ErasureCoderOptions;
import org.wideec.coder.ErasureCoder;

/**
 * Hadoop decoder adapter (see {@link WideEcRawEncoder} for why it lives here). Hadoop hands over all n
 * unit slots with nulls for units not read; the coder picks a sufficient subset and rejects, naming the
 * code and the erasure set, a set it cannot decode.
 */
public class WideEcRawDecoder extends RawErasureDecoder {
  private final ErasureCoder coder;
  private final boolean preferDirect;

  public WideEcRawDecoder(ErasureCoderOptions options, ErasureCoder coder, boolean preferDirect) {
    super(options);
    this.coder = coder;
    this.preferDirect = preferDirect;
  }

  @Override
  protected void doDecode(ByteBufferDecodingState state) {
    coder.reconstruct(WideEcBuffers.limited(state.inputs, state.decodeLength), state.erasedIndexes,
        WideEcBuffers.limited(state.outputs, state.decodeLength));
  }

  @Override
  protected void doDecode(ByteArrayDecodingState state) {
    coder.reconstruct(WideEcBuffers.wrap(state.inputs, state.inputOffsets, state.decodeLength), state.erasedIndexes,
        WideEcBuffers.wrap(state.outputs, state.outputOffsets, state.decodeLength));
  }

  @Override
  public boolean preferDirectBuffer() {
    return preferDirect;
  }
}
