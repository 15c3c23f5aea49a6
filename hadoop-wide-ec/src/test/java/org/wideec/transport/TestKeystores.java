package org.wideec.transport;

import java.io.File;
import java.nio.file.Files;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileUtil;
import org.apache.hadoop.security.ssl.KeyStoreTestUtil;

/**
 * Generated keystores plus Hadoop's ssl-server.xml / ssl-client.xml (on the test classpath, named in conf), for
 * tests that turn TLS or HTTPS on; close removes them.
 */
public final class TestKeystores implements AutoCloseable {
  private final File dir;
  private final String sslConfDir;

  public TestKeystores(Class<?> owner, Configuration conf) throws Exception {
    dir = Files.createTempDirectory("wideec-keystores").toFile();
    sslConfDir = KeyStoreTestUtil.getClasspathDir(owner);
    KeyStoreTestUtil.setupSSLConfig(dir.getAbsolutePath(), sslConfDir, conf, false);
  }

  @Override
  public void close() throws Exception {
    KeyStoreTestUtil.cleanupSSLConfig(dir.getAbsolutePath(), sslConfDir);
    FileUtil.fullyDelete(dir);
  }
}
