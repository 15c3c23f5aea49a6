package org.wideec.transport.hdfs;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.hadoop.security.token.Token;

/**
 * A Hadoop token as slice requests carry it ({@code Token.write}); empty for none or a dummy (tokens off). The
 * transport reads these bytes back without Hadoop ({@link org.wideec.transport.Credential#ofToken}).
 */
public final class TokenBytes {
  private TokenBytes() {}

  public static byte[] of(Token<?> t) {
    if (t == null || t.getIdentifier().length == 0) {
      return new byte[0];
    }
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(b)) {
      t.write(out);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return b.toByteArray();
  }
}
