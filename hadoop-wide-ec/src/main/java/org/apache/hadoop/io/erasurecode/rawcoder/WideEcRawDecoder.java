package org.apache.hadoop.io.erasurecode.rawcoder;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.hadoop.io.erasurecode.ErasureCoderOptions;
import org.wideec.code.NotDecodableException;
import org.wideec.coder.ErasureCoder;

/**
 * Hadoop decoder adapter (see {@link WideEcRawEncoder} for why it lives here). Hadoop hands over all n
 * unit slots with nulls for units not read; the coder picks a sufficient subset.
 *
 * <p>HDFS's striped reader assumes any k units decode (DESIGN.md §2); an LRC handed a rank-deficient set
 * cannot. That must surface as the IOException {@code decode} declares (Hadoop 3.3+, on {@code doDecode}
 * too), never as an unchecked exception out of {@code FSDataInputStream.read}.
 */
public class WideEcRawDecoder extends RawErasureDecoder {
  private final ReleasableCoder coder;

  public WideEcRawDecoder(ErasureCoderOptions options, ErasureCoder coder, boolean preferDirect) {
    super(options);
    this.coder = new ReleasableCoder("decoder", coder, preferDirect);
  }

  @Override
  protected void doDecode(ByteBufferDecodingState state) throws IOException {
    ErasureCoder open = coder.open();
    ByteBuffer[] inputs = WideEcBuffers.limited(state.inputs, state.decodeLength);
    try {
      open.reconstruct(inputs, state.erasedIndexes, WideEcBuffers.limited(state.outputs, state.decodeLength));
    } catch (NotDecodableException e) {
      throw notDecodable(inputs, state.erasedIndexes, e);
    }
  }

  @Override
  protected void doDecode(ByteArrayDecodingState state) throws IOException {
    ErasureCoder open = coder.open();
    ByteBuffer[] inputs = WideEcBuffers.wrap(state.inputs, state.inputOffsets, state.decodeLength);
    try {
      open.reconstruct(inputs, state.erasedIndexes,
          WideEcBuffers.wrap(state.outputs, state.outputOffsets, state.decodeLength));
    } catch (NotDecodableException e) {
      throw notDecodable(inputs, state.erasedIndexes, e);
    }
  }

  private IOException notDecodable(ByteBuffer[] inputs, int[] erased, NotDecodableException cause) {
    List<Integer> given = new ArrayList<>();
    for (int u = 0; u < inputs.length; u++) {
      if (inputs[u] != null) {
        given.add(u);
      }
    }
    return new IOException(coder.code().spec() + ": cannot rebuild erased units " + Arrays.toString(erased)
        + " from inputs " + given + " (rank-deficient for this code, although HDFS's reader assumes any "
        + getNumDataUnits() + " units decode; see DESIGN.md §2)", cause);
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
