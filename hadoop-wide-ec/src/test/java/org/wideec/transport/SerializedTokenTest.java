package org.wideec.transport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.Arrays;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.security.token.Token;
import org.junit.jupiter.api.Test;
import org.wideec.transport.hdfs.TokenBytes;

/** The transport reads the block tokens requests carry exactly as Hadoop's Token.write wrote them, without Hadoop. */
class SerializedTokenTest {
  /** Lengths around every boundary of the variable-length integer (one byte up to 111, then 1, 2, 3 bytes follow). */
  private static final int[] LENGTHS = {1, 2, 111, 112, 127, 128, 255, 256, 4096, 65_535, 65_536, 70_000};

  private static Token<?> token(int identifierBytes, int passwordBytes, String kind, String service) {
    byte[] id = new byte[identifierBytes];
    byte[] pw = new byte[passwordBytes];
    for (int i = 0; i < id.length; i++) {
      id[i] = (byte) (i * 31 + 7);
    }
    for (int i = 0; i < pw.length; i++) {
      pw[i] = (byte) (i * 17 + 3);
    }
    return new Token<>(id, pw, new Text(kind), new Text(service));
  }

  @Test
  void readsTheIdentifierAndPasswordOfEveryTokenHadoopWrites() throws IOException {
    for (int id : LENGTHS) {
      for (int pw : new int[] {1, 20, 300}) {
        Token<?> t = token(id, pw, "HDFS_BLOCK_TOKEN", "10.0.0.1:9866");
        SerializedToken read = SerializedToken.parse(TokenBytes.of(t));
        assertArrayEquals(t.getIdentifier(), read.identifier(), "identifier of " + id + " bytes");
        assertArrayEquals(t.getPassword(), read.password(), "password of " + pw + " bytes");
      }
    }
  }

  @Test
  void refusesEveryTruncationOfAToken() throws IOException {
    byte[] whole = TokenBytes.of(token(300, 20, "HDFS_BLOCK_TOKEN", "dn"));
    for (int n = 1; n < whole.length; n++) {
      byte[] cut = Arrays.copyOf(whole, n);
      assertThrows(IOException.class, () -> SerializedToken.parse(cut), "a token cut to " + n + " bytes");
    }
  }

  @Test
  void aDummyTokenProvesNothing() throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    new Token<>().write(new DataOutputStream(b)); // what a NameNode with block tokens off hands out
    assertTrue(Credential.ofToken(b.toByteArray()).anonymousSession());
    assertTrue(Credential.ofToken(new byte[0]).anonymousSession());
  }
}
