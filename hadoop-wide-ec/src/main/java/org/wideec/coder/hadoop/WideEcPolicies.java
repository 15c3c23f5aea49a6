package org.wideec.coder.hadoop;

import java.io.IOException;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.AddErasureCodingPolicyResponse;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.io.erasurecode.ECSchema;
import org.wideec.coder.StripedCodec;

/**
 * Adds and enables an erasure-coding policy of one of our codecs through the HDFS client API (what
 * {@code hdfs ec -addPolicies} and {@code -enablePolicy} do). Validates the codec and (k, m) first so an
 * impossible policy fails here, naming the problem, rather than in a DataNode.
 */
public final class WideEcPolicies {
  private WideEcPolicies() {}

  public static ErasureCodingPolicy policy(String codecName, int k, int m, int cellSize) {
    StripedCodec.byName(codecName).codeFor(k, m);
    return new ErasureCodingPolicy(new ECSchema(codecName, k, m), cellSize);
  }

  /** Adds (if new) and enables the policy; returns the policy as the NameNode named it. */
  public static ErasureCodingPolicy addAndEnable(DistributedFileSystem fs, ErasureCodingPolicy policy) throws IOException {
    AddErasureCodingPolicyResponse[] r = fs.addErasureCodingPolicies(new ErasureCodingPolicy[] {policy});
    if (!r[0].isSucceed() && fs.getAllErasureCodingPolicies().stream()
        .noneMatch(p -> p.getPolicy().getName().equals(policy.getName()))) {
      throw new IOException("NameNode rejected policy " + policy.getName() + ": " + r[0].getErrorMsg());
    }
    fs.enableErasureCodingPolicy(policy.getName());
    return policy;
  }
}
