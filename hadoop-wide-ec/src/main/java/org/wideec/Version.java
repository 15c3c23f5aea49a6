package org.wideec;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;
import org.apache.hadoop.util.VersionInfo;
import org.wideec.code.CodeFormat;

/** Which build this is (from the filtered org/wideec/version.properties), against which Hadoop, with which format. */
public final class Version {
  private Version() {}

  /** This build's version, or "unknown" when run from classes that were not built by Maven. */
  public static String of() {
    Properties p = new Properties();
    try (InputStream in = Version.class.getResourceAsStream("/org/wideec/version.properties")) {
      if (in != null) {
        p.load(in);
      }
    } catch (IOException e) {
      return "unknown";
    }
    return p.getProperty("version", "unknown");
  }

  public static String describe() {
    return "hadoop-wide-ec " + of() + " (on-disk format " + CodeFormat.FORMAT_VERSION + "), running on Hadoop "
        + VersionInfo.getVersion();
  }
}
